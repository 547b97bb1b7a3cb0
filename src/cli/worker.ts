import type { Config } from '#src/config.ts'
import { createConfiguredRunner } from '#src/modules/deployments/deployment-runner.ts'
import { createDeploymentRunsRepository } from '#src/modules/deployments/deployment-runs.repository.ts'
import { createLogger } from '#src/platform/logger.ts'
import { openDatabaseRuntime } from './database-runtime.ts'

/**
 * `berth worker`: the deployment runner alone, without the API, until SIGINT, SIGTERM or SIGHUP.
 * Then it hands the deployments under way back for another runner to resume, and exits 0.
 */
export async function worker(config: Config): Promise<void> {
  const logger = createLogger(config.log.level)
  const runtime = await openDatabaseRuntime(config, { use: 'command', log: (message) => logger.debug({ component: 'postgres' }, message) })
  const runner = createConfiguredRunner(createDeploymentRunsRepository(runtime.db), config.runner, logger.child({ component: 'runner' }))
  let stopping: Promise<void> | undefined
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.on(signal, () => {
      stopping ??= (async () => {
        logger.info({ reason: signal }, 'shutting down')
        await runner.stop()
        await runtime.close()
        logger.info('stopped')
      })()
      stopping.then(
        () => process.exit(0),
        (error: unknown) => {
          logger.error({ err: error }, 'unclean shutdown')
          process.exit(1)
        },
      )
    })
  }
  runner.start()
  logger.info({ database: runtime.description, runnerId: runner.runnerId }, 'berth worker running deployments')
}
