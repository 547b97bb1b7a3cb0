import { type ChildProcess, spawn } from 'node:child_process'
import { mkdir, open } from 'node:fs/promises'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { answers, stopCaddy } from './caddy-admin.ts'

// The Caddy `berth serve` runs as the front door (docs/front-door.md): `caddy run` (argv, no
// shell) with its own directory under the data dir (its configuration, certificates and keys,
// and its log), its admin API on loopback. A Caddy that exits is started again, and told its
// routes again (`onStarted`), as the embedded PostgreSQL is.

export interface CaddyProcessSettings {
  caddyPath: string
  /** Its own directory: `caddy.json` (the configuration it starts from), `data/`, `caddy.log`. */
  dir: string
  adminUrl: string
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

/** Where Caddy's configuration is kept, for a restarted Caddy to start from. */
export const configFile = (dir: string) => path.join(dir, 'caddy.json')

/** Starts Caddy and keeps it running until `stop`; rejects when it does not answer at first. */
export async function startCaddy(settings: CaddyProcessSettings): Promise<CaddyProcess> {
  const { dir, adminUrl, log } = settings
  await mkdir(path.join(dir, 'data'), { recursive: true, mode: 0o700 })
  // A Caddy left answering on the admin address (a Berth that was killed) is ours: it is asked to exit.
  if (await answers(adminUrl)) {
    log.warn({ component: 'caddy', adminUrl }, 'a Caddy already answers on the front door admin address; stopping it')
    await stopCaddy(adminUrl)
    await sleep(500)
  }
  const file = configFile(dir)
  const logFile = await open(path.join(dir, 'caddy.log'), 'a')
  let child: ChildProcess | undefined
  let stopping = false
  let restartDelayMs = 500

  const spawnOnce = async (): Promise<void> => {
    const { existsSync, writeFileSync } = await import('node:fs')
    if (!existsSync(file)) writeFileSync(file, JSON.stringify(settings.initialConfig), { mode: 0o600 })
    const started = spawn(settings.caddyPath, ['run', '--config', file], {
      stdio: ['ignore', logFile.fd, logFile.fd],
      // Caddy's own files (autosave, locks) go to its directory, not the user's home.
      env: { ...process.env, HOME: dir, XDG_CONFIG_HOME: path.join(dir, 'config'), XDG_DATA_HOME: path.join(dir, 'data') },
    })
    child = started
    let spawnError: Error | undefined
    const exited = new Promise<void>((resolve) => {
      started.once('exit', () => resolve())
      started.once('error', (error) => {
        spawnError = error
        resolve()
      })
    })
    started.once('exit', (code, signal) => {
      if (stopping) return
      log.warn({ component: 'caddy', code, signal, restartInMs: restartDelayMs }, 'the front door (caddy) stopped; starting it again')
      setTimeout(() => {
        if (stopping) return
        spawnOnce()
          .then(() => {
            restartDelayMs = 500
          })
          .catch((error) => log.warn({ component: 'caddy', err: error }, 'the front door (caddy) did not start again'))
      }, restartDelayMs).unref()
      restartDelayMs = Math.min(restartDelayMs * 2, 30_000)
    })
    const deadline = Date.now() + READY_TIMEOUT_MS
    while (!(await answers(adminUrl))) {
      if (spawnError)
        throw new Error(
          `the front door could not run ${settings.caddyPath} (${spawnError.message}): install Caddy (Debian: apt install caddy), set BERTH_CADDY_PATH, or turn the front door off with BERTH_PROXY=off`,
        )
      if (started.exitCode !== null || started.signalCode !== null)
        throw new Error(`caddy exited (code ${started.exitCode}) before its admin API answered at ${adminUrl}; see ${path.join(dir, 'caddy.log')}`)
      if (Date.now() > deadline) throw new Error(`caddy's admin API did not answer at ${adminUrl} within ${READY_TIMEOUT_MS} ms`)
      await Promise.race([sleep(100), exited])
    }
    log.info({ component: 'caddy', pid: started.pid, adminUrl }, 'the front door (caddy) runs')
    await settings.onStarted()
  }

  const stop = async () => {
    stopping = true
    const running = child
    if (running && running.exitCode === null && running.signalCode === null) {
      const exited = new Promise<void>((resolve) => running.once('exit', () => resolve()))
      running.kill('SIGTERM')
      const timer = setTimeout(() => running.kill('SIGKILL'), STOP_TIMEOUT_MS)
      await exited
      clearTimeout(timer)
    }
    await logFile.close().catch(() => undefined)
  }

  try {
    await spawnOnce()
  } catch (error) {
    await stop()
    throw error
  }
  return { stop }
}
