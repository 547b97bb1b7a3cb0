import { setTimeout as sleep } from 'node:timers/promises'
import type { FastifyInstance } from 'fastify'
import type { Logger } from 'pino'
import { buildApp } from '#src/app.ts'
import { type Config, secretKeySettings } from '#src/config.ts'
import { connectKubernetesExecutor } from '#src/executor-connections.ts'
import { openMonitoring } from '#src/modules/alerting/monitoring-runtime.ts'
import { createConfiguredBackupWorker } from '#src/modules/backups/backup-runner.ts'
import type { DeploymentRunner } from '#src/modules/deployments/runner/deployment-runner.ts'
import { createDeploymentRunsRepository } from '#src/modules/deployments/runner/deployment-runs.repository.ts'
import { checkKubernetesPrograms, kubernetesSettings } from '#src/modules/executors/kubernetes/kubernetes-engine.ts'
import { type FrontDoorRuntime, openFrontDoor } from '#src/modules/front-door/front-door-runtime.ts'
import { KUBERNETES_KINDS } from '#src/modules/services/kinds/registry.ts'
import { createEventWorkers, type EventWorkers } from '#src/modules/webhooks/event-workers.ts'
import type { SupervisorEvents } from '#src/platform/db/embedded.ts'
import { isDatabaseUnavailable } from '#src/platform/db/errors.ts'
import { chooseLogFormat, createLogger } from '#src/platform/logger.ts'
import { serverSecretBox } from '#src/platform/secrets/server-secret-box.ts'
import { compactHeapOnce, releaseYoungGeneration } from '#src/platform/young-generation.ts'
import { type DatabaseRuntime, openDatabaseRuntime } from './database-runtime.ts'
import { createConfiguredRunner, deploymentEngine } from './deployment-engine.ts'
import { GRACE_EXCEEDED, graceTimer, runnerStoppedInTime } from './shutdown-grace.ts'

const CLOSE_HOOKS_MS = 2_000
/** How often a stopping server closes the connections that went idle since it stopped accepting. */
const IDLE_CLOSE_MS = 50

/**
 * Listens without Fastify's own "Server listening at …" line (one per address), which Fastify logs
 * at info on the root logger with no option to turn it off: serve logs one line of its own, with
 * the database and the start-up time. The root logger is raised to warn for the length of the
 * call, so nothing but that line is lost; a request's logger takes its level from the root when
 * the request arrives, and none arrives before the server listens. (On HOST=localhost, Fastify binds
 * a second address after the first: a request on the first in between would log at warn only.)
 */
async function listenQuietly(app: FastifyInstance, logger: Logger, address: { host: string; port: number }): Promise<void> {
  const level = logger.level
  if (logger.levelVal < logger.levels.values.warn!) logger.level = 'warn'
  try {
    await app.listen(address)
  } finally {
    logger.level = level
  }
}

/**
 * `berth serve`: the API on HOST:PORT until SIGINT or SIGTERM. Then it stops accepting, lets
 * in-flight requests finish for up to BERTH_SHUTDOWN_GRACE_MS, and releases the database.
 * Exit code 0 after a clean stop, 1 when requests had to be cut off or stopping failed.
 */
