import { execFile } from 'node:child_process'
import dns from 'node:dns/promises'
import { lstat, mkdtemp, readdir, realpath, rm } from 'node:fs/promises'
import { isIP } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { isPublicAddress } from '#src/modules/git-providers/address-guard.ts'
import type { GitRepository } from './workload.ts'

// The commit a build or a chart starts from (the Docker and Kubernetes executors): fetched shallowly from the service's repository by `git`, run as
// an argv array (never a shell), into a temporary directory removed afterwards. The repository's
// host goes through the same guard as every outbound call (docs/docker.md, "Deploying with Docker"): its
// addresses are resolved and checked before git runs, and git is pinned to those addresses; the
// git token travels as an HTTP header set through git's environment, never on a command line.

/** Credentials for git over HTTPS, as the provider takes a token; never logged. */
export interface GitCredentials {
  username: string
  token: string
}

export interface CheckoutRequest {
  /** The repository's http(s) URL, as the service names it (no credentials in it). */
  url: string
  /** A commit id, or a branch (null: the repository's default branch). */
  ref: { commit: string } | { branch: string | null }
  credentials: GitCredentials | undefined
  /** BERTH_ALLOW_PRIVATE_URLS: whether loopback, private, link-local and metadata addresses (and plain http) may be used. */
  allowPrivateUrls: boolean
  say: (message: string) => void
  signal: AbortSignal
  /**
   * The deployment the checkout is for: its directory is named after it, so that a runner killed
   * before it removed the directory leaves it to the runner that ends the run (removeRunCheckouts).
   */
  runId?: string
}

export interface Checkout {
  /** The working tree. */
  dir: string
  /** The full id of the commit checked out. */
  commit: string
  /** The commit as git describes it (history `details`, contract 2.9); the repository is fetched without tags. */
  described: { authorName: string; createdAt: string; message: string }
  remove(): Promise<void>
}

/** A checkout that could not be made: the message says why, without a secret. */
export class CheckoutError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'CheckoutError'
  }
}

/** The username each provider takes a token under over HTTPS. */
export const GIT_USERNAMES: Record<string, string> = { GITHUB: 'x-access-token', GITLAB: 'oauth2', BITBUCKET: 'x-token-auth' }

/** Variables of the server's environment git may read: the certificates it trusts. Nothing else of it reaches git. */
const PASSED_THROUGH = ['GIT_SSL_CAINFO', 'GIT_SSL_CAPATH', 'SSL_CERT_FILE', 'SSL_CERT_DIR']

const FULL_COMMIT = /^[0-9a-f]{40}$|^[0-9a-f]{64}$/i
const BRANCH = /^(?!-)(?!.*\.\.)[A-Za-z0-9._/+-]+$/

/**
 * Where git may connect for `url`: refused when the URL is not http(s), when a token would travel
 * over plain http, or (unless private addresses are allowed) when any address of the host is not
 * public. The checked addresses, as git's `http.curloptResolve` pins them, so that git connects to
 * nothing else (a name that resolves differently a moment later cannot slip through).
 */
export async function guardedAddresses(url: URL, allowPrivateUrls: boolean, withToken: boolean): Promise<string | undefined> {
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new CheckoutError('the repository URL must be http(s)')
  if (url.username || url.password) throw new CheckoutError('the repository URL must not hold credentials')
  if (url.protocol === 'http:' && withToken) throw new CheckoutError('the repository URL is plain http: the git token would travel in clear')
  if (allowPrivateUrls) return undefined
  if (url.protocol !== 'https:') {
    throw new CheckoutError('the repository URL must be https (the server allows http only with BERTH_ALLOW_PRIVATE_URLS=true)')
  }
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '')
  let addresses: string[]
  if (isIP(host) !== 0) addresses = [host]
  else {
    try {
      addresses = (await dns.lookup(host, { all: true })).map((found) => found.address)
    } catch (error) {
      throw new CheckoutError(`the repository host ${host} does not resolve: ${(error as Error).message}`)
    }
  }
  if (addresses.length === 0 || addresses.some((address) => !isPublicAddress(address))) {
    throw new CheckoutError(
      `the repository host ${host} leads to a loopback, private, link-local or metadata address; the server allows those only with BERTH_ALLOW_PRIVATE_URLS=true`,
    )
  }
  // An IP literal needs no pinning: git connects to it as checked.
  if (isIP(host) !== 0) return undefined
  return `${host}:${url.port || '443'}:${addresses.map((address) => (isIP(address) === 6 ? `[${address}]` : address)).join(',')}`
}

