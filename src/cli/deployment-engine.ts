import type { Config } from '#src/config.ts'
import { connectDockerExecutor, dockerAddress } from '#src/modules/executors/docker/docker-engine.ts'
import type { DeploymentExecutor } from '#src/modules/executors/executor.ts'
import type { Db } from '#src/platform/db/database.ts'
import type { SecretBox } from '#src/platform/secrets/secret-box.ts'

/**
 * The engine a process that runs deployments uses (BERTH_EXECUTOR), said at start: the Docker
 * executor, connected, or undefined for the simulator. Rejects when the Docker engine does not
 * answer: a runner that cannot deploy where it was told must not start.
 */
export async function deploymentEngine(
  config: Config,
  db: Db,
  secrets: SecretBox,
  logger: { info(fields: object, message: string): void },
): Promise<DeploymentExecutor | undefined> {
  if (config.runner.executor !== 'docker') {
    logger.info({ executor: 'simulated' }, 'deployments of default clusters are simulated (BERTH_EXECUTOR=simulated)')
    return undefined
  }
  const { executor, version } = await connectDockerExecutor(db, secrets, {
    publishHost: config.runner.dockerPublishHost,
    databaseImages: config.runner.dockerDatabaseImages,
    allowPrivateUrls: config.git.allowPrivateUrls,
    confinement: { pidsLimit: config.runner.dockerPidsLimit, capDrop: config.runner.dockerCapDrop },
    contextMaxBytes: config.runner.buildContextMaxBytes,
  })
  logger.info(
    { executor: 'docker', dockerHost: dockerAddress(), dockerVersion: version, publishHost: config.runner.dockerPublishHost },
    'deployments of default clusters run in the Docker engine (BERTH_EXECUTOR=docker)',
  )
  return executor
}
