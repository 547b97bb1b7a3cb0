import type Docker from 'dockerode'
import { refusedHostAdvice, resolveHost } from '#src/modules/git-providers/address-guard.ts'

// Images a deployment runs: used when the engine has them, pulled (with the registry's
// credentials) when it does not.

/** Credentials for a pull (or a push), in the Docker engine's terms; never logged. */
export interface PullAuth {
  username: string
  password: string
  /** The server the credentials are for: the registry's host, or Docker Hub's `https://index.docker.io/v1/`. */
  serveraddress: string
}

/** How a registry's images are reached: the host they are named under, and its credentials. */
export interface RegistryAccess {
  /** Undefined for Docker Hub, whose images are named without a host. */
  host: string | undefined
  auth: PullAuth | undefined
}

/** `registry/name:tag` as the engine names it: Docker Hub's images without a host. */
export function imageReference(registryHost: string | undefined, imageName: string, tag: string): string {
  const name = registryHost && !imageName.startsWith(`${registryHost}/`) ? `${registryHost}/${imageName}` : imageName
  return `${name}:${tag}`
}

export async function hasImage(docker: Docker, reference: string): Promise<boolean> {
  try {
    await docker.getImage(reference).inspect()
    return true
  } catch (error) {
    if ((error as { statusCode?: number }).statusCode === 404) return false
    throw error
  }
}

/** The registry host the engine pulls `reference` from: its first part when that names a host, else Docker Hub's. */
export function pullHost(reference: string): string {
  const first = reference.split('/')[0]!
  const named = reference.includes('/') && (first.includes('.') || first.includes(':') || first === 'localhost')
  if (!named) return 'registry-1.docker.io'
  return URL.canParse(`https://${first}`) ? new URL(`https://${first}`).hostname : first
}

/** A pull the address guard refused: the engine would have connected into the server's own network. */
export class PullRefused extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'PullRefused'
  }
}

/**
 * Unless `allowPrivateUrls`, resolves the registry host of `reference` and checks every address
 * right before the engine connects there: rejects with PullRefused, having said why.
 */
export async function guardRegistryHost(
  what: 'pull' | 'push',
  reference: string,
  allowPrivateUrls: boolean,
  say: (message: string) => void,
): Promise<void> {
  if (allowPrivateUrls) return
  const check = await resolveHost(pullHost(reference))
  if (check.ok) return
  const message = `${what} of ${reference} refused: ${check.reason}; ${refusedHostAdvice(check, 'registries')}`
  say(message)
  throw new PullRefused(message)
}

/**
 * Pulls `reference` unless the engine has it, telling `say` what happens; rejects with the engine's
 * reason. Unless `allowPrivateUrls` (BERTH_ALLOW_PRIVATE_URLS), the registry's host is resolved
 * and checked right before the pull, as git calls are: the engine would otherwise connect wherever
 * the name leads (loopback, the cloud's metadata address), with the registry's credentials.
 */
export async function ensureImage(
  docker: Docker,
  reference: string,
  auth: PullAuth | undefined,
  say: (message: string) => void,
  signal: AbortSignal,
  { allowPrivateUrls }: { allowPrivateUrls: boolean },
): Promise<void> {
  if (await hasImage(docker, reference)) {
    say(`image ${reference} is present`)
    return
  }
  await guardRegistryHost('pull', reference, allowPrivateUrls, say)
  say(`pulling image ${reference}${auth ? ` as ${auth.username}` : ''}`)
  const stream = await docker.pull(reference, auth ? { authconfig: auth, abortSignal: signal } : { abortSignal: signal })
  const failure = await followTransfer(docker, stream, say, signal)
  if (failure) throw new Error(failure)
  say(`pulled image ${reference}`)
}

/** An event of the engine's progress stream (a pull's, a push's, a build's). */
export interface ProgressEvent {
  status?: string
  id?: string
  stream?: string
  error?: string
}

/**
 * Follows one of the engine's progress streams (a pull, a push, a build) to its end, each event to
 * `onEvent`; the last error an event named, else the stream's, when it failed. Aborting `signal`
 * stops it and rejects.
 */
export function followProgress(
  docker: Docker,
  stream: NodeJS.ReadableStream,
  signal: AbortSignal,
  onEvent: (event: ProgressEvent) => void,
): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    let failure: string | undefined
    const onAbort = () => {
      ;(stream as NodeJS.ReadableStream & { destroy?: () => void }).destroy?.()
      reject(signal.reason)
    }
    signal.addEventListener('abort', onAbort, { once: true })
    docker.modem.followProgress(
      stream,
      (error) => {
        signal.removeEventListener('abort', onAbort)
        if (signal.aborted) return reject(signal.reason)
        resolve(failure ?? error?.message)
      },
      (event: ProgressEvent) => {
        if (event.error) failure = event.error.trim()
        onEvent(event)
      },
    )
  })
}

/** Follows a pull's or a push's progress stream, each overall status line to `say`; the engine's or the registry's reason when it failed. */
export const followTransfer = (docker: Docker, stream: NodeJS.ReadableStream, say: (message: string) => void, signal: AbortSignal) =>
  followProgress(docker, stream, signal, (event) => {
    if (!event.error && event.status && !event.id) say(event.status)
  })
