import type { OrganizationsService } from '#src/modules/organizations/organizations.service.ts'
import type { Principal } from '#src/platform/auth/principal.ts'
import { whenParentGone, withUniqueName } from '#src/platform/db/errors.ts'
import { AppError, notFound, validationFailed } from '#src/platform/http/errors.ts'
import { type CappedList, capped, DEFAULT_LIST_LIMIT } from '#src/platform/http/lists.ts'
import { SECRET_NEEDED_AGAIN, sealedFields } from '#src/platform/secrets/sealed-fields.ts'
import type { SecretBox } from '#src/platform/secrets/secret-box.ts'
import type { HelmRepositoriesRepository, HelmRepositoryRow } from './helm-repositories.repository.ts'
import { CONFIG_WIRE_NAMES, helmRepositoryErrors, type PublicConfig, SECRET_CONFIG_FIELDS, type SecretConfig } from './helm-repositories.rules.ts'
import type { HelmRepositoryKind } from './helm-repositories.schemas.ts'

interface Deps {
  repo: HelmRepositoriesRepository
  organizations: OrganizationsService
  secrets: SecretBox
  /** The most helm repositories a list answers with (BERTH_LIST_LIMIT). */
  listLimit?: number
}

/** A helm repository as created or replaced. */
export interface HelmRepositoryInput {
  name: string
  kind: HelmRepositoryKind
  description: string | null
  url: string | null
  skipTlsVerification: boolean
  /** The non-secret config fields that are set. */
  config: PublicConfig
  /** Secret changes: a value sets, "" clears, an absent field keeps the stored value (on create: none). */
  secrets: SecretConfig
}

const nameTaken = (name: string) => new AppError('conflict', `a helm repository named "${name}" already exists in this organization`)

export function createHelmRepositoriesService({ repo, organizations, secrets, listLimit = DEFAULT_LIST_LIMIT }: Deps) {
  const sealed = sealedFields(secrets, SECRET_CONFIG_FIELDS)

  /** Checks the repository as it will be stored (over `stored`, on an edit) and returns its columns, the secrets sealed. */
  function toColumns(input: HelmRepositoryInput, stored?: { kind: string; url: string | null; secrets: SecretConfig }) {
    const merged = sealed.merge(stored?.secrets ?? {}, input.secrets)
    const errors = helmRepositoryErrors({ kind: input.kind, url: input.url, config: input.config, secrets: merged })
    if (stored && (stored.kind !== input.kind || stored.url !== input.url)) {
      for (const field of sealed.keptAcrossMove(stored.secrets, input.secrets)) {
        errors.push({ path: `/config/${CONFIG_WIRE_NAMES[field]}`, message: SECRET_NEEDED_AGAIN, location: 'body' })
      }
    }
    if (errors.length > 0) throw validationFailed(errors)
    return {
      name: input.name,
      kind: input.kind,
      description: input.description,
      url: input.url,
      skipTlsVerification: input.skipTlsVerification,
      config: JSON.stringify(input.config),
      secretsSealed: sealed.seal(merged),
    }
  }

  return {
    async list(principal: Principal, organizationId: string): Promise<CappedList<HelmRepositoryRow>> {
      await organizations.requireRole(principal, organizationId, 'READ')
      return capped(listLimit, (limit) => repo.list(organizationId, limit))
    },

    async get(principal: Principal, organizationId: string, helmRepositoryId: string): Promise<HelmRepositoryRow> {
      await organizations.requireRole(principal, organizationId, 'READ')
      const row = await repo.findById(organizationId, helmRepositoryId)
      if (!row) throw notFound('helm repository')
      return row
    },

    async create(principal: Principal, organizationId: string, input: HelmRepositoryInput): Promise<HelmRepositoryRow> {
      await organizations.requireRole(principal, organizationId, 'WRITE')
      const columns = toColumns(input)
      return whenParentGone(
        () => notFound('organization'),
        () =>
          withUniqueName(
            'helm_repositories_name_key',
            () => nameTaken(input.name),
            () => repo.insert({ organizationId, ...columns }),
          ),
      )
    },

    /**
     * A full replacement, except for secrets: clients can never read them back, so a GET-modify-PUT
     * must not wipe them. An omitted secret keeps its stored value; "" clears it; an edit of the url
     * or kind must give every stored secret again (SECRET_NEEDED_AGAIN). Two concurrent
     * edits of different secrets: the later one wins for all of them.
     */
    async update(principal: Principal, organizationId: string, helmRepositoryId: string, input: HelmRepositoryInput): Promise<HelmRepositoryRow> {
      await organizations.requireRole(principal, organizationId, 'WRITE')
      const stored = await repo.findSealed(organizationId, helmRepositoryId)
      if (!stored) throw notFound('helm repository')
      const columns = toColumns(input, { kind: stored.kind, url: stored.url, secrets: sealed.open(stored.secretsSealed) })
      const row = await withUniqueName(
        'helm_repositories_name_key',
        () => nameTaken(input.name),
        () => repo.update(organizationId, helmRepositoryId, columns),
      )
      if (!row) throw notFound('helm repository')
      return row
    },

    async delete(principal: Principal, organizationId: string, helmRepositoryId: string): Promise<void> {
      await organizations.requireRole(principal, organizationId, 'WRITE')
      const result = await repo.deleteUnlessUsed(organizationId, helmRepositoryId)
      if (!result) throw notFound('helm repository')
      if (result.usedBy > 0) {
        throw new AppError('conflict', `the helm repository is used by ${result.usedBy} helm service(s); change or delete them first`)
      }
    },

    /** For other modules, which have checked the caller's rights: the repository, or undefined. */
    findHelmRepository(organizationId: string, helmRepositoryId: string): Promise<HelmRepositoryRow | undefined> {
      return repo.findById(organizationId, helmRepositoryId)
    },
  }
}

export type HelmRepositoriesService = ReturnType<typeof createHelmRepositoriesService>
