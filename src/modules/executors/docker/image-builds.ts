import { createReadStream } from 'node:fs'
import { lstat, readdir, readFile, readlink, realpath } from 'node:fs/promises'
import path from 'node:path'
import { pipeline } from 'node:stream/promises'
import dockerignore from '@balena/dockerignore'
import type Docker from 'dockerode'
import { pack } from 'tar-stream'
import { refusedBaseImage } from './base-images.ts'
import { LABELS } from './docker-objects.ts'
import { followProgress } from './images.ts'

// Images built from a checkout (applications, jobs built from git): the checkout's root_path sent
// to the engine as the build context, the Dockerfile named within it, the image tagged
// `berth/{service id}:{commit}`; the build's output streams into the deployment's log lines.

/** The repository Berth tags a service's built images in. */
export const builtImageRepository = (serviceId: string) => `berth/${serviceId}`

/** The inline Dockerfile of a job (dockerfile_raw), as it is added to the context. */
const INLINE_DOCKERFILE = '.berth-inline.Dockerfile'

export interface BuildSpec {
  serviceId: string
  /** The checkout's working tree and the directory in it the build starts from (root_path). */
  checkout: string
  rootPath: string
  /** Relative to root_path; null: `Dockerfile` (or the inline one). */
  dockerfilePath: string | null
  dockerfileRaw?: string | null
  target: string | null
  tag: string
  /** build.timeout_max_sec. */
  timeoutSeconds: number
  /** BERTH_BUILD_CONTEXT_MAX_BYTES; absent: its default. */
  contextMaxBytes?: number | undefined
  /** BERTH_ALLOW_PRIVATE_URLS: unless true, the images the Dockerfile pulls pass the registries' address guard (base-images.ts). */
  allowPrivateUrls: boolean
}

export type BuildOutcome = { ok: true } | { ok: false; message: string }

/** A path inside a directory, or undefined when it would lead out of it. */
function inside(base: string, relative: string): string | undefined {
  const resolved = path.resolve(base, `.${path.posix.sep}${relative.replace(/^\/+/, '')}`)
  return resolved === base || resolved.startsWith(`${base}${path.sep}`) ? resolved : undefined
}

/**
 * What the context's `.dockerignore` leaves out, with the engine's own rules: its patterns (`!`
 * exceptions included) match paths relative to the context; the Dockerfile and `.dockerignore`
 * itself are sent whatever it says, as the Docker CLI sends them (the engine then leaves them out
 * of COPY). An ignored directory is still searched when an exception may match inside it, as the
 * CLI does, without being sent itself.
 */
async function contextRules(root: string, dockerfile: string): Promise<(relative: string, isDirectory: boolean) => 'send' | 'search' | 'skip'> {
  const text = await readFile(path.join(root, '.dockerignore'), 'utf8').catch(() => undefined)
  if (text === undefined) return () => 'send'
  const patterns = text.split(/\r?\n/).filter((line) => line.trim() !== '' && !line.trimStart().startsWith('#'))
  // The package is CommonJS with a `default` of itself, which is the one call TypeScript and Node agree on.
  const rules = dockerignore.default({ ignorecase: false }).add(patterns)
  const alwaysSent = new Set([path.posix.normalize(dockerfile), '.dockerignore'])
  const hasExceptions = patterns.some((pattern) => pattern.trimStart().startsWith('!'))
  return (relative, isDirectory) => {
    if (alwaysSent.has(relative) || !rules.ignores(relative)) return 'send'
    return isDirectory && hasExceptions ? 'search' : 'skip'
  }
}

/** The most bytes of files a build context may send when the spec names no bound (the config's BERTH_BUILD_CONTEXT_MAX_BYTES has the same default). */
export const DEFAULT_BUILD_CONTEXT_MAX_BYTES = 512 * 1024 * 1024

type ContextEntry =
  | { kind: 'file'; name: string; full: string; mode: number; size: number }
  | { kind: 'directory'; name: string; mode: number }
  | { kind: 'symlink'; name: string; linkname: string }

/** What the context holds, in order: symbolic links kept as links (never followed), git's own directory and what .dockerignore names left out. */
async function contextEntries(root: string, dockerfile: string): Promise<ContextEntry[]> {
  const rules = await contextRules(root, dockerfile)
  const entries: ContextEntry[] = []
  const walk = async (dir: string, prefix: string): Promise<void> => {
    for (const entry of (await readdir(dir)).sort()) {
      if (entry === '.git') continue
      const full = path.join(dir, entry)
      const name = prefix + entry
      const stat = await lstat(full)
      const rule = rules(name, stat.isDirectory())
      if (rule === 'skip') continue
      if (stat.isSymbolicLink()) entries.push({ kind: 'symlink', name, linkname: await readlink(full) })
      else if (stat.isDirectory()) {
        if (rule === 'send') entries.push({ kind: 'directory', name, mode: stat.mode & 0o7777 })
        await walk(full, `${name}/`)
      } else if (stat.isFile()) entries.push({ kind: 'file', name, full, mode: stat.mode & 0o7777, size: stat.size })
    }
  }
  await walk(root, '')
  return entries
}

/**
 * The context as a tar stream, each file read as the engine takes it: a context is never held in
 * memory whole (a repository of large files would otherwise cost the runner their size).
 */