/** git's configuration for one run, given through its environment (GIT_CONFIG_COUNT), so that nothing of it shows in `ps`. */
function gitEnvironment(home: string, settings: [string, string][]): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: home,
    GIT_TERMINAL_PROMPT: '0',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_CONFIG_COUNT: String(settings.length),
  }
  for (const name of PASSED_THROUGH) if (process.env[name]) env[name] = process.env[name]
  settings.forEach(([key, value], index) => {
    env[`GIT_CONFIG_KEY_${index}`] = key
    env[`GIT_CONFIG_VALUE_${index}`] = value
  })
  return env
}

/** Runs git with `args` in `cwd`; its stdout, or a CheckoutError with the last lines it wrote. Aborting `signal` kills it. */
function git(args: string[], cwd: string, env: NodeJS.ProcessEnv, signal: AbortSignal): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('git', args, { cwd, env, signal, maxBuffer: 4 * 1024 * 1024, timeout: 15 * 60 * 1000 }, (error, stdout, stderr) => {
      if (signal.aborted) return reject(signal.reason)
      if (!error) return resolve(stdout.toString())
      const lines = stderr
        .toString()
        .split('\n')
        .filter((line) => line.trim() !== '')
      reject(new CheckoutError(`git ${args[0]} failed: ${lines.slice(-5).join(' | ') || error.message}`))
    })
  })
}

/** Where checkouts are made: the system's temporary directory, a name that says whose they are. */
const checkoutPrefix = (runId: string | undefined) => path.join(os.tmpdir(), runId ? `berth-build-${runId}-` : 'berth-build-')

/**
 * Removes the checkouts a run left on this host (its runner was killed before it removed them);
 * says what it removed. A run's checkouts are on the host of the runner that made them: another
 * host's runner finds none, and they stay in that host's temporary directory.
 */
export async function removeRunCheckouts(runId: string, say: (message: string) => void): Promise<void> {
  const prefix = path.basename(checkoutPrefix(runId))
  for (const entry of await readdir(os.tmpdir()).catch(() => [] as string[])) {
    if (!entry.startsWith(prefix)) continue
    await rm(path.join(os.tmpdir(), entry), { recursive: true, force: true })
    say(`removed the checkout ${entry}, left by the interrupted run`)
  }
}

