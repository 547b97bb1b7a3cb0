import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { createServer } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import bcrypt from 'bcryptjs'
import Docker from 'dockerode'
import { pack } from 'tar-stream'
import { LABELS } from '#src/modules/executors/docker/docker-objects.ts'
import { until } from './deployments.ts'

// The real Docker engine for the executor's tests (no outside registry is reachable): a busybox
// image made from Debian's busybox-static, images built on it, and Debian's docker-registry on
// loopback with credentials to pull them from.

export const docker = new Docker()

/** The base image every test image builds on: Debian's static busybox and its applets. */
export const BUSYBOX = 'berth-test/busybox:1'
const APPLETS = ['sh', 'httpd', 'echo', 'sleep', 'cat', 'ls', 'env', 'mkdir', 'test', 'true', 'false', 'wget', 'nc', 'date', 'exit']

function tarOf(entries: { name: string; content?: string | Buffer; mode?: number; linkTo?: string; dir?: boolean }[]): Promise<Buffer> {
  const tar = pack()
  for (const entry of entries) {
    if (entry.dir) tar.entry({ name: entry.name, type: 'directory', mode: 0o755 })
    else if (entry.linkTo) tar.entry({ name: entry.name, type: 'symlink', linkname: entry.linkTo })
    else tar.entry({ name: entry.name, mode: entry.mode ?? 0o644 }, entry.content ?? '')
  }
  tar.finalize()
  const chunks: Buffer[] = []
  return new Promise((resolve, reject) => {
    tar.on('data', (chunk) => chunks.push(chunk as Buffer))
    tar.on('end', () => resolve(Buffer.concat(chunks)))
    tar.on('error', reject)
  })
}

async function hasImage(reference: string): Promise<boolean> {
  try {
    await docker.getImage(reference).inspect()
    return true
  } catch {
    return false
  }
}

/** Follows an engine stream (import, build, push) to its end; rejects with the first error it reports. */
function followed(stream: NodeJS.ReadableStream): Promise<void> {
  return new Promise((resolve, reject) => {
    let failure: string | undefined
    docker.modem.followProgress(
      stream,
      (error) => (error || failure ? reject(new Error(failure ?? error?.message)) : resolve()),
      (event: { error?: string }) => {
        if (event.error) failure = event.error
      },
    )
  })
}

/** Imports the busybox image unless the engine has it. */
export async function busyboxImage(): Promise<string> {
  if (await hasImage(BUSYBOX)) return BUSYBOX
  const busybox = await readFile('/bin/busybox')
  const root = await tarOf([
    { name: 'bin', dir: true },
    { name: 'tmp', dir: true },
    { name: 'bin/busybox', content: busybox, mode: 0o755 },
    ...APPLETS.map((applet) => ({ name: `bin/${applet}`, linkTo: 'busybox' })),
  ])
  const [repo, tag] = BUSYBOX.split(':') as [string, string]
  const { Readable } = await import('node:stream')
  await followed(await docker.importImage(Readable.from(root) as unknown as NodeJS.ReadableStream, { repo, tag }))
  return BUSYBOX
}

/** Builds `tag` from a Dockerfile and files, on the busybox image. */
export async function buildImage(tag: string, dockerfile: string, files: Record<string, string> = {}): Promise<string> {
  await busyboxImage()
  const context = await tarOf([
    { name: 'Dockerfile', content: dockerfile },
    ...Object.entries(files).map(([name, content]) => ({ name, content, mode: 0o755 })),
  ])
  const { Readable } = await import('node:stream')
  await followed(await docker.buildImage(Readable.from(context) as unknown as NodeJS.ReadableStream, { t: tag, rm: true, forcerm: true }))
  return tag
}

/** Builds `tag` on the busybox image: `script` as /`fileName`, run with sh as its entrypoint (stopped by `stopSignal` when given). */
export function buildScriptImage(tag: string, fileName: string, script: string, options: { stopSignal?: string } = {}): Promise<string> {
  const stop = options.stopSignal ? `STOPSIGNAL ${options.stopSignal}\n` : ''
  return buildImage(tag, `FROM ${BUSYBOX}\nCOPY ${fileName} /${fileName}\n${stop}ENTRYPOINT ["/bin/sh", "/${fileName}"]\n`, { [fileName]: script })
}

async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise((resolve) => server.close(resolve))
  return port
}

export interface LoopbackRegistry {
  /** host:port */
  host: string
  username: string
  password: string
  /** Pushes a local image under `name:tag` of this registry; the local copy of the pushed name is removed. */
  push(local: string, name: string, tag: string): Promise<void>
  close(): Promise<void>
}

/** Debian's docker-registry on loopback, with an htpasswd user. */
export async function startRegistry(): Promise<LoopbackRegistry> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'berth-registry-'))
  const port = await freePort()
  const username = 'berth'
  const password = `pw-${Math.random().toString(36).slice(2)}`
  await writeFile(path.join(dir, 'htpasswd'), `${username}:${bcrypt.hashSync(password, 8)}\n`)
  await writeFile(
    path.join(dir, 'config.yml'),
    [
      'version: 0.1',
      'log:',
      '  level: error',
      'storage:',
      '  filesystem:',
      `    rootdirectory: ${dir}/data`,
      'http:',
      `  addr: 127.0.0.1:${port}`,
      'auth:',
      '  htpasswd:',
      '    realm: berth-test',
      `    path: ${dir}/htpasswd`,
      '',
    ].join('\n'),
  )
  const child: ChildProcess = spawn('docker-registry', ['serve', path.join(dir, 'config.yml')], { stdio: 'ignore' })
  const host = `127.0.0.1:${port}`
  await until(
    async () => {
      try {
        return (await fetch(`http://${host}/v2/`)).status
      } catch {
        return 0
      }
    },
    (status) => status === 401,
    { timeoutMs: 20_000, intervalMs: 100, what: 'the loopback registry' },
  )
  const auth = { username, password, serveraddress: host }
  return {
    host,
    username,
    password,
    async push(local, name, tag) {
      const remote = `${host}/${name}`
      await docker.getImage(local).tag({ repo: remote, tag })
      await followed(await docker.getImage(`${remote}:${tag}`).push({ authconfig: auth }))
      // The executor must pull it, with the registry's credentials.
      await docker.getImage(`${remote}:${tag}`).remove()
    },
    async close() {
      child.kill()
      await rm(dir, { recursive: true, force: true })
    },
  }
}

/** Removes every container, network and volume the executor made for these environments. */
export async function removeEnvironments(environmentIds: string[]): Promise<void> {
  for (const environmentId of environmentIds) {
    const filters = { label: [`${LABELS.environment}=${environmentId}`] }
    for (const info of await docker.listContainers({ all: true, filters })) await docker.getContainer(info.Id).remove({ force: true, v: true })
    for (const network of await docker.listNetworks({ filters })) await docker.getNetwork(network.Id).remove()
  }
}
