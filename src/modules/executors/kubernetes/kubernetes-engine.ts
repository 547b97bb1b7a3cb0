import type { Config } from '#src/config.ts'
import { registryPullAccess } from '#src/modules/container-registries/registry-pull-access.ts'
import { SECRET_CONFIG_FIELDS } from '#src/modules/helm-repositories/helm-repositories.rules.ts'
import type { Db } from '#src/platform/db/database.ts'
import { sealedFields } from '#src/platform/secrets/sealed-fields.ts'
import type { SecretBox } from '#src/platform/secrets/secret-box.ts'
import { loadDockerode } from '../docker/docker-engine.ts'
import type { DeploymentExecutor } from '../executor.ts'
import { repositoryCredentials } from '../git-credentials.ts'
import { createKubernetesExecutor } from './helm-executor.ts'

/**
 * The executor of KUBERNETES clusters, reading what it needs from the database: the environment's
 * cluster's kubeconfig, the organization's helm repositories, git tokens and container registries,
 * their secrets opened with the server's SecretBox. It needs nothing to start: helm and kubectl are
 * run, the cluster reached, and the runner's Docker engine (DOCKER_HOST) asked to build an image,
 * per deployment.
 */
export function connectKubernetesExecutor(
  db: Db,
  secrets: SecretBox,
  settings: { helmPath: string; kubectlPath: string; allowPrivateUrls: boolean; databaseImages: string },
): DeploymentExecutor {
  return createKubernetesExecutor({
    ...settings,
    gitCredentials: repositoryCredentials(db, secrets),
    registry: registryPullAccess(db, secrets),
    openSecret: (sealed) => secrets.open(Buffer.from(sealed, 'base64')),
    async docker() {
      const Docker = await loadDockerode()
      const docker = new Docker()
      await docker.version()
      return docker
    },
    async imageRegistry(organizationId, environmentId) {
      const row = await db
        .selectFrom('environments as e')
        .innerJoin('clusters as c', 'c.id', 'e.clusterId')
        .select('c.imageRegistryId')
        .where('e.organizationId', '=', organizationId)
        .where('e.id', '=', environmentId)
        .executeTakeFirst()
      return row?.imageRegistryId ?? null
    },
    async kubeconfig(organizationId, environmentId) {
      const row = await db
        .selectFrom('environments as e')
        .innerJoin('clusters as c', 'c.id', 'e.clusterId')
        .select('c.kubeconfigSealed')
        .where('e.organizationId', '=', organizationId)
        .where('e.id', '=', environmentId)
        .executeTakeFirst()
      return row?.kubeconfigSealed ? secrets.open(row.kubeconfigSealed) : undefined
    },
    async chartRepository(organizationId, repositoryId) {
      const row = await db
        .selectFrom('helmRepositories')
        .select(['kind', 'url', 'skipTlsVerification', 'config', 'secretsSealed'])
        .where('organizationId', '=', organizationId)
        .where('id', '=', repositoryId)
        .executeTakeFirst()
      if (!row?.url) throw new Error('the helm repository of the service is gone, or has no URL')
      const sealed = sealedFields(secrets, SECRET_CONFIG_FIELDS).open(row.secretsSealed)
      return { kind: row.kind, url: row.url, skipTlsVerification: row.skipTlsVerification, username: row.config.username, password: sealed.password }
    },
  })
}

/** What the executor takes from the server's configuration. */
export const kubernetesSettings = (config: Pick<Config, 'runner' | 'git'>) => ({
  helmPath: config.runner.helmPath,
  kubectlPath: config.runner.kubectlPath,
  allowPrivateUrls: config.git.allowPrivateUrls,
  databaseImages: config.runner.dockerDatabaseImages,
})
