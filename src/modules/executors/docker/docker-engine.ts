import Docker from 'dockerode'
import { registryPullAccess } from '#src/modules/container-registries/registry-pull-access.ts'
import { createDeploymentRunsRepository } from '#src/modules/deployments/queue/deployment-runs.repository.ts'
import type { ServiceRuntime } from '#src/modules/services/service-runtime.ts'
import type { Db } from '#src/platform/db/database.ts'
import type { SecretBox } from '#src/platform/secrets/secret-box.ts'
import type { DeploymentExecutor } from '../executor.ts'
import { repositoryCredentials } from '../git-credentials.ts'
import { createDockerExecutor } from './docker-executor.ts'
import type { Confinement } from './docker-objects.ts'
import { createDockerRuntime } from './docker-runtime.ts'

// BERTH_EXECUTOR=docker: the engine at DOCKER_HOST (the local socket by default), checked before a
// process that is to deploy there starts.

/** Where the engine is, as an operator would name it. */
export const dockerAddress = () => process.env.DOCKER_HOST || 'unix:///var/run/docker.sock'

/**
 * The Docker executor on the engine at DOCKER_HOST; rejects, saying why, when the engine does not
 * answer (the process must not start).
 */
export async function connectDockerExecutor(
  db: Db,
  secrets: SecretBox,
  settings: { publishHost: string; databaseImages: string; allowPrivateUrls: boolean; confinement?: Confinement; contextMaxBytes?: number },
): Promise<{ executor: DeploymentExecutor; version: string }> {
  const docker = new Docker()
  let version: string
  try {
    version = (await docker.version()).Version
  } catch (error) {
    throw new Error(`BERTH_EXECUTOR=docker, but the Docker engine at ${dockerAddress()} does not answer: ${(error as Error).message}`)
  }
  const executor = createDockerExecutor({
    docker,
    ...settings,
    secrets,
    gitCredentials: repositoryCredentials(db, secrets),
    registry: registryPullAccess(db, secrets),
  })
  return { executor, version }
}

/**
 * What the engine at DOCKER_HOST says of running services, for links and statuses
 * (docker-runtime.ts): only environments whose cluster deploys to Docker are asked about (those of
 * the default clusters under BERTH_EXECUTOR=docker). Not checked at start: an engine that does not
 * answer leaves links and statuses as the records say.
 */
export function dockerServiceRuntime(db: Db, settings: { publishHost: string; publicHost: string; timeoutMs: number }): ServiceRuntime {
  const runs = createDeploymentRunsRepository(db)
  return createDockerRuntime({
    docker: new Docker(),
    ...settings,
    deploysToDocker: async (environmentId) => ((await runs.executorOf(environmentId)) ?? 'DOCKER') === 'DOCKER',
  })
}