function contextStream(entries: ContextEntry[], inline: string | null): ReturnType<typeof pack> {
  const tar = pack()
  const feed = async () => {
    for (const entry of entries) {
      if (entry.kind === 'symlink') tar.entry({ name: entry.name, type: 'symlink', linkname: entry.linkname })
      else if (entry.kind === 'directory') tar.entry({ name: entry.name, type: 'directory', mode: entry.mode })
      else {
        const sink = tar.entry({ name: entry.name, mode: entry.mode, size: entry.size })
        await pipeline(createReadStream(entry.full), sink)
      }
    }
    if (inline !== null) tar.entry({ name: INLINE_DOCKERFILE, mode: 0o644 }, inline)
    tar.finalize()
  }
  feed().catch((error: unknown) => tar.destroy(error as Error))
  return tar
}

/**
 * Builds the image; its output goes to `say` line by line. A failed build is an outcome with its
 * last lines; a build past `timeoutSeconds` is stopped and fails; aborting `signal` stops the
 * build (the request to the engine is aborted) and rejects with its reason.
 */
export async function buildImage(
  docker: Docker,
  spec: BuildSpec,
  say: (message: string, level?: 'INFO' | 'WARNING' | 'ERROR') => void,
  signal: AbortSignal,
): Promise<BuildOutcome> {
  const checkout = await realpath(spec.checkout)
  const rootGiven = inside(checkout, spec.rootPath)
  // A root_path through a symbolic link must not lead out of the checkout.
  const root = rootGiven ? await realpath(rootGiven).catch(() => undefined) : undefined
  if (!root || !(root === checkout || root.startsWith(`${checkout}${path.sep}`)) || !(await lstat(root)).isDirectory()) {
    return { ok: false, message: `the root_path ${spec.rootPath} is not a directory of the repository` }
  }
  const inline = spec.dockerfileRaw ?? null
  const dockerfile = inline !== null && spec.dockerfilePath === null ? INLINE_DOCKERFILE : (spec.dockerfilePath ?? 'Dockerfile').replace(/^\/+/, '')
  if (!inside(root, dockerfile)) return { ok: false, message: `the dockerfile_path ${spec.dockerfilePath} leads out of the root_path` }
  const entries = await contextEntries(root, dockerfile)
  const bytes = entries.reduce((sum, entry) => sum + (entry.kind === 'file' ? entry.size : 0), 0)
  const maxBytes = spec.contextMaxBytes ?? DEFAULT_BUILD_CONTEXT_MAX_BYTES
  if (bytes > maxBytes) {
    return {
      ok: false,
      message: `the build context in ${spec.rootPath} holds ${bytes} bytes of files, over the ${maxBytes} a build may send (BERTH_BUILD_CONTEXT_MAX_BYTES); leave files out with .dockerignore`,
    }
  }
  if (!spec.allowPrivateUrls) {
    const text = inline !== null && dockerfile === INLINE_DOCKERFILE ? inline : await readFile(path.join(root, dockerfile), 'utf8').catch(() => '')
    const refused = await refusedBaseImage(docker, text)
    if (refused) return { ok: false, message: refused }
  }
  say(`building ${dockerfile} in ${spec.rootPath} (${Math.ceil(bytes / 1024)} KiB of context) as ${spec.tag}`)

  const timeout = AbortSignal.timeout(spec.timeoutSeconds * 1000)
  const bounded = AbortSignal.any([signal, timeout])
  const lastLines: string[] = []
  const keep = (line: string) => {
    lastLines.push(line)
    if (lastLines.length > 20) lastLines.shift()
  }
  try {
    const stream = await docker.buildImage(contextStream(entries, inline) as unknown as NodeJS.ReadableStream, {
      t: spec.tag,
      dockerfile,
      ...(spec.target ? { target: spec.target } : {}),
      rm: true,
      forcerm: true,
      labels: { [LABELS.service]: spec.serviceId },
      abortSignal: bounded,
    })
    const failure = await followProgress(docker, stream, bounded, (event) => {
      if (event.error) {
        keep(event.error.trim())
        say(event.error.trim(), 'ERROR')
      }
      for (const line of (event.stream ?? '').split('\n')) {
        const text = line.trimEnd()
        if (text.trim() === '') continue
        keep(text)
        say(text)
      }
    })
    if (failure) return { ok: false, message: `the build failed: ${failure}; its last lines: ${lastLines.slice(-8).join(' | ')}` }
    say(`built ${spec.tag}`)
    return { ok: true }
  } catch (error) {
    if (signal.aborted) throw error
    if (timeout.aborted) return { ok: false, message: `the build took longer than build.timeout_max_sec (${spec.timeoutSeconds} s) and was stopped` }
    throw error
  }
}

/** Removes the service's built images but `keep` (in use ones stay: the engine refuses them); every one without `keep`. */
export async function removeBuiltImages(docker: Docker, serviceId: string, keep?: string): Promise<void> {
  const images = await docker.listImages({ filters: { reference: [builtImageRepository(serviceId)] } })
  for (const image of images) {
    for (const tag of image.RepoTags ?? []) {
      if (tag === keep || !tag.startsWith(`${builtImageRepository(serviceId)}:`)) continue
      await docker
        .getImage(tag)
        .remove()
        .catch(() => undefined)
    }
  }
}
