import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdir, open, readFile, rename, rm, writeFile } from 'node:fs/promises'
import { createServer } from 'node:net'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { startOrStop, terminate, watchExit } from '#src/platform/child-processes.ts'
import { answers, stopCaddy, storageRoot } from './caddy-admin.ts'

// The Caddy `berth serve` runs as the front door (docs/front-door.md): `caddy run` (argv, no
// shell) with its own directory under the data dir (its configuration, certificates and keys,
// its log and its pid), its admin API on loopback. A Caddy that exits is started again, and told
// its routes again (`onStarted`), as the embedded PostgreSQL is. Berth only ever stops or adopts
// a Caddy it started: one whose configuration names this data dir's storage (its identity), or
// whose pid file and command line are this directory's; a port another program holds is refused
// at each start, naming the setting to change (two Berths on one machine, issue 42). Caddy binds
// its ports with SO_REUSEPORT: without that check a second Caddy would start on the first's ports
// and the kernel would spread connections across both, each answering with its own routes.

export interface CaddyProcessSettings {
  caddyPath: string
  /** Its own directory: `caddy.json` (the configuration it starts from), `data/`, `caddy.log`, `caddy.pid`. */
  dir: string
  adminUrl: string
  /** The storage root its configuration names: how Berth tells its own Caddy from another program at the admin address. */
  identity: string
  /** Where its HTTP and HTTPS ports bind (BERTH_PROXY_LISTEN_HOST); undefined: every interface. */
  listenHost: string | undefined
  httpPort: number
  httpsPort: number
  /** The configuration it starts from when it has none of its own yet (the admin address, no routes). */
  initialConfig: object
  log: { info(fields: object, message: string): void; warn(fields: object, message: string): void }
  /** Called each time it answers after a start; the routes are loaded then. */
  onStarted(): Promise<void>
}

export interface CaddyProcess {
  stop(): Promise<void>
}

const READY_TIMEOUT_MS = 20_000
const STOP_TIMEOUT_MS = 5_000
/** The longest wait before a Caddy that exited is started again: its front door is back within 30 s of what stopped it going away. */
const MAX_RESTART_DELAY_MS = 5_000

/** Where Caddy's configuration is kept, for a restarted Caddy to start from. */
export const configFile = (dir: string) => path.join(dir, 'caddy.json')
const pidFile = (dir: string) => path.join(dir, 'caddy.pid')

/** Writes a file whole or not at all (a temporary file renamed over it): a Caddy starting meanwhile never reads half of it. */
export async function writeFileAtomically(file: string, text: string): Promise<void> {
  const temporary = `${file}.${process.pid}.${Date.now()}.tmp`
  try {
    await writeFile(temporary, text, { mode: 0o600 })
    await rename(temporary, file)
  } catch (error) {
    await rm(temporary, { force: true })
    throw error
  }
}

/** The settings to change when the front door's ports are taken, said alike everywhere. */
const PORT_ADVICE =
  'another Berth (or another program) uses them: give this Berth free ports with BERTH_PROXY_ADMIN_PORT, BERTH_PROXY_HTTP_PORT and ' +
  'BERTH_PROXY_HTTPS_PORT (and its own BERTH_DATA_DIR and PORT), or run it without a front door (BERTH_PROXY=off)'

/** Whether a TCP port can be bound at `host` (every interface when undefined) now. */
function portFree(host: string | undefined, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer()
    server.once('error', () => resolve(false))
    server.listen({ port, host: host ?? '0.0.0.0', exclusive: true }, () => server.close(() => resolve(true)))
  })
}

