import Docker from 'dockerode'
import { SECRET_CONFIG_FIELDS } from '#src/modules/container-registries/container-registries.rules.ts'
import type { ContainerRegistryKind } from '#src/modules/container-registries/container-registries.schemas.ts'
import { basicCredentials } from '#src/modules/container-registries/registry-http-api.ts'
import { createDeploymentRunsRepository } from '#src/modules/deployments/queue/deployment-runs.repository.ts'
import type { ServiceRuntime } from '#src/modules/services/service-runtime.ts'
import type { Db } from '#src/platform/db/database.ts'
import { sealedFields } from '#src/platform/secrets/sealed-fields.ts'
import type { SecretBox } from '#src/platform/secrets/secret-box.ts'
import type { DeploymentExecutor } from '../executor.ts'
import { repositoryCredentials } from '../git-credentials.ts'
import { createDockerExecutor } from './docker-executor.ts'
import { createDockerRuntime } from './docker-runtime.ts'

// BERTH_EXECUTOR=docker: the engine at DOCKER_HOST (the local socket by default), checked before a
// process that is to deploy there starts.

/** Where the engine is, as an operator would name it. */
export const dockerAddress = () => process.env.DOCKER_HOST || 'unix:///var/run/docker.sock'

/** Registries whose images the engine names without a host. */
const DOCKER_HUB_HOSTS = new Set(['docker.io', 'index.docker.io', 'registry-1.docker.io', 'registry.hub.docker.com'])

/**
 * The Docker executor on the engine at DOCKER_HOST; rejects, saying why, when the engine does not
 * answer (the process must not start).
 */
export async function connectDockerExecutor(
  db: Db,
  secrets: SecretBox,
  settings: { publishHost: string; databaseImages: string; allowPrivateUrls: boolean },
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
    async registry(organizationId, registryId) {
      const row = await db
        .selectFrom('containerRegistries')
        .select(['kind', 'url', 'config', 'secretsSealed'])
        .where('organizationId', '=', organizationId)
        .where('id', '=', registryId)
        .executeTakeFirst()
      if (!row) throw new Error('the container registry of the service is gone')
      const url = new URL(row.url)
      const host = DOCKER_HUB_HOSTS.has(url.host) ? undefined : url.host
      const registrySecrets = sealedFields(secrets, SECRET_CONFIG_FIELDS).open(row.secretsSealed)
      const username = typeof row.config.username === 'string' ? row.config.username : undefined
      const basic = basicCredentials({ kind: row.kind as ContainerRegistryKind, url: row.url, username, secrets: registrySecrets })
      return { host, auth: basic ? { username: basic[0], password: basic[1], serveraddress: host ?? 'https://index.docker.io/v1/' } : undefined }
    },
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
