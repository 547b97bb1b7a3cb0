import { HelmFailed, runHelm } from './helm-program.ts'

// Which helm and kubectl the runner has, and whether Berth works with them (docs/kubernetes-helm-versions.md):
// helm 3.12 or newer, or helm 4; kubectl 1.27 or newer, within one minor version of the cluster's
// API server (Kubernetes' own skew policy for kubectl).

export interface ProgramVersion {
  major: number
  minor: number
  patch: number
  /** As the program says it: `v3.17.3`. */
  text: string
}

/** How long a program may take to say its version. */
const VERSION_TIMEOUT_MS = 15_000

const VERSION = /^v?(\d+)\.(\d+)\.(\d+)\S*$/

/** `v4.1.4` (or `4.1.4+g05fa379`) as a version; undefined when it is none. */
export function parseVersion(text: string): ProgramVersion | undefined {
  const found = VERSION.exec(text.trim())
  if (!found) return undefined
  return { major: Number(found[1]), minor: Number(found[2]), patch: Number(found[3]), text: text.trim() }
}

/** Whether `version` is `major.minor` or newer. */
export const atLeast = (version: ProgramVersion, major: number, minor: number) =>
  version.major > major || (version.major === major && version.minor >= minor)

async function askVersion(program: string, path: string, args: string[], read: (stdout: string) => string | undefined) {
  const signal = AbortSignal.timeout(VERSION_TIMEOUT_MS)
  const { stdout } = await runHelm(path, args, { signal, program, quietStdout: true }).catch((error: unknown) => {
    throw signal.aborted ? new HelmFailed(`${program} (${path}) did not say its version within ${VERSION_TIMEOUT_MS / 1000} s`) : error
  })
  const said = read(stdout)
  const version = said === undefined ? undefined : parseVersion(said)
  if (!version) throw new HelmFailed(`${program} (${path}) did not say its version: ${JSON.stringify(stdout.trim().slice(0, 200))}`)
  return version
}

/** The version of the helm at `helmPath` (`helm version`); rejects with HelmFailed when it cannot be run or does not say. */
export const helmVersion = (helmPath: string) => askVersion('helm', helmPath, ['version', '--template', '{{.Version}}'], (stdout) => stdout)

/** The client version of the kubectl at `kubectlPath` (`kubectl version --client`); rejects with HelmFailed like helmVersion. */
export const kubectlVersion = (kubectlPath: string) =>
  askVersion('kubectl', kubectlPath, ['version', '--client', '--output', 'json'], (stdout) => clientVersionOf(stdout))

function clientVersionOf(json: string): string | undefined {
  try {
    return (JSON.parse(json) as { clientVersion?: { gitVersion?: string } }).clientVersion?.gitVersion
  } catch {
    return undefined
  }
}

/** Why Berth does not work with this helm, or undefined when it does. */
export function unsupportedHelm(version: ProgramVersion): string | undefined {
  if (version.major === 4 || (version.major === 3 && version.minor >= 12)) return undefined
  return `helm ${version.text} is not supported: Berth works with helm 3.12 or newer and with helm 4`
}

/** Why Berth does not work with this kubectl, or undefined when it does. */
export function unsupportedKubectl(version: ProgramVersion): string | undefined {
  if (version.major === 1 && version.minor >= 27) return undefined
  return `kubectl ${version.text} is not supported: Berth works with kubectl 1.27 or newer`
}

/**
 * What is wrong with kubectl `client` against an API server of `server` (Kubernetes supports kubectl
 * within one minor version of the API server, older or newer), or undefined when nothing is.
 */
export function kubectlSkew(client: ProgramVersion, server: { major: number; minor: number }): string | undefined {
  const policy = 'Kubernetes supports kubectl within one minor version of its API server'
  if (client.major !== server.major) return `kubectl ${client.text} is not for the cluster's Kubernetes ${server.major}.${server.minor}: ${policy}`
  const skew = client.minor - server.minor
  if (Math.abs(skew) <= 1) return undefined
  return `kubectl ${client.text} is ${Math.abs(skew)} minor versions ${skew > 0 ? 'newer' : 'older'} than the cluster's Kubernetes ${server.major}.${server.minor}: ${policy}`
}
