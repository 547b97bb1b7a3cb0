import type Docker from 'dockerode'
import { sql } from 'kysely'
import type { Db } from '#src/platform/db/database.ts'
import { type SpanLog, spans } from '#src/platform/spans.ts'
import { loadConfig, storageRoot } from './caddy-admin.ts'
import { type CaddySettings, caddyConfig } from './caddy-config.ts'
import { writeFileAtomically } from './caddy-process.ts'
import { readRouteTable } from './route-table.ts'

// The front door as the rest of Berth sees it (docs/front-door.md): whatever changes what it
// routes (a rollout, a stop, a deletion, a custom domain's check) calls `sync`, which reads the
// routes again from the engine and the database and loads the whole configuration into Caddy.
// Syncs of one process run one at a time (one more is queued behind a running one, whatever the
// number of callers); those of several processes (serve, workers) take turns on an advisory lock,
// so that an older view never overwrites a newer one.

export interface FrontDoorDeps {
  db: Db
  docker: Docker
  adminUrl: string
  appsDomain: string
  caddy: CaddySettings
  /** Where the last configuration loaded is written, for a restarted Caddy to start from (the one Berth runs). */
  configFile?: string | undefined
  /** The storage root of the Caddy serve runs: routes are only loaded into a Caddy that says it (never into another program at the address). */
  identity?: string | undefined
  log: { warn(fields: object, message: string): void; debug?(fields: object, message: string): void; isLevelEnabled?(level: string): boolean }
}

export interface FrontDoor {
  /** Loads the routes as they are now; never rejects (a failure is logged, and the next sync retries). */
  sync(reason: string): Promise<void>
  /**
   * Marks a new instance ready and sends its service's traffic to it (away from the instances it
   * replaces); resolves once Caddy took the change. The instances it replaces are given `drainMs`
   * to finish what they were answering before they are stopped (the rollout's part: a first deploy
   * replaces nothing, and has nothing to wait for).
   */
  instanceReady(instance: { containerId: string; serviceId: string }): Promise<void>
  /** How long instances taken out of the routes keep answering the requests they have before they are stopped. */
  drainMs: number
  /**
   * Instances a rollout replaced are going (drained, then stopped, in the background): the routes
   * are loaded again once they are gone, and `close` waits for them.
   */
  followRetirement(retired: Promise<void>, reason: string): void
  /**
   * Waits for the retirements under way (up to RETIREMENTS_WAIT_MS), then for the loads under way and
   * the configuration file's writes; a sync asked afterwards loads nothing. Whatever stops Caddy
   * calls it first: a Caddy stopped while it takes a configuration can be cut off in the middle of
   * writing its storage (certificates, the ACME account), which the next Caddy then reads.
   */
  close(): Promise<void>
}

/** The advisory lock key the syncs of every process take turns on. */
const SYNC_LOCK = 0x62657274_68_5f_6664n
/** How long instances taken out of the routes keep answering the requests they have before they are stopped. */
export const DRAIN_MS = 1_000
/** The longest `close` waits for replaced instances to be stopped: their drain and a stop that honours its signal, not a whole long grace (a supervisor stopping serve waits for it). */
const RETIREMENTS_WAIT_MS = 5_000

export function createFrontDoor(deps: FrontDoorDeps): FrontDoor {
  const traceLog = deps.log.debug ? (deps.log as SpanLog) : undefined
  let running: Promise<void> | undefined
  let queued: Promise<void> | undefined
  // The configuration file's writes, in the order of the loads.
  let fileWrites: Promise<void> = Promise.resolve()
  const retirements = new Set<Promise<void>>()
  let closed = false

  const syncNow = async (reason: string) => {
    const span = spans(traceLog, { component: 'front-door', reason })
    await deps.db.transaction().execute(async (trx) => {
      await span('front door lock', () => sql`select pg_advisory_xact_lock(${SYNC_LOCK})`.execute(trx))
      // Which program answers at the admin address is asked while the routes are read.
      const [{ routes }, identity] = await Promise.all([
        span('front door routes read', () => readRouteTable(deps.db, deps.docker, deps.appsDomain)),
        deps.identity === undefined ? undefined : span('front door identity', () => storageRoot(deps.adminUrl)),
      ])
      const config = caddyConfig(routes, deps.caddy)
      if (deps.identity !== undefined && identity !== deps.identity)
        throw new Error(
          `the program at ${deps.adminUrl} is not this Berth's Caddy (its storage is not ${deps.identity}): routes are not loaded into it`,
        )
      await span('front door load', () => loadConfig(deps.adminUrl, config))
      // The file is for a restarted Caddy to start from: written after the load, in the order of
      // the loads, outside the lock and without holding up what waits for the routes.
      const { configFile } = deps
      if (configFile) {
        const text = JSON.stringify(config)
        fileWrites = fileWrites
          .then(() => span('front door file', () => writeFileAtomically(configFile, text)))
          .catch((error: unknown) => deps.log.warn({ component: 'front-door', err: error }, 'the front door configuration file could not be written'))
      }
      deps.log.debug?.({ component: 'front-door', reason, routes: routes.length }, 'front door routes loaded')
    })
  }

  const sync = (reason: string): Promise<void> => {
    if (closed) {
      deps.log.debug?.({ component: 'front-door', reason }, 'the front door is closed: routes not loaded')
      return Promise.resolve()
    }
    if (queued) return queued
    const after = running ?? Promise.resolve()
    const next = after.then(async () => {
      queued = undefined
      try {
        await syncNow(reason)
      } catch (error) {
        deps.log.warn({ component: 'front-door', reason, err: error }, 'the front door routes could not be loaded; the next change retries')
      }
    })
    if (running) queued = next
    running = next.finally(() => {
      if (running === tracked) running = undefined
    })
    const tracked = running
    return next
  }

  return {
    sync,
    async instanceReady({ containerId, serviceId }) {
      await deps.db
        .insertInto('frontDoorReadyInstances')
        .values({ containerId, serviceId })
        .onConflict((oc) => oc.doNothing())
        .execute()
      await sync('an instance is ready')
    },
    drainMs: DRAIN_MS,
    followRetirement(retired, reason) {
      const followed = retired.catch(() => undefined).then(() => sync(reason))
      retirements.add(followed)
      void followed.finally(() => retirements.delete(followed))
    },
    async close() {
      const timeout = new Promise<void>((resolve) => setTimeout(resolve, RETIREMENTS_WAIT_MS).unref())
      await Promise.race([Promise.all(retirements), timeout])
      closed = true
      await running
      await fileWrites
    },
  }
}
