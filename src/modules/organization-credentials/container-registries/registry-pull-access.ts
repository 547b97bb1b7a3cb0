import type { RegistryAccess } from '#src/modules/executors/docker/images.ts'
import type { Db } from '#src/platform/db/database.ts'
import { sealedFields } from '#src/platform/secrets/sealed-fields.ts'
import type { SecretBox } from '#src/platform/secrets/secret-box.ts'
import { SECRET_CONFIG_FIELDS } from './container-registries.rules.ts'
import type { ContainerRegistryKind } from './container-registries.schemas.ts'
import { basicCredentials } from './registry-http-api.ts'

// How an executor pulls a registry's images (the Docker engine, a Kubernetes imagePullSecret): the
// host images are named under, and the registry's credentials unsealed (executors/docker/images.ts).

/** Registries whose images the engine names without a host. */
const DOCKER_HUB_HOSTS = new Set(['docker.io', 'index.docker.io', 'registry-1.docker.io', 'registry.hub.docker.com'])

/** Reads a registry of the organization and opens its credentials; rejects when it is gone. */
export function registryPullAccess(db: Db, secrets: SecretBox) {
  return async (organizationId: string, registryId: string): Promise<RegistryAccess> => {
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
  }
}
