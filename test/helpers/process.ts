import { type ChildProcess, spawn } from 'node:child_process'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

/** The repository root, wherever the checkout lives. */
export const repoRoot = fileURLToPath(new URL('../../', import.meta.url))
const berthBin = path.join(repoRoot, 'bin', 'berth.js')

/** Environment overrides for a child: a key set to `undefined` is removed from the inherited environment. */
export type ChildEnv = Record<string, string | undefined>

function childEnv(defaults: ChildEnv, overrides: ChildEnv): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...defaults }
  for (const [key, value] of Object.entries(overrides)) {
    if (value === undefined) delete env[key]
    else env[key] = value
  }
  return env
}

// Safety net for a test process that ends without its `after` hooks (a crash, a runner timeout):
// SIGTERM lets a server stop its embedded PostgreSQL, which SIGKILL would leave running.
const live = new Set<ChildProcess>()
process.on('exit', () => {
  for (const child of live) child.kill('SIGTERM')
})

function track(child: ChildProcess): ChildProcess {
  live.add(child)
  child.once('exit', () => live.delete(child))
  return child
}

function waitForExit(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode)
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)))
}

function withTimeout<T>(promise: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(onTimeout()), ms)
  })
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}

/** A `berth` process that runs until stopped. */
export interface RunningProcess {
  readonly child: ChildProcess
  /** Everything the process wrote so far, stdout and stderr interleaved in arrival order. */
  logs(): string
  /** Only what it wrote on stdout: the log lines. */
  stdout(): string
  /**
   * Sends `signal` (unless the process has already exited) and resolves with the exit code.
   * Safe to call again, and from `after` hooks: a process that does not stop within
   * `timeoutMs` is killed with SIGKILL and the call rejects.
   */
  stop(signal?: NodeJS.Signals, timeoutMs?: number): Promise<number | null>
}

export interface RunningServer extends RunningProcess {
  /** `http://127.0.0.1:PORT`, without a trailing slash. */
  readonly baseUrl: string
}

export interface RunningWorker extends RunningProcess {
  /** The id the worker's runner claims deployments under (`lease_owner`), from its start-up line. */
  readonly runnerId: string
}

/** A JSON log line of a process. */
type LogLine = { msg?: unknown; [field: string]: unknown }

/**
 * Spawns `berth <command>` and resolves once `ready` finds what it waits for in a JSON line of
 * stdout. The process is stopped when it exits first or does not get there within `timeoutMs`.
 */
async function startLongRunning<T>(
  command: string,
  env: ChildEnv,
  waiting: {
    defaults: ChildEnv
    what: string
    ready: (line: LogLine) => T | undefined
    /** For a process logging text (BERTH_LOG_FORMAT=pretty): readiness from a line that is not JSON. */
    readyText?: (line: string) => T | undefined
    timeoutMs: number
  },
): Promise<RunningProcess & { ready: T }> {
  const child = track(
    spawn(process.execPath, [berthBin, command], {
      cwd: repoRoot,
      env: childEnv(waiting.defaults, env),
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  )
  let all = ''
  let out = ''
  let pending = ''
  let resolveReady: (value: T) => void = () => {}
  const ready = new Promise<T>((resolve) => {
    resolveReady = resolve
  })
  child.stdout!.on('data', (chunk: Buffer) => {
    const text = chunk.toString('utf8')
    all += text
    out += text
    pending += text
    const lines = pending.split('\n')
    pending = lines.pop() ?? ''
    for (const line of lines) {
      let parsed: LogLine
      try {
        parsed = JSON.parse(line) as LogLine
      } catch {
        // not a JSON line: kept in the logs for the tests to judge
        const found = waiting.readyText?.(line)
        if (found !== undefined) resolveReady(found)
        continue
      }
      const found = waiting.ready(parsed)
      if (found !== undefined) resolveReady(found)
    }
  })
  child.stderr!.on('data', (chunk: Buffer) => {
    all += chunk.toString('utf8')
  })
  const exited = waitForExit(child)

  let stopping: Promise<number | null> | undefined
  const stop = (signal: NodeJS.Signals = 'SIGTERM', timeoutMs = 30_000): Promise<number | null> => {
    stopping ??= (async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal)
      try {
        return await withTimeout(
          exited,
          timeoutMs,
          () => new Error(`berth ${command} (pid ${child.pid}) did not stop within ${timeoutMs} ms after ${signal}\n${all}`),
        )
      } catch (error) {
        child.kill('SIGKILL')
        await exited
        throw error
      }
    })()
    return stopping
  }

  try {
    const found = await withTimeout(
      Promise.race([
        ready,
        exited.then((code) => {
          throw new Error(`berth ${command} exited with code ${code} before ${waiting.what}\n${all}`)
        }),
      ]),
      waiting.timeoutMs,
      () => new Error(`berth ${command} did not log ${waiting.what} within ${waiting.timeoutMs} ms\n${all}`),
    )
    return { ready: found, child, logs: () => all, stdout: () => out, stop }
  } catch (error) {
    await stop('SIGTERM', 15_000).catch(() => {})
    throw error
  }
}

