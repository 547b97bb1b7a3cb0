import path from 'node:path'
import type { ProxySettings } from '#src/config.ts'
import { loadDockerode } from '#src/modules/executors/docker/docker-engine.ts'
import type { Db } from '#src/platform/db/database.ts'
import { adminListen, answers } from './caddy-admin.ts'
import { type CaddySettings, type CertificateIssuer, caddyConfig } from './caddy-config.ts'
import { configFile, startCaddy } from './caddy-process.ts'
import { createFrontDoor, type FrontDoor } from './front-door.ts'

// The front door of a Berth process (docs/front-door.md): `berth serve` runs Caddy itself unless
// BERTH_PROXY_ADMIN_URL names one the operator runs, loads the routes at start, and again every
// RESYNC_MS (an instance the engine restarted on another address, a change a worker could not
// load); a worker only loads the routes its rollouts change, at the same admin address.

/** How often serve loads the routes again whatever happened. */
const RESYNC_MS = 30_000

export interface FrontDoorRuntime {
  frontDoor: FrontDoor
  stop(): Promise<void>
}

type Log = { info(fields: object, message: string): void; warn(fields: object, message: string): void; debug(fields: object, message: string): void }

/** Where the Caddy Berth runs keeps its files. */
export const caddyDir = (dataDir: string) => path.join(dataDir, 'front-door')

/** The admin API Berth talks to: the operator's, or the loopback one of the Caddy serve runs. */
export const adminUrlOf = (settings: ProxySettings) => settings.adminUrl ?? `http://127.0.0.1:${settings.adminPort}`

function issuerOf(settings: ProxySettings): CertificateIssuer {
  return settings.acmeDirectory
    ? { kind: 'acme', directory: settings.acmeDirectory, email: settings.acmeEmail, caRoot: settings.acmeCaRoot }
    : { kind: 'internal' }
}

/**
 * The front door of a process: `run` (serve) starts Caddy when Berth runs it and keeps the routes
 * loaded; otherwise (a worker) it only loads what its rollouts change.
 */
export async function openFrontDoor(settings: ProxySettings, dataDir: string, db: Db, log: Log, run: boolean): Promise<FrontDoorRuntime> {
  const Docker = await loadDockerode()
  const adminUrl = adminUrlOf(settings)
  const embedded = settings.adminUrl === undefined
  const dir = caddyDir(dataDir)
  // The Caddy serve runs names this data dir's storage: how it is told from another Berth's (or program's) at the admin address.
  const identity = path.join(dir, 'data')
  const caddy: CaddySettings = {
    adminListen: embedded ? `127.0.0.1:${settings.adminPort}` : await adminListen(adminUrl),
    httpPort: settings.httpPort,
    httpsPort: settings.httpsPort,
    listenHost: settings.listenHost,
    issuer: issuerOf(settings),
    storageDir: embedded ? identity : undefined,
  }
  const frontDoor = createFrontDoor({
    db,
    docker: new Docker(),
    adminUrl,
    appsDomain: settings.appsDomain,
    caddy,
    configFile: embedded && run ? configFile(dir) : undefined,
    identity: embedded && run ? identity : undefined,
    log,
  })
  if (!run) return { frontDoor, stop: () => frontDoor.close() }
  const process = embedded
    ? await startCaddy({
        caddyPath: settings.caddyPath,
        dir,
        adminUrl,
        identity,
        listenHost: settings.listenHost,
        httpPort: settings.httpPort,
        httpsPort: settings.httpsPort,
        initialConfig: caddyConfig([], caddy),
        log,
        onStarted: () => frontDoor.sync('caddy started'),
      })
    : undefined
  if (!embedded) await frontDoor.sync('berth started')
  const timer = setInterval(() => void frontDoor.sync('periodic'), RESYNC_MS)
  timer.unref()
  log.info(
    {
      component: 'front-door',
      adminUrl,
      httpPort: settings.httpPort,
      httpsPort: settings.httpsPort,
      appsDomain: settings.appsDomain,
      caddy: embedded ? 'run by berth' : "the operator's",
    },
    `the front door serves services at https://<name>.${settings.appsDomain}${settings.httpsPort === 443 ? '' : `:${settings.httpsPort}`}`,
  )
  return {
    frontDoor,
    async stop() {
      clearInterval(timer)
      // Caddy is stopped only once no load is under way nor can start (front-door.ts, `close`).
      await frontDoor.close()
      await process?.stop()
    },
  }
}

/**
 * A worker's front door: the admin API serve (or the operator) runs, when it answers at the
 * worker's start; otherwise none (serve's periodic reload then follows the worker's rollouts,
 * without switching the routes before an old instance stops).
 */
export async function workerFrontDoor(settings: ProxySettings, dataDir: string, db: Db, log: Log): Promise<FrontDoor | undefined> {
  const adminUrl = adminUrlOf(settings)
  if (!(await answers(adminUrl))) {
    log.info(
      { component: 'front-door', adminUrl },
      'no front door answers at its admin address: this worker does not load routes (serve reloads them every 30 s)',
    )
    return undefined
  }
  return (await openFrontDoor(settings, dataDir, db, log, false)).frontDoor
}
