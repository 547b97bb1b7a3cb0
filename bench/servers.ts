// The servers the benchmark drives, each started as its own process: Berth, the bare node:http
// ceiling, Prism, and the loopback GitHub.
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { type BenchProcess, freePort, startProcess } from './processes.ts'

export const repoRoot = fileURLToPath(new URL('../', import.meta.url))

/** BERTH_HISTORY_VERSION_TTL_MS of every server (its default, set so that a shell's own cannot change what is measured). */
export const HISTORY_VERSION_TTL_MS = 1_000

export interface RunningServer {
  readonly process: BenchProcess
  /** `http://127.0.0.1:PORT`, without a trailing slash. */
  readonly baseUrl: string
}

/** A `berth serve` process, and its resident memory once started, before any load. */
export interface BerthServer extends RunningServer {
  /** VmRSS IDLE_SETTLE_MS after /healthz first answered; null when it could not be read. */
  readonly idleRssBytes: number | null
}

/** How long a server just started is left alone before its idle RSS is read. */
export const IDLE_SETTLE_MS = 2_000

const listeningAt = (pattern: RegExp) => (log: string) => pattern.exec(log)?.[1]

/** Answers once GET `url` succeeds. */
async function answers(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(1_000) })
    await response.arrayBuffer()
    return response.ok
  } catch {
    return false
  }
}

export interface BerthOptions {
  name: string
  databaseUrl: string
  secretKeyHex: string
  logDir: string
  logLevel: string
  /** Further BERTH_* settings. */
  env?: Record<string, string>
  /** Options of node itself, such as `--cpu-prof`. */
  nodeArgs?: string[]
  /** The checkout whose bin/berth.js runs (another version, to compare with); this one by default. */
  root?: string
  /** How long it may take to answer /healthz (180 s by default: it compiles src/ as it starts, which has taken over a minute on a loaded machine). */
  timeoutMs?: number
}

/**
 * `node bin/berth.js serve` on the benchmark's database, API only (no runner). Its port is chosen
 * here, since at `warn` it logs no listening line; it is ready once /healthz answers.
 */
export async function startBerth(options: BerthOptions): Promise<BerthServer> {
  const port = await freePort()
  const baseUrl = `http://127.0.0.1:${port}`
  const { process: child } = await startProcess({
    name: options.name,
    command: process.execPath,
    args: [...(options.nodeArgs ?? []), path.join(options.root ?? repoRoot, 'bin', 'berth.js'), 'serve'],
    cwd: options.root ?? repoRoot,
    logDir: options.logDir,
    env: {
      DATABASE_URL: options.databaseUrl,
      PORT: String(port),
      HOST: '127.0.0.1',
      BERTH_RUNNER_IN_SERVE: 'false',
      BERTH_LOG_LEVEL: options.logLevel,
      BERTH_GIT_ALLOW_PRIVATE_URLS: 'true',
      BERTH_SECRET_KEY: options.secretKeyHex,
      // The limits are counted (their cost is part of what is measured) but set far above the load.
      BERTH_RATE_LIMIT_PER_CREDENTIAL: '100000000',
      BERTH_RATE_LIMIT_PER_ADDRESS: '100000000',
      BERTH_RATE_LIMIT_FAILED_AUTH: '100000000',
      BERTH_HISTORY_VERSION_TTL_MS: String(HISTORY_VERSION_TTL_MS),
      // Never the embedded database's data dir of a developer's checkout.
      BERTH_DATA_DIR: path.join(options.logDir, `${options.name}-data`),
      ...options.env,
    },
    ready: async () => ((await answers(`${baseUrl}/healthz`)) ? true : undefined),
    timeoutMs: options.timeoutMs ?? 180_000,
  })
  await sleep(IDLE_SETTLE_MS)
  return { process: child, baseUrl, idleRssBytes: child.rss() ?? null }
}

/** The bare node:http server answering every request with the bytes of `bodyFile`. */
export async function startCeiling(bodyFile: string, logDir: string): Promise<RunningServer> {
  const port = await freePort()
  const { process: child, ready } = await startProcess({
    name: 'ceiling',
    command: process.execPath,
    args: ['--import', 'tsx', path.join(repoRoot, 'bench', 'ceiling-server.ts'), bodyFile, String(port)],
    cwd: repoRoot,
    logDir,
    env: {},
    ready: listeningAt(/^ceiling listening on (http:\/\/\S+)$/m),
  })
  return { process: child, baseUrl: ready }
}

/** `prism mock` of `specFile`, with its default settings (static examples, request validation, logging). */
export async function startPrism(specFile: string, logDir: string): Promise<RunningServer> {
  const port = await freePort()
  const { process: child } = await startProcess({
    name: 'prism',
    command: path.join(repoRoot, 'node_modules', '.bin', 'prism'),
    args: ['mock', specFile, '--host', '127.0.0.1', '--port', String(port)],
    cwd: repoRoot,
    logDir,
    env: { NO_COLOR: '1', FORCE_COLOR: '0' },
    ready: listeningAt(/Prism is listening on (http:\/\/127\.0\.0\.1:\d+)/),
    timeoutMs: 120_000,
  })
  return { process: child, baseUrl: `http://127.0.0.1:${port}` }
}

/** The loopback GitHub with `repository` of `branches` branches, accepting `token`. */
export async function startFakeGithub(repository: string, branches: number, token: string, logDir: string): Promise<RunningServer> {
  const { process: child, ready } = await startProcess({
    name: 'fake-github',
    command: process.execPath,
    args: ['--import', 'tsx', path.join(repoRoot, 'bench', 'fake-github.ts'), repository, String(branches), token],
    cwd: repoRoot,
    logDir,
    env: {},
    ready: listeningAt(/^fake github listening on (http:\/\/\S+)$/m),
  })
  return { process: child, baseUrl: ready }
}