/** The pid in the directory's pid file when that process still runs Caddy on this directory's configuration. */
async function leftCaddyPid(dir: string): Promise<number | undefined> {
  const pid = Number((await readFile(pidFile(dir), 'utf8').catch(() => '')).trim())
  if (!Number.isInteger(pid) || pid <= 0) return undefined
  const commandLine = (await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')).split('\0')
  return commandLine.includes(configFile(dir)) && commandLine.includes('run') ? pid : undefined
}

/** Stops a Caddy a killed Berth of this data dir left running (its identity or its pid file says so); refuses another's. */
async function clearTheWay(settings: CaddyProcessSettings): Promise<void> {
  const { adminUrl, dir, log } = settings
  const left = await leftCaddyPid(dir)
  if (left !== undefined) {
    log.warn({ component: 'caddy', pid: left }, 'the Caddy a previous Berth of this data dir started still runs; stopping it')
    process.kill(left, 'SIGTERM')
  } else if (await answers(adminUrl)) {
    if ((await storageRoot(adminUrl)) !== settings.identity)
      throw new Error(`the front door's admin address ${adminUrl} (BERTH_PROXY_ADMIN_PORT) answers, but not with this Berth's Caddy: ${PORT_ADVICE}`)
    log.warn({ component: 'caddy', adminUrl }, 'the Caddy of this data dir a previous Berth left answers on the admin address; stopping it')
    await stopCaddy(adminUrl)
  }
  for (const deadline = Date.now() + STOP_TIMEOUT_MS; (await answers(adminUrl)) || (await leftCaddyPid(dir)) !== undefined; ) {
    if (Date.now() > deadline) throw new Error(`the Caddy left running at ${adminUrl} did not stop within ${STOP_TIMEOUT_MS} ms`)
    await sleep(100)
  }
  const admin = new URL(adminUrl)
  const taken = [
    ['BERTH_PROXY_ADMIN_PORT', admin.hostname, Number(admin.port)],
    ['BERTH_PROXY_HTTP_PORT', settings.listenHost, settings.httpPort],
    ['BERTH_PROXY_HTTPS_PORT', settings.listenHost, settings.httpsPort],
  ] as const
  for (const [name, host, port] of taken) {
    if (!(await portFree(host, port))) throw new Error(`the front door's port ${port} (${name}) is taken${host ? ` on ${host}` : ''}: ${PORT_ADVICE}`)
  }
}

/** Starts Caddy and keeps it running until `stop`; rejects when its ports are taken or it does not answer at first. */
export async function startCaddy(settings: CaddyProcessSettings): Promise<CaddyProcess> {
  const { dir, adminUrl, log } = settings
  await mkdir(path.join(dir, 'data'), { recursive: true, mode: 0o700 })
  const file = configFile(dir)
  const logFile = await open(path.join(dir, 'caddy.log'), 'a')
  let child: ChildProcess | undefined
  let stopping = false
  let restartDelayMs = 500

  /** Whether the Caddy answering at the admin address is the one just started (not another program that took the port). */
  const oursAnswers = async (started: ChildProcess) =>
    started.exitCode === null && (await answers(adminUrl)) && (await storageRoot(adminUrl)) === settings.identity

  const spawnOnce = async (): Promise<void> => {
    // At every start, the first and each one after an exit: Caddy binds its ports with SO_REUSEPORT,
    // so a second Caddy on a port another holds would start and silently share its connections.
    await clearTheWay(settings)
    if (!existsSync(file)) await writeFileAtomically(file, JSON.stringify(settings.initialConfig))
    const started = spawn(settings.caddyPath, ['run', '--config', file], {
      stdio: ['ignore', logFile.fd, logFile.fd],
      // Caddy's own files (autosave, locks) go to its directory, not the user's home.
      env: { ...process.env, HOME: dir, XDG_CONFIG_HOME: path.join(dir, 'config'), XDG_DATA_HOME: path.join(dir, 'data') },
    })
    child = started
    let ran = false
    const { exited, spawnError } = watchExit(started)
    started.once('exit', (code, signal) => {
      // One that never answered is the failed start's to retry (below).
      if (stopping || !ran) return
      log.warn({ component: 'caddy', code, signal, restartInMs: restartDelayMs }, 'the front door (caddy) stopped; starting it again')
      restartLater()
    })
    if (started.pid !== undefined) await writeFileAtomically(pidFile(dir), `${started.pid}\n`)
    const deadline = Date.now() + READY_TIMEOUT_MS
    while (!(await oursAnswers(started))) {
      const error = spawnError()
      if (error)
        throw new Error(
          `the front door could not run ${settings.caddyPath} (${error.message}): install Caddy (Debian: apt install caddy), set BERTH_CADDY_PATH, or turn the front door off with BERTH_PROXY=off`,
        )
      if (started.exitCode !== null || started.signalCode !== null)
        throw new Error(`caddy exited (code ${started.exitCode}) before its admin API answered at ${adminUrl}; see ${path.join(dir, 'caddy.log')}`)
      if (Date.now() > deadline) throw new Error(`caddy's admin API did not answer at ${adminUrl} within ${READY_TIMEOUT_MS} ms`)
      await Promise.race([sleep(100), exited])
    }
    ran = true
    log.info({ component: 'caddy', pid: started.pid, adminUrl }, 'the front door (caddy) runs')
    await settings.onStarted()
  }

  /** Starts it again after a wait, and again (each wait longer, up to MAX_RESTART_DELAY_MS) while a start fails: its ports taken meanwhile, say. */
  const restartLater = () => {
    setTimeout(() => {
      if (stopping) return
      spawnOnce()
        .then(() => {
          restartDelayMs = 500
        })
        .catch((error) => {
          log.warn({ component: 'caddy', err: error, restartInMs: restartDelayMs }, 'the front door (caddy) did not start again')
          restartLater()
        })
    }, restartDelayMs).unref()
    restartDelayMs = Math.min(restartDelayMs * 2, MAX_RESTART_DELAY_MS)
  }

  /**
   * Stops it as Caddy stops itself on SIGTERM (its configuration unloaded, its storage locks
   * released), and kills it only when that takes longer than STOP_TIMEOUT_MS: a kill can cut a
   * write to its storage (Debian's Caddy 2.6, certmagic 0.17, writes certificates and its ACME
   * account in place), which the next Caddy on this directory would read.
   */
  const stop = async () => {
    stopping = true
    const running = child
    await terminate(running, STOP_TIMEOUT_MS, () =>
      log.warn({ component: 'caddy', pid: running?.pid, waitedMs: STOP_TIMEOUT_MS }, 'the front door (caddy) did not stop after SIGTERM; killing it'),
    )
    await rm(pidFile(dir), { force: true })
    await logFile.close().catch(() => undefined)
  }

  return startOrStop(spawnOnce, stop)
}