export async function serve(config: Config): Promise<void> {
  const logger = createLogger(config.log.level, { format: chooseLogFormat(config.log.format, process.stdout.isTTY === true) })
  const started = performance.now()
  let database: Promise<DatabaseRuntime> | undefined
  let app: FastifyInstance | undefined
  let runner: DeploymentRunner | undefined
  let backupWorker: ReturnType<typeof createConfiguredBackupWorker> | undefined
  let eventWorkers: EventWorkers | undefined
  let frontDoor: FrontDoorRuntime | undefined
  let monitoring: { stop(): Promise<void> } | undefined
  let stopping: Promise<boolean> | undefined

  // An embedded PostgreSQL that stops is started again (embedded.ts); its outage is logged once when
  // it starts and once when it ends, not by every part of the server that finds it gone meanwhile.
  let databaseDown = false
  const embeddedSupervision = (): SupervisorEvents => ({
    onDown(pid) {
      databaseDown = true
      logger.warn({ component: 'postgres', pid }, 'the embedded PostgreSQL stopped; starting it again (requests that need it answer 503 meanwhile)')
    },
    onUp(pid, downMs) {
      databaseDown = false
      logger.info({ component: 'postgres', pid, downMs }, 'the embedded PostgreSQL runs again')
    },
    onRestartFailed(error, retryInMs) {
      logger.debug({ component: 'postgres', err: error, retryInMs }, 'the embedded PostgreSQL did not start yet; trying again')
    },
  })
  /** The runner's log, without its retries' warnings about a database the supervisor already reported down. */
  const runnerLog = () => {
    const log = logger.child({ component: 'runner' })
    return {
      info: (fields: object, message: string) => log.info(fields, message),
      debug: (fields: object, message: string) => log.debug(fields, message),
      isLevelEnabled: (level: string) => log.isLevelEnabled(level),
      warn(fields: object, message: string) {
        const error = (fields as { err?: { code?: string; message?: string } }).err
        if (databaseDown && error && isDatabaseUnavailable(error)) return
        log.warn(fields, message)
      },
    }
  }

  /** Resolves true when everything stopped in time. */
  const stop = (reason: string) => {
    stopping ??= (async () => {
      logger.info({ reason }, 'shutting down')
      let clean = true
      const graceOver = graceTimer(config.http.shutdownGraceMs)
      try {
        // Deployments under way are handed back, unfinished, for another runner to resume.
        const runnerStopped = runner?.stop()
        const backupsStopped = backupWorker?.stop()
        const eventsStopped = eventWorkers?.stop()
        if (app) {
          const server = app.server
          const closed = app.close()
          // Node closes the connections that are idle when the server closes, not those that go
          // idle later: a client keeping its connection alive after the response to a request
          // under way would hold the close, and the process, until the grace period ends.
          const idleCloser = setInterval(() => server.closeIdleConnections(), IDLE_CLOSE_MS)
          const outcome = await Promise.race([closed, graceOver]).finally(() => clearInterval(idleCloser))
          if (outcome === GRACE_EXCEEDED) {
            clean = false
            logger.warn({ graceMs: config.http.shutdownGraceMs }, 'requests still running after the grace period; closing them')
            app.server.closeAllConnections()
            // Lets the close hooks (pending token usage) run while the database is still open.
            await Promise.race([closed, sleep(CLOSE_HOOKS_MS, undefined, { ref: false })])
          }
        }
        if (runnerStopped && !(await runnerStoppedInTime(runnerStopped, graceOver, config.http.shutdownGraceMs, logger))) clean = false
        await backupsStopped
        await eventsStopped
        await frontDoor?.stop()
        await monitoring?.stop()
      } finally {
        // A start still opening the database is awaited, so that it is released, not leaked.
        const runtime = await database?.catch(() => undefined)
        await runtime?.close()
      }
      logger.info('stopped')
      return clean
    })()
    return stopping
  }
  // Installed before anything starts, and kept: a signal during start-up or a repeated one (Ctrl-C
  // twice, a supervisor and its child) must not kill the process before the database is released.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.on(signal, () => {
      stop(signal).then(
        (clean) => process.exit(clean ? 0 : 1),
        (error) => {
          logger.error({ err: error }, 'unclean shutdown')
          process.exit(1)
        },
      )
    })
  }

  try {
    database = openDatabaseRuntime(config, {
      use: 'serve',
      log: (message) => logger.debug({ component: 'postgres' }, message),
      supervise: embeddedSupervision(),
    })
    const runtime = await database
    if (stopping) return
    const secrets = await serverSecretBox(runtime.db, secretKeySettings(config), (message) => logger.warn(message))
    if (config.proxy.enabled) {
      frontDoor = await openFrontDoor(config.proxy, config.database.dataDir, runtime.db, logger, true)
      if (stopping) return
    }
    if (config.runner.inServe) {
      const docker = await deploymentEngine(config, runtime.db, secrets, logger, frontDoor?.frontDoor)
      const kubernetes = await checkKubernetesPrograms(kubernetesSettings(config), logger)
      runner = createConfiguredRunner(createDeploymentRunsRepository(runtime.db), config.runner, runnerLog(), docker, {
        KUBERNETES: connectKubernetesExecutor(runtime.db, secrets, kubernetes, KUBERNETES_KINDS),
      })
      backupWorker = createConfiguredBackupWorker(config, runtime.db, secrets, logger.child({ component: 'backups' }))
      eventWorkers = createEventWorkers(config, runtime.db, secrets, logger.child({ component: 'events' }))
    }
    app = await buildApp({ config, db: runtime.db, secrets, logger, onDeploymentQueued: () => runner?.wake(), frontDoor: frontDoor?.frontDoor })
    if (stopping) return
    await listenQuietly(app, logger, { host: config.http.host, port: config.http.port })
    compactHeapOnce()
    releaseYoungGeneration()
    runner?.start()
    backupWorker?.start()
    eventWorkers?.start()
    const address = app.server.address()
    const port = typeof address === 'object' && address ? address.port : config.http.port
    // Prometheus and Alertmanager, once Berth answers the scrapes (docs/metrics.md); in the
    // background: the API does not wait for them, and runs without them when they cannot start.
    const monitoringLog = logger.child({ component: 'monitoring' })
    const monitoringStarted = openMonitoring(config, runtime.db, secrets, port, monitoringLog).catch((error: unknown) => {
      monitoringLog.warn({ err: error }, 'prometheus and alertmanager do not run: alert rules are not evaluated (docs/metrics.md)')
      return undefined
    })
    monitoring = { stop: async () => (await monitoringStarted)?.stop() }
    logger.info(
      { database: runtime.description, startupMs: Math.round(performance.now() - started) },
      `berth listening on http://${config.http.host}:${port}`,
    )
  } catch (error) {
    if (stopping) return
    await stop('start-up failure').catch(() => {})
    throw error
  }
}