const LISTENING = /^berth listening on (http:\/\/\S+)$/
/** The same line as text (BERTH_LOG_FORMAT=pretty): `[12:00:00.000] INFO: berth listening on http://… {…}`. */
const LISTENING_TEXT = /\bINFO: berth listening on (http:\/\/[^\s]+)/

/**
 * Runs `berth serve` on a free port (PORT=0) and resolves once it logs its listening line, as JSON
 * or, with BERTH_LOG_FORMAT=pretty, as text. Logs at `info` unless `env` says otherwise, since the
 * listening line is an info line. The process is killed when it does not listen within `timeoutMs`.
 */
export async function startServer(env: ChildEnv = {}, options: { timeoutMs?: number } = {}): Promise<RunningServer> {
  const { ready: baseUrl, ...running } = await startLongRunning('serve', env, {
    defaults: { PORT: '0', HOST: '127.0.0.1', BERTH_LOG_LEVEL: 'info' },
    what: 'its listening line',
    ready: (line) => LISTENING.exec(String(line.msg))?.[1],
    readyText: (line) => LISTENING_TEXT.exec(line)?.[1],
    timeoutMs: options.timeoutMs ?? 120_000,
  })
  return { ...running, baseUrl }
}

const WORKER_RUNNING = 'berth worker running deployments'

/**
 * Runs `berth worker` and resolves once it logs that it runs deployments (an info line, so it
 * logs at `info` unless `env` says otherwise). Give it DATABASE_URL: without, it would open the
 * embedded PostgreSQL. The process is killed when it is not running within `timeoutMs`.
 */
export async function startWorker(env: ChildEnv = {}, options: { timeoutMs?: number } = {}): Promise<RunningWorker> {
  const { ready: runnerId, ...running } = await startLongRunning('worker', env, {
    defaults: { BERTH_LOG_LEVEL: 'info' },
    what: `"${WORKER_RUNNING}"`,
    ready: (line) => (line.msg === WORKER_RUNNING ? String(line.runnerId) : undefined),
    timeoutMs: options.timeoutMs ?? 120_000,
  })
  return { ...running, runnerId }
}

export interface CliResult {
  code: number | null
  stdout: string
  stderr: string
}

/** Runs `berth <args>` to completion; killed, and rejected, when it takes longer than `timeoutMs`. */
export async function runCli(args: string[], env: ChildEnv = {}, options: { timeoutMs?: number } = {}): Promise<CliResult> {
  const child = track(
    spawn(process.execPath, [berthBin, ...args], {
      cwd: repoRoot,
      env: childEnv({}, env),
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  )
  let stdout = ''
  let stderr = ''
  child.stdout!.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8')
  })
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8')
  })
  const closed = new Promise<number | null>((resolve, reject) => {
    child.once('error', reject)
    child.once('close', (code) => resolve(code))
  })
  const timeoutMs = options.timeoutMs ?? 120_000
  try {
    const code = await withTimeout(
      closed,
      timeoutMs,
      () => new Error(`berth ${args.join(' ')} did not finish within ${timeoutMs} ms\nstdout: ${stdout}\nstderr: ${stderr}`),
    )
    return { code, stdout, stderr }
  } catch (error) {
    child.kill('SIGKILL')
    throw error
  }
}