/** Fetches the commit the request names into a fresh temporary directory; the caller removes it. */
export async function checkout(request: CheckoutRequest): Promise<Checkout> {
  let url: URL
  try {
    url = new URL(request.url)
  } catch {
    throw new CheckoutError('the repository URL is not a URL')
  }
  const pinned = await guardedAddresses(url, request.allowPrivateUrls, request.credentials !== undefined)
  let ref: string
  if ('commit' in request.ref) {
    if (!FULL_COMMIT.test(request.ref.commit)) throw new CheckoutError('the commit to build is not a full commit id')
    ref = request.ref.commit
  } else if (request.ref.branch === null) ref = 'HEAD'
  else {
    if (!BRANCH.test(request.ref.branch)) throw new CheckoutError('the branch name cannot be fetched')
    ref = `refs/heads/${request.ref.branch}`
  }
  const base = await mkdtemp(checkoutPrefix(request.runId))
  const remove = () => rm(base, { recursive: true, force: true })
  try {
    const dir = path.join(base, 'src')
    const settings: [string, string][] = [
      // Only http(s): no file://, ssh or ext:: transport, whatever the repository says.
      ['protocol.allow', 'never'],
      ['protocol.https.allow', 'always'],
      ['protocol.http.allow', 'always'],
      // A redirect would reach a host the guard did not check, with the token.
      ['http.followRedirects', 'false'],
      ['core.hooksPath', '/dev/null'],
      ['advice.detachedHead', 'false'],
    ]
    if (pinned) settings.push(['http.curloptResolve', pinned])
    if (request.credentials) {
      const basic = Buffer.from(`${request.credentials.username}:${request.credentials.token}`).toString('base64')
      settings.push(['http.extraHeader', `Authorization: Basic ${basic}`])
    }
    const env = gitEnvironment(base, settings)
    request.say(`fetching ${url.href} at ${ref === 'HEAD' ? 'the default branch' : ref}${request.credentials ? ' with the git token' : ''}`)
    await git(['init', '--quiet', dir], base, env, request.signal)
    await git(['fetch', '--quiet', '--depth', '1', '--no-tags', '--', url.href, ref], dir, env, request.signal)
    await git(['checkout', '--quiet', '--detach', 'FETCH_HEAD'], dir, env, request.signal)
    const commit = (await git(['rev-parse', 'HEAD'], dir, env, request.signal)).trim()
    const [authorName = '', date = '', ...message] = (await git(['log', '-1', '--format=%an%x00%cI%x00%B', 'HEAD'], dir, env, request.signal)).split(
      '\0',
    )
    const createdAt = Number.isNaN(Date.parse(date)) ? new Date(0).toISOString() : new Date(date).toISOString()
    request.say(`checked out commit ${commit}`)
    return { dir, commit, described: { authorName, createdAt, message: message.join('\0').trim() }, remove }
  } catch (error) {
    await remove()
    throw error
  }
}

/**
 * The real path of `relative` (a root_path, a values file's path: `/` is the checkout's root) in the
 * checkout `dir`, or undefined when it, or a symbolic link on its way, leads out of the checkout, or
 * it is not of the `kind` asked for.
 */
export async function pathInCheckout(dir: string, relative: string, kind: 'directory' | 'file'): Promise<string | undefined> {
  const base = await realpath(dir)
  const given = path.resolve(base, `.${path.posix.sep}${relative.replace(/^\/+/, '')}`)
  if (!(given === base || given.startsWith(`${base}${path.sep}`))) return undefined
  const real = await realpath(given).catch(() => undefined)
  if (!real || !(real === base || real.startsWith(`${base}${path.sep}`))) return undefined
  const stat = await lstat(real)
  return (kind === 'directory' ? stat.isDirectory() : stat.isFile()) ? real : undefined
}

/** Why a repository could not be looked in: each becomes the error its caller answers with. */
export interface LookRefusals {
  /** The fetch failed (a CheckoutError saying why), did not end within the timeout, or its credentials could not be had. */
  fetchFailed(error: unknown): unknown
  /** The root path is not a directory of the repository. */
  rootPathMissing(): unknown
}

/**
 * A quiet shallow checkout of `repository`'s branch, within `timeoutMs`, for `look` at the checkout
 * and its root path's real directory; the checkout is removed after (the checks, the forms that read
 * a repository's files).
 */
export async function lookInCheckout<T>(
  repository: Pick<GitRepository, 'url' | 'branch' | 'rootPath'>,
  fetch: { credentials: () => Promise<GitCredentials | undefined>; allowPrivateUrls: boolean; timeoutMs: number },
  refusals: LookRefusals,
  look: (fetched: Checkout, root: string) => Promise<T>,
): Promise<T> {
  let fetched: Checkout
  try {
    fetched = await checkout({
      url: repository.url,
      ref: { branch: repository.branch },
      credentials: await fetch.credentials(),
      allowPrivateUrls: fetch.allowPrivateUrls,
      say: () => undefined,
      signal: AbortSignal.timeout(fetch.timeoutMs),
    })
  } catch (error) {
    throw refusals.fetchFailed(error)
  }
  try {
    const root = await pathInCheckout(fetched.dir, repository.rootPath, 'directory')
    if (!root) throw refusals.rootPathMissing()
    return await look(fetched, root)
  } finally {
    await fetched.remove()
  }
}
