import type { Principal } from '#src/platform/auth/principal.ts'
import type { Db } from '#src/platform/db/database.ts'
import { notFound } from '#src/platform/http/errors.ts'
import { type CappedList, capped, DEFAULT_LIST_LIMIT } from '#src/platform/http/lists.ts'
import type { SecretBox } from '#src/platform/secrets/secret-box.ts'
import { type AssociatedServiceRow, listServicesUsing } from '../associated-services.repository.ts'
import { type CredentialRow, createCredentialsRepository } from '../credentials.repository.ts'
import { type CredentialsDeps, createCredentialsService } from '../credentials.service.ts'
import { type StoredAddress, sealedConfig } from '../sealed-config.ts'
import { containerRegistryErrors, type PublicConfig, REGISTRY_CONFIG_FIELDS, registryUrl, type SecretConfig } from './container-registries.rules.ts'
import type { ContainerRegistryKind } from './container-registries.schemas.ts'
import type { ImageVersions, RegistryHttpApi } from './registry-http-api.ts'

/** A container registry without its sealed secrets, with the number of services that use it. */
export type ContainerRegistryRow = CredentialRow<'containerRegistries', 'secretsSealed'>

/** A container registry as created or replaced. */
export interface ContainerRegistryInput {
  name: string
  kind: ContainerRegistryKind
  description: string | null
  /** Null: the kind's only address (DOCKER_HUB, GITHUB_CR, GITLAB_CR), else a 400. */
  url: string | null
  /** The non-secret config fields that are set. */
  config: PublicConfig
  /** Secret changes: a value sets, "" clears, an absent field keeps the stored value (on create: none). */
  secrets: SecretConfig
}

export const createContainerRegistriesRepository = (db: Db) =>
  createCredentialsRepository(db, {
    table: 'containerRegistries',
    sqlTable: 'container_registries',
    referenceColumn: 'container_registry_id',
    columns: ['id', 'organizationId', 'name', 'kind', 'description', 'url', 'config', 'createdAt', 'updatedAt'],
    sealed: 'secretsSealed',
  })

interface Deps extends CredentialsDeps {
  db: Db
  secrets: SecretBox
  /** Calls to registries' HTTP API (image listings). */
  http: Pick<RegistryHttpApi, 'listVersions'>
  /** BERTH_ALLOW_PRIVATE_URLS: the address rules of git tokens' git_api_url apply to registry URLs too. */
  allowPrivateUrls: boolean
}

/**
 * The organization's container registries. An edit is a full replacement, except for secrets:
 * clients can never read them back, so a GET-modify-PUT (or a Terraform plan that leaves them out)
 * must not wipe them. An omitted secret keeps its stored value; "" clears it. But an edit of the url
 * or kind must give every stored secret again (SECRET_NEEDED_AGAIN): a WRITE token must not send an
 * ADMIN's password to a host of its own.
 */
export function createContainerRegistriesService({ db, secrets, http, allowPrivateUrls, ...deps }: Deps) {
  const repo = createContainerRegistriesRepository(db)
  const sealed = sealedConfig(secrets, REGISTRY_CONFIG_FIELDS)
  const { organizations, listLimit = DEFAULT_LIST_LIMIT } = deps
  const crud = createCredentialsService(
    {
      repo,
      noun: 'container registry',
      nameIndex: 'container_registries_name_key',
      usedBy: 'service(s)',
      stored: sealed.storedOf(repo.findSealed),
      toColumns(input: ContainerRegistryInput, stored?: StoredAddress<SecretConfig>) {
        const url = registryUrl(input.kind, input.url)
        const secretsSealed = sealed.seal(
          input.secrets,
          stored && { secrets: stored.secrets, moved: stored.kind !== input.kind || stored.url !== url },
          (merged) => containerRegistryErrors({ kind: input.kind, url: input.url, config: input.config, secrets: merged, allowPrivateUrls }),
        )
        const { name, kind, description, config } = input
        return { name, kind, description, url: url!, config: JSON.stringify(config), secretsSealed }
      },
    },
    deps,
  )

  return {
    ...crud,

    /** For other modules, which have checked the caller's rights: the registry, or undefined. */
    findContainerRegistry: crud.find,

    async listAssociatedServices(
      principal: Principal,
      organizationId: string,
      containerRegistryId: string,
    ): Promise<CappedList<AssociatedServiceRow>> {
      await crud.get(principal, organizationId, containerRegistryId)
      const page = await capped(listLimit, (limit) => listServicesUsing(db, organizationId, { containerRegistryId }, limit))
      return { hasMore: page.hasMore, rows: await organizations.onlyVisible(principal, organizationId, page.rows) }
    },

    /** The registry's images and tags, read from the registry itself with its credentials (registry-http-api.ts). */
    async listVersions(
      principal: Principal,
      organizationId: string,
      containerRegistryId: string,
      query: { imageName?: string; search?: string },
    ): Promise<ImageVersions[]> {
      await organizations.requireRole(principal, organizationId, 'READ')
      const stored = await repo.findSealed(organizationId, containerRegistryId)
      if (!stored) throw notFound('container registry')
      const username = (stored.config as PublicConfig).username
      return http.listVersions(
        {
          kind: stored.kind as ContainerRegistryKind,
          url: stored.url,
          username: typeof username === 'string' ? username : undefined,
          secrets: sealed.open(stored.secretsSealed),
        },
        query,
      )
    },
  }
}

export type ContainerRegistriesService = ReturnType<typeof createContainerRegistriesService>
