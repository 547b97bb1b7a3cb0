import { type Config, secretKeySettings } from '#src/config.ts'
import { connectKubernetesExecutor } from '#src/executor-connections.ts'
import { createConfiguredBackupWorker } from '#src/modules/backups/backup-runner.ts'
import { createDeploymentRunsRepository } from '#src/modules/deployments/runner/deployment-runs.repository.ts'
import { checkKubernetesPrograms, type KubernetesSettings, kubernetesSettings } from '#src/modules/executors/kubernetes/kubernetes-engine.ts'
import { workerFrontDoor } from '#src/modules/front-door/front-door-runtime.ts'
import { KUBERNETES_KINDS } from '#src/modules/services/kinds/registry.ts'
import { createEventWorkers } from '#src/modules/webhooks/event-workers.ts'
import { chooseLogFormat, createLogger } from '#src/platform/logger.ts'
import { serverSecretBox } from '#src/platform/secrets/server-secret-box.ts'
import { openDatabaseRuntime } from './database-runtime.ts'
import { createConfiguredRunner, deploymentEngine } from './deployment-engine.ts'
import { graceTimer, runnerStoppedInTime } from './shutdown-grace.ts'

/**
 * `berth worker`: the deployment runner alone, without the API, until SIGINT, SIGTERM or SIGHUP.
 * Then it hands the deployments under way back for another runner to resume, and exits 0; 1 when
 * that took longer than BERTH_SHUTDOWN_GRACE_MS (what it still held is then left to its leases).
 */
export async function worker(config: Config): Promise<void> {
  const logger = createLogger(config.log.level, { format: chooseLogFormat(config.log.format, process.stdout.isTTY === true) })
  const runtime = await openDatabaseRuntime(config, { use: 'command', log: (message) => logger.debug({ component: 'postgres' }, message) })
  let docker: Awaited<ReturnType<typeof deploymentEngine>>
  let secrets: Awaited<ReturnType<typeof serverSecretBox>>
  let kubernetes: KubernetesSettings
  try {
    secrets = await serverSecretBox(runtime.db, secretKeySettings(config), (message) => logger.warn(message))
    // A worker loads the routes its rollouts change into the front door serve runs (or the operator's), when one answers.
    const frontDoor = config.proxy.enabled ? await workerFrontDoor(config.proxy, config.database.dataDir, runtime.db, logger) : undefined
    docker = await deploymentEngine(config, runtime.db, secrets, logger, frontDoor)
    kubernetes = await checkKubernetesPrograms(kubernetesSettings(config), logger)
  } catch (error) {
    await runtime.close()
    throw error
  }
  const runner = createConfiguredRunner(createDeploymentRunsRepository(runtime.db), config.runner, logger.child({ component: 'runner' }), docker, {
    KUBERNETES: connectKubernetesExecutor(runtime.db, secrets, kubernetes, KUBERNETES_KINDS),
  })
  const backupWorker = createConfiguredBackupWorker(config, runtime.db, secrets, logger.child({ component: 'backups' }))
  const eventWorkers = createEventWorkers(config, runtime.db, secrets, logger.child({ component: 'events' }))
  let stopping: Promise<boolean> | undefined
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.on(signal, () => {
      stopping ??= (async () => {
        logger.info({ reason: signal }, 'shutting down')
        const graceMs = config.http.shutdownGraceMs
        const backupsStopped = backupWorker.stop()
        const eventsStopped = eventWorkers.stop()
        const clean = await runnerStoppedInTime(runner.stop(), graceTimer(graceMs), graceMs, logger)
        await backupsStopped
        await eventsStopped
        await runtime.close()
        logger.info('stopped')
        return clean
      })()
      stopping.then(
        (clean) => process.exit(clean ? 0 : 1),
        (error: unknown) => {
          logger.error({ err: error }, 'unclean shutdown')
          process.exit(1)
        },
      )
    })
  }
  runner.start()
  backupWorker.start()
  eventWorkers.start()
  logger.info({ database: runtime.description, runnerId: runner.runnerId }, 'berth worker running deployments')
}
