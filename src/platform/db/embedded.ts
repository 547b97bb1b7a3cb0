import { randomBytes } from 'node:crypto'
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import fs from 'node:fs/promises'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import pg from 'pg'
import lockfile from 'proper-lockfile'
import {
  type ClusterCredentials,
  initCluster,
  isAlive,
  type Log,
  type PostmasterState,
  readPostmaster,
  removeStalePostmasterPid,
  startPostmaster,
  startTime,
  stopPostmaster,
} from './embedded-postmaster.ts'

/** The embedded PostgreSQL, in use by this process until `release`. */
/** The ports the embedded PostgreSQL may listen on (BERTH_EMBEDDED_DB_PORTS). */
export interface PortRange {
  from: number
  to: number
}

export interface EmbeddedDatabase {
  readonly url: string
  /**
   * Watches the postmaster for as long as this process uses it and starts it again, on its port,
   * when it stops (a crash, a kill, someone stopping it), with back-off while that fails. Stopped
   * by `release`.
   */
  supervise(events: SupervisorEvents, timing?: SupervisorTiming): void
  /** Ends this process's use; the last process to leave stops the postmaster. */
  release(): Promise<void>
}

/** What a supervisor tells: each outage once, when it starts and when it ends. */
export interface SupervisorEvents {
  /** The postmaster is gone; the supervisor starts it again. */
  onDown(pid: number): void
  /** It runs again (started by the supervisor or by another Berth process), after `downMs`. */
  onUp(pid: number, downMs: number): void
  /** A restart failed; the next try is in `retryInMs`. For debugging: an outage is told once, by `onDown`. */
  onRestartFailed?(error: unknown, retryInMs: number): void
}

export interface SupervisorTiming {
  /** How often the postmaster is looked at. */
  checkEveryMs: number
  /** The wait after a first failed restart, doubled after each further failure up to `maxBackoffMs`. */
  minBackoffMs: number
  maxBackoffMs: number
}

const SUPERVISOR_TIMING: SupervisorTiming = { checkEveryMs: 500, minBackoffMs: 500, maxBackoffMs: 30_000 }

/** `serve` is exclusive (one server per data dir); `command` is a one-off CLI command. */
export type EmbeddedUse = 'serve' | 'command'

const DATABASE_NAME = 'berth'

const clusterDir = (dataDir: string) => path.join(dataDir, 'postgres')
const usersDir = (dataDir: string) => path.join(dataDir, 'users')
const userFile = (dataDir: string, use: EmbeddedUse, pid = process.pid) => path.join(usersDir(dataDir), `${pid}.${use}`)

/**
 * Whether `dataDir` holds an initialised cluster (initdb renames it into place only once complete),
 * for commands that must not make a new database where the caller meant an existing one.
 */
export function hasEmbeddedCluster(dataDir: string): boolean {
  return existsSync(clusterDir(dataDir))
}

async function loadOrCreateCredentials(dataDir: string): Promise<ClusterCredentials> {
  const file = path.join(dataDir, 'postgres-credentials.json')
  const existing = await fs.readFile(file, 'utf8').catch(() => undefined)
  if (existing !== undefined) return JSON.parse(existing) as ClusterCredentials
  const credentials = { user: 'berth', password: randomBytes(24).toString('base64url') }
  await fs.writeFile(file, JSON.stringify(credentials), { mode: 0o600 })
  return credentials
}

function urlFor(credentials: ClusterCredentials, port: number, database: string): string {
  return `postgres://${encodeURIComponent(credentials.user)}:${encodeURIComponent(credentials.password)}@127.0.0.1:${port}/${database}`
}

async function ensureDatabase(credentials: ClusterCredentials, port: number): Promise<void> {
  const client = new pg.Client({ connectionString: urlFor(credentials, port, 'postgres') })
  // Without a listener, a connection dropped while we work would crash the process.
  client.on('error', () => {})
  await client.connect()
  try {
    const { rowCount } = await client.query('select 1 from pg_database where datname = $1', [DATABASE_NAME])
    if (rowCount === 0) await client.query(`create database ${DATABASE_NAME}`)
  } finally {
    await client.end()
  }
}

interface User {
  pid: number
  use: EmbeddedUse
}

/** The processes registered as using the data dir that are still alive; dead ones are forgotten. */
function liveUsers(dataDir: string): User[] {
  const users: User[] = []
  for (const name of readdirSync(usersDir(dataDir))) {
    const match = /^(\d+)\.(serve|command)$/.exec(name)
    if (!match) continue
    const user = { pid: Number(match[1]), use: match[2] as EmbeddedUse }
    const file = path.join(usersDir(dataDir), name)
    let registered: string | undefined
    try {
      registered = readFileSync(file, 'utf8')
    } catch {
      continue // removed meanwhile by a process exiting without the lock
    }
    if (isAlive(user.pid) && registered === startTime(user.pid)) users.push(user)
    else rmSync(file, { force: true })
  }
  return users
}

