import type { Principal } from '#src/platform/auth/principal.ts'
import type { Db } from '#src/platform/db/database.ts'
import { AppError } from '#src/platform/http/errors.ts'
import type { SecretBox } from '#src/platform/secrets/secret-box.ts'
import { type CredentialRow, createCredentialsRepository } from '../credentials.repository.ts'
import { type CredentialsDeps, createCredentialsService } from '../credentials.service.ts'
import { type StoredAddress, sealedConfig } from '../sealed-config.ts'
import { chartRepositoryAccess } from './chart-repository-access.ts'
import { HELM_CONFIG_FIELDS, helmRepositoryErrors, type PublicConfig, type SecretConfig } from './helm-repositories.rules.ts'
import type { HelmRepositoryKind } from './helm-repositories.schemas.ts'

/** A helm repository without its sealed secrets, with the number of helm services that use it. */
export type HelmRepositoryRow = CredentialRow<'helmRepositories', 'secretsSealed'>

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

export const createHelmRepositoriesRepository = (db: Db) =>
  createCredentialsRepository(db, {
    table: 'helmRepositories',
    sqlTable: 'helm_repositories',
    referenceColumn: 'helm_repository_id',
    columns: ['id', 'organizationId', 'name', 'kind', 'description', 'url', 'skipTlsVerification', 'config', 'createdAt', 'updatedAt'],
    sealed: 'secretsSealed',
  })

interface Deps extends CredentialsDeps {
  db: Db
  secrets: SecretBox
}

/**
 * The organization's helm repositories. An edit is a full replacement, except for secrets: an
 * omitted secret keeps its stored value, "" clears it, and an edit of the url or kind must give
 * every stored secret again (SECRET_NEEDED_AGAIN). Of two concurrent edits of different secrets,
 * the later one wins for all of them.
 */
export function createHelmRepositoriesService({ db, secrets, ...deps }: Deps) {
  const repo = createHelmRepositoriesRepository(db)
  const sealed = sealedConfig(secrets, HELM_CONFIG_FIELDS)
  const crud = createCredentialsService(
    {
      repo,
      noun: 'helm repository',
      nameIndex: 'helm_repositories_name_key',
      usedBy: 'helm service(s)',
      stored: sealed.storedOf(repo.findSealed),
      toColumns: (input: HelmRepositoryInput, stored?: StoredAddress<SecretConfig>) => ({
        name: input.name,
        kind: input.kind,
        description: input.description,
        url: input.url,
        skipTlsVerification: input.skipTlsVerification,
        config: JSON.stringify(input.config),
        secretsSealed: sealed.seal(
          input.secrets,
          stored && { secrets: stored.secrets, moved: stored.kind !== input.kind || stored.url !== input.url },
          (merged) => helmRepositoryErrors({ kind: input.kind, url: input.url, config: input.config, secrets: merged }),
        ),
      }),
    },
    deps,
  )
  const openChartRepository = chartRepositoryAccess(db, secrets)

  /** The organization's helm repository as charts are read from it; undefined when it has no URL to read them from. */
  async function chartRepositoryOf(organizationId: string, helmRepositoryId: string) {
    const opened = await openChartRepository(organizationId, helmRepositoryId).catch(() => undefined)
    if (!opened) return undefined
    const username = typeof opened.username === 'string' ? opened.username : undefined
    return { kind: opened.kind, url: opened.url, username, password: opened.password, skipTlsVerification: opened.skipTlsVerification }
  }

  return {
    ...crud,

    /** For other modules, which have checked the caller's rights: the repository, or undefined. */
    findHelmRepository: crud.find,

    chartRepositoryOf,

    /** READ in the organization; the helm repository as charts are read from it (404 when it is not the organization's). */
    async requireChartRepository(principal: Principal, organizationId: string, helmRepositoryId: string) {
      await crud.get(principal, organizationId, helmRepositoryId)
      const repository = await chartRepositoryOf(organizationId, helmRepositoryId)
      if (!repository) throw new AppError('bad_request', 'the helm repository has no URL to read its charts from')
      return repository
    },
  }
}

export type HelmRepositoriesService = ReturnType<typeof createHelmRepositoriesService>
