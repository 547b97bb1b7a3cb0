import { execFile } from 'node:child_process'
import { createHash } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { Readable } from 'node:stream'
import { promisify } from 'node:util'
import { build } from 'esbuild'
import { pack } from 'tar-stream'
import { docker } from './docker.ts'
import { repoRoot } from './process.ts'

// The engine image the IAC tests run (docs/iac.md, "The engine stand-in"): no OpenTofu or
// Terraform image can be pulled here, so this imports one made of the host's node, the shared
// libraries it loads, and the stand-in (test/fixtures/tofu-standin/tofu.ts, bundled with `pg`)
// installed as /usr/local/bin/tofu and /usr/local/bin/terraform. The tag is the content's hash, so
// a changed stand-in makes a new image.

const STANDIN = path.join(repoRoot, 'test/fixtures/tofu-standin/tofu.ts')
export const STANDIN_REPOSITORY = 'berth-test/tofu-standin'

/** The stand-in bundled into one file run by /usr/local/bin/node. */
async function bundled(): Promise<Buffer> {
  const result = await build({
    entryPoints: [STANDIN],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    write: false,
    external: ['pg-native'],
    banner: { js: '#!/usr/local/bin/node' },
    logLevel: 'silent',
  })
  return Buffer.from(result.outputFiles[0]!.contents)
}

/** The shared libraries node loads, as `ldd` lists them (the loader included). */
async function sharedLibraries(binary: string): Promise<string[]> {
  const { stdout } = await promisify(execFile)('ldd', [binary])
  return [...stdout.matchAll(/(\/[^\s]+\.so[^\s]*)/g)].map((match) => match[1]!)
}

async function hasImage(reference: string): Promise<boolean> {
  return docker
    .getImage(reference)
    .inspect()
    .then(
      () => true,
      () => false,
    )
}

/** The stand-in's image (`berth-test/tofu-standin:<hash>`), imported unless the engine has it; its tag. */
export async function tofuStandinImage(): Promise<{ image: string; tag: string }> {
  const script = await bundled()
  const tag = createHash('sha256').update(script).digest('hex').slice(0, 12)
  const image = `${STANDIN_REPOSITORY}:${tag}`
  if (await hasImage(image)) return { image, tag }
  const node = process.execPath
  const tar = pack()
  for (const dir of ['usr', 'usr/local', 'usr/local/bin', 'tmp', 'lib', 'lib64', 'lib/x86_64-linux-gnu', 'etc']) {
    tar.entry({ name: dir, type: 'directory', mode: dir === 'tmp' ? 0o1777 : 0o755 })
  }
  tar.entry({ name: 'usr/local/bin/node', mode: 0o755 }, await readFile(node))
  const added = new Set<string>()
  for (const library of await sharedLibraries(node)) {
    if (added.has(library)) continue
    added.add(library)
    tar.entry({ name: library.replace(/^\//, ''), mode: 0o755 }, await readFile(library))
  }
  tar.entry({ name: 'usr/local/bin/tofu', mode: 0o755 }, script)
  tar.entry({ name: 'usr/local/bin/terraform', mode: 0o755 }, script)
  tar.entry({ name: 'etc/passwd', mode: 0o644 }, 'root:x:0:0:root:/root:/usr/local/bin/node\n')
  tar.finalize()
  const stream = await docker.importImage(Readable.from(tar) as unknown as NodeJS.ReadableStream, { repo: STANDIN_REPOSITORY, tag })
  await new Promise<void>((resolve, reject) => docker.modem.followProgress(stream, (error: Error | null) => (error ? reject(error) : resolve())))
  return { image, tag }
}