const lockOptions = (dataDir: string) => ({ lockfilePath: path.join(dataDir, 'embedded.lock'), realpath: false, stale: 10_000 })

/**
 * Runs `fn` holding the data dir's lock, so that starting, joining and stopping the postmaster
 * never interleave across processes. A lock left by a crashed process goes stale in seconds.
 */
async function withDataDirLock<T>(dataDir: string, fn: () => Promise<T>): Promise<T> {
  const unlock = await lockfile.lock(dataDir, {
    ...lockOptions(dataDir),
    // initdb under the lock takes several seconds; waiters keep trying for two minutes.
    retries: { retries: 1200, factor: 1, minTimeout: 100, maxTimeout: 100 },
    // Lost when this process stalls past `stale` and another takes the lock over; carrying on
    // is no worse than the crash that proper-lockfile's default would cause.
    onCompromised: () => {},
  })
  try {
    return await fn()
  } finally {
    await unlock().catch(() => {})
  }
}

/**
 * The postmaster to use: the running one, once it is ready, or a new one. A new one listens on the
 * port it had before when that is free, else on a free one; with `requiredPort`, on that port only
 * (the supervisor's clients know no other).
 */
async function readyPostmaster(dataDir: string, requiredPort?: number, ports?: PortRange): Promise<PostmasterState> {
  const cluster = clusterDir(dataDir)
  // One started outside Berth's lock (crash recovery, pg_ctl) is given time to become ready or go.
  const deadline = Date.now() + 120_000
  for (let running = await readPostmaster(cluster); running; running = await readPostmaster(cluster)) {
    if (running.status === 'ready') return running
    if (Date.now() > deadline) throw new Error(`PostgreSQL (pid ${running.pid}) stayed "${running.status}" for two minutes`)
    await sleep(100)
  }
  // Left by a postmaster that is gone (or whose pid another program now has): PostgreSQL would
  // refuse to start over a lock file naming a live pid.
  await removeStalePostmasterPid(cluster)
  const logFile = path.join(dataDir, 'postgres.log')
  // The port it had before, when free, so that a server still running reconnects to a restarted one.
  const portFile = path.join(dataDir, 'postgres.port')
  const saved = Number(await fs.readFile(portFile, 'utf8').catch(() => '')) || undefined
  // A port outside BERTH_EMBEDDED_DB_PORTS (the range set or changed since) is not taken again.
  const inRange = saved !== undefined && (!ports || (saved >= ports.from && saved <= ports.to))
  const previousPort = requiredPort ?? (inRange ? saved : undefined)
  try {
    const state = await startPostmaster(cluster, logFile, { port: previousPort, ports }).catch((error) => {
      if (previousPort === undefined || requiredPort !== undefined) throw error
      return startPostmaster(cluster, logFile, { ports })
    })
    await fs.writeFile(portFile, String(state.port))
    return state
  } catch (error) {
    throw new Error(
      `the embedded PostgreSQL did not start in ${cluster}` +
        ' (when Berth runs as root, that directory must be reachable by the "postgres" system user)' +
        (error instanceof Error ? `: ${error.message}` : ''),
      { cause: error },
    )
  }
}

/** Stops the postmaster when no live process uses the data dir any more. Call with the lock held. */
async function stopIfUnused(dataDir: string): Promise<void> {
  if (liveUsers(dataDir).length > 0) return
  const running = await readPostmaster(clusterDir(dataDir))
  if (running) await stopPostmaster(running.pid)
}

/** Registers this process as a user of the data dir, atomically: a reader never sees half a file. */
function register(dataDir: string, use: EmbeddedUse): void {
  const file = userFile(dataDir, use)
  writeFileSync(`${file}.tmp`, startTime(process.pid))
  renameSync(`${file}.tmp`, file)
}

/**
 * Joins the embedded PostgreSQL of `dataDir`, starting it (and running initdb on a new data dir)
 * when no process is using it. Any number of one-off commands may share it with one `serve`;
 * whoever leaves last stops it, so a command never pulls the database from under a server, and
 * a postmaster left by a crashed process is simply taken over. A postmaster this starts listens
 * on a port of `ports` (BERTH_EMBEDDED_DB_PORTS) when given.
 */
