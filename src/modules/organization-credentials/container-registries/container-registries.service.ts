import type { OrganizationsService } from '#src/modules/organizations/organizations.service.ts'
import type { Principal } from '#src/platform/auth/principal.ts'
import { whenParentGone, withUniqueName } from '#src/platform/db/errors.ts'
import { AppError, notFound, validationFailed } from '#src/platform/http/errors.ts'
import { type CappedList, capped, DEFAULT_LIST_LIMIT } from '#src/platform/http/lists.ts'
import { SECRET_NEEDED_AGAIN, sealedFields } from '#src/platform/secrets/sealed-fields.ts'
import type { SecretBox } from '#src/platform/secrets/secret-box.ts'
import type { ContainerRegistriesRepository, ContainerRegistryRow } from './container-registries.repository.ts'
import {
  CONFIG_WIRE_NAMES,
  containerRegistryErrors,
  type PublicConfig,
  registryUrl,
  SECRET_CONFIG_FIELDS,
  type SecretConfig,
} from './container-registries.rules.ts'
import type { ContainerRegistryKind } from './container-registries.schemas.ts'
import type { ImageVersions, RegistryHttpApi } from './registry-http-api.ts'

interface Deps {
  repo: ContainerRegistriesRepository
  organizations: OrganizationsService
  secrets: SecretBox
  /** Calls to registries' HTTP API (image listings). */
  http: Pick<RegistryHttpApi, 'listVersions'>
  /** BERTH_ALLOW_PRIVATE_URLS: the address rules of git tokens' git_api_url apply to registry URLs too. */
  allowPrivateUrls: boolean
  /** The most registries a list answers with (BERTH_LIST_LIMIT). */
  listLimit?: number
}

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

export interface AssociatedService {
  projectId: string
  projectName: string
  environmentId: string
  environmentName: string
  serviceId: string
  serviceName: string
  /** CONTAINER, or a job's type (LIFECYCLE, CRON). */
  serviceType: string
}

const nameTaken = (name: string) => new AppError('conflict', `a container registry named "${name}" already exists in this organization`)

export function createContainerRegistriesService({ repo, organizations, secrets, http, allowPrivateUrls, listLimit = DEFAULT_LIST_LIMIT }: Deps) {
  const sealed = sealedFields(secrets, SECRET_CONFIG_FIELDS)

  /** Checks the registry as it will be stored (over `stored`, on an edit) and returns its columns, the secrets sealed. */
  function toColumns(input: ContainerRegistryInput, stored?: { kind: string; url: string; secrets: SecretConfig }) {
    const merged = sealed.merge(stored?.secrets ?? {}, input.secrets)
    const errors = containerRegistryErrors({ kind: input.kind, url: input.url, config: input.config, secrets: merged, allowPrivateUrls })
    if (stored && (stored.kind !== input.kind || stored.url !== registryUrl(input.kind, input.url))) {
      for (const field of sealed.keptAcrossMove(stored.secrets, input.secrets)) {
        errors.push({ path: `/config/${CONFIG_WIRE_NAMES[field]}`, message: SECRET_NEEDED_AGAIN, location: 'body' })
      }
    }
    if (errors.length > 0) throw validationFailed(errors)
    return {
      name: input.name,
      kind: input.kind,
      description: input.description,
      url: registryUrl(input.kind, input.url)!,
      config: JSON.stringify(input.config),
      secretsSealed: sealed.seal(merged),
    }
  }

  async function get(principal: Principal, organizationId: string, containerRegistryId: string): Promise<ContainerRegistryRow> {
    await organizations.requireRole(principal, organizationId, 'READ')
    const row = await repo.findById(organizationId, containerRegistryId)
    if (!row) throw notFound('container registry')
    return row
  }

  return {
    async list(principal: Principal, organizationId: string): Promise<CappedList<ContainerRegistryRow>> {
      await organizations.requireRole(principal, organizationId, 'READ')
      return capped(listLimit, (limit) => repo.list(organizationId, limit))
    },

    get,

    async create(principal: Principal, organizationId: string, input: ContainerRegistryInput): Promise<ContainerRegistryRow> {
      await organizations.requireRole(principal, organizationId, 'WRITE')
      const columns = toColumns(input)
      return whenParentGone(
        () => notFound('organization'),
        () =>
          withUniqueName(
            'container_registries_name_key',
            () => nameTaken(input.name),
            () => repo.insert({ organizationId, ...columns }),
          ),
      )
    },

    /**
     * A full replacement, except for secrets: clients can never read them back, so a GET-modify-PUT
     * (or a Terraform plan that leaves them out) must not wipe them. An omitted secret keeps its
     * stored value; "" clears it. But an edit of the url or kind must give every stored secret
     * again (SECRET_NEEDED_AGAIN): a WRITE token must not send an ADMIN's password to a host of its own.
     */
    async update(
      principal: Principal,
      organizationId: string,
      containerRegistryId: string,
      input: ContainerRegistryInput,
    ): Promise<ContainerRegistryRow> {
      await organizations.requireRole(principal, organizationId, 'WRITE')
      const stored = await repo.findSealed(organizationId, containerRegistryId)
      if (!stored) throw notFound('container registry')
      const columns = toColumns(input, { kind: stored.kind, url: stored.url, secrets: sealed.open(stored.secretsSealed) })
      const row = await withUniqueName(
        'container_registries_name_key',
        () => nameTaken(input.name),
        () => repo.update(organizationId, containerRegistryId, columns),
      )
      if (!row) throw notFound('container registry')
      return row
    },

    async delete(principal: Principal, organizationId: string, containerRegistryId: string): Promise<void> {
      await organizations.requireRole(principal, organizationId, 'WRITE')
      const result = await repo.deleteUnlessUsed(organizationId, containerRegistryId)
      if (!result) throw notFound('container registry')
      if (result.usedBy > 0) {
        throw new AppError('conflict', `the container registry is used by ${result.usedBy} service(s); change or delete them first`)
      }
    },

    async listAssociatedServices(principal: Principal, organizationId: string, containerRegistryId: string): Promise<CappedList<AssociatedService>> {
      await get(principal, organizationId, containerRegistryId)
      const page = await capped(listLimit, (limit) => repo.listAssociatedServices(organizationId, containerRegistryId, limit))
      const rows = await organizations.onlyVisible(principal, organizationId, page.rows)
      return {
        hasMore: page.hasMore,
        rows: rows.map(({ serviceKind, jobType, ...row }) => ({
          ...row,
          serviceType: serviceKind === 'JOB' ? (jobType?.toUpperCase() === 'LIFECYCLE' ? 'LIFECYCLE' : 'CRON') : serviceKind,
        })),
      }
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

    /** For other modules, which have checked the caller's rights: the registry, or undefined. */
    findContainerRegistry(organizationId: string, containerRegistryId: string): Promise<ContainerRegistryRow | undefined> {
      return repo.findById(organizationId, containerRegistryId)
    },
  }
}

export type ContainerRegistriesService = ReturnType<typeof createContainerRegistriesService>
