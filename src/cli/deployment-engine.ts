import type { Config } from '#src/config.ts'
import { connectDockerExecutor } from '#src/executor-connections.ts'
import { createDeploymentRunner, type DeploymentRunner, type Executors, type RunnerLog } from '#src/modules/deployments/runner/deployment-runner.ts'
import type { DeploymentRunsRepository } from '#src/modules/deployments/runner/deployment-runs.repository.ts'
import { dockerAddress } from '#src/modules/executors/docker/docker-engine.ts'
import type { DeploymentExecutor } from '#src/modules/executors/executor.ts'
import { createSimulatedExecutor } from '#src/modules/executors/simulated-executor.ts'
import type { FrontDoor } from '#src/modules/front-door/front-door.ts'
import { DOCKER_KINDS, KINDS } from '#src/modules/services/kinds/registry.ts'
import type { Db } from '#src/platform/db/database.ts'
import type { SecretBox } from '#src/platform/secrets/secret-box.ts'
import type { SpanLog } from '#src/platform/spans.ts'

/**
 * The engine a process that runs deployments uses (BERTH_EXECUTOR), said at start: the Docker
 * executor, connected, or undefined for the simulator. Rejects when the Docker engine does not
 * answer: a runner that cannot deploy where it was told must not start.
 */
export async function deploymentEngine(
  config: Config,
  db: Db,
  secrets: SecretBox,
  logger: { info(fields: object, message: string): void } & Partial<SpanLog>,
  /** The front door, when the process has one: told of ready instances and of every change to what runs. */
  frontDoor?: FrontDoor,
): Promise<DeploymentExecutor | undefined> {
  if (config.runner.executor !== 'docker') {
    logger.info({ executor: 'simulated' }, 'deployments of default clusters are simulated (BERTH_EXECUTOR=simulated)')
    return undefined
  }
  const { executor, version } = await connectDockerExecutor(db, secrets, {
    publishHost: config.runner.dockerPublishHost,
    publishPorts: config.runner.dockerPublishPorts,
    databaseImages: config.runner.dockerDatabaseImages,
    iac: { images: config.runner.iacImages },
    allowPrivateUrls: config.outbound.allowPrivateUrls,
    confinement: { pidsLimit: config.runner.dockerPidsLimit, capDrop: config.runner.dockerCapDrop },
    contextMaxBytes: config.runner.buildContextMaxBytes,
    kinds: DOCKER_KINDS,
    frontDoor,
    log: logger.debug ? (logger as SpanLog) : undefined,
  })
  logger.info(
    { executor: 'docker', dockerHost: dockerAddress(), dockerVersion: version, publishHost: config.runner.dockerPublishHost },
    'deployments of default clusters run in the Docker engine (BERTH_EXECUTOR=docker)',
  )
  return executor
}

/**
 * The runner Berth processes run: an executor per cluster kind (the Docker one when `docker` is
 * given: BERTH_EXECUTOR=docker), settings from BERTH_RUNNER_*, BERTH_SIMULATED_STEP_MS and
 * BERTH_LOG_RETENTION_DAYS, and Berth's kinds.
 */
export function createConfiguredRunner(
  runs: DeploymentRunsRepository,
  settings: Config['runner'],
  log: RunnerLog,
  docker?: DeploymentExecutor,
  /** Executors of other clusters' kinds (KUBERNETES), by `clusters.executor`. */
  others: Executors = {},
): DeploymentRunner {
  return createDeploymentRunner({
    runs,
    kinds: KINDS,
    executor: { ...others, SIMULATED: createSimulatedExecutor({ stepMs: settings.simulatedStepMs }), ...(docker ? { DOCKER: docker } : {}) },
    defaultExecutor: settings.executor === 'docker' ? 'DOCKER' : 'SIMULATED',
    options: {
      logRetentionMs: settings.logRetentionMs,
      leaseMs: settings.leaseMs,
      pollMs: settings.pollMs,
      concurrency: settings.concurrency,
      slotsPerOrganization: settings.slotsPerOrganization,
      maxRunMs: settings.maxRunMs,
      cancelMs: Math.min(settings.simulatedStepMs / 2, 5_000),
    },
    log,
  })
}