export async function openEmbeddedDatabase(dataDir: string, use: EmbeddedUse, log: Log, ports?: PortRange): Promise<EmbeddedDatabase> {
  await fs.mkdir(usersDir(dataDir), { recursive: true, mode: 0o711 })
  // As root, the postgres system user that owns the cluster directory inside must traverse it.
  if (process.getuid?.() === 0) await fs.chmod(dataDir, 0o711)

  // Everything that reads or writes shared state happens under the lock: two commands on a new
  // data dir must not each generate their own password.
  const { postmaster, credentials } = await withDataDirLock(dataDir, async () => {
    const credentials = await loadOrCreateCredentials(dataDir)
    const server = use === 'serve' ? liveUsers(dataDir).find((user) => user.use === 'serve' && user.pid !== process.pid) : undefined
    if (server) throw new Error(`another berth serve (pid ${server.pid}) is using ${dataDir}; stop it or set BERTH_DATA_DIR`)
    // Registered before the postmaster is up, so that no exiting process takes it for unused.
    register(dataDir, use)
    try {
      await initCluster(clusterDir(dataDir), credentials, log)
      const state = await readyPostmaster(dataDir, undefined, ports)
      await ensureDatabase(credentials, state.port)
      return { postmaster: state, credentials }
    } catch (error) {
      rmSync(userFile(dataDir, use), { force: true })
      await stopIfUnused(dataDir).catch(() => {})
      throw error
    }
  })

  // Last resort when this process ends without `release` (an uncaught error, a signal turned into
  // process.exit): what a release would do, synchronously, as 'exit' handlers must be. The
  // postmaster is stopped only when the lock is free at once; otherwise the next user takes it over.
  // The supervisor replaces `current` when it starts a new postmaster.
  let current = { pid: postmaster.pid, started: startTime(postmaster.pid) }
  const onExit = () => {
    rmSync(userFile(dataDir, use), { force: true })
    let unlock: (() => void) | undefined
    try {
      unlock = lockfile.lockSync(dataDir, lockOptions(dataDir))
      if (liveUsers(dataDir).length === 0 && isAlive(current.pid) && startTime(current.pid) === current.started) {
        process.kill(current.pid, 'SIGINT')
      }
    } catch {
      // the lock is held: someone else is starting or stopping it
    } finally {
      unlock?.()
    }
  }
  process.on('exit', onExit)

  let supervisor: { stop(): Promise<void> } | undefined
  function supervise(events: SupervisorEvents, timing: SupervisorTiming = SUPERVISOR_TIMING): void {
    supervisor ??= superviseEmbedded(dataDir, postmaster.port, events, timing, (pid) => {
      current = { pid, started: startTime(pid) }
    })
  }

  let released: Promise<void> | undefined
  function release(): Promise<void> {
    released ??= (async () => {
      // First, so that it does not start again what this process is leaving.
      await supervisor?.stop()
      await withDataDirLock(dataDir, async () => {
        process.off('exit', onExit)
        rmSync(userFile(dataDir, use), { force: true })
        await stopIfUnused(dataDir)
      })
    })()
    return released
  }
  return { url: urlFor(credentials, postmaster.port, DATABASE_NAME), supervise, release }
}

/**
 * Looks at the postmaster every `checkEveryMs` and, once it is gone, starts it again on `port`
 * (the one the pool's URL names) under the data dir's lock, as any Berth command would; while that
 * fails (the port taken, the old postmaster's processes not yet gone), it tries again with
 * exponential back-off. A postmaster started meanwhile by another Berth process is simply used.
 */
function superviseEmbedded(
  dataDir: string,
  port: number,
  events: SupervisorEvents,
  timing: SupervisorTiming,
  onStarted: (pid: number) => void,
): { stop(): Promise<void> } {
  const cluster = clusterDir(dataDir)
  const stopping = new AbortController()
  const pause = (ms: number) => sleep(ms, undefined, { signal: stopping.signal, ref: false }).catch(() => {})
  let downSince: number | undefined
  let lastPid: number | undefined

  async function watch(): Promise<void> {
    let backoffMs = timing.minBackoffMs
    while (!stopping.signal.aborted) {
      await pause(timing.checkEveryMs)
      if (stopping.signal.aborted) return
      const running = await readPostmaster(cluster).catch(() => undefined)
      if (running?.status === 'ready') {
        if (downSince !== undefined) {
          onStarted(running.pid)
          events.onUp(running.pid, Date.now() - downSince)
          downSince = undefined
          backoffMs = timing.minBackoffMs
        }
        lastPid = running.pid
        continue
      }
      // Starting or stopping: whoever is doing that holds the lock; look again later.
      if (running) continue
      if (downSince === undefined) {
        downSince = Date.now()
        events.onDown(lastPid ?? 0)
      }
      try {
        await withDataDirLock(dataDir, async () => {
          if (!stopping.signal.aborted) await readyPostmaster(dataDir, port)
        })
      } catch (error) {
        events.onRestartFailed?.(error, backoffMs)
        await pause(backoffMs)
        backoffMs = Math.min(backoffMs * 2, timing.maxBackoffMs)
      }
    }
  }

  const watching = watch()
  return {
    async stop() {
      stopping.abort()
      await watching
    },
  }
}
