import { organizationRecordReads } from '#src/modules/organizations/organization-records.ts'
import type { OrganizationsService } from '#src/modules/organizations/organizations.service.ts'
import type { Principal } from '#src/platform/auth/principal.ts'
import { whenParentGone, withUniqueName } from '#src/platform/db/errors.ts'
import { AppError, notFound } from '#src/platform/http/errors.ts'
import { DEFAULT_LIST_LIMIT } from '#src/platform/http/lists.ts'
import type { CredentialRow, CredentialsRepository, CredentialTableName, CredentialTables } from './credentials.repository.ts'

/** What one family of credentials (git tokens, helm repositories, container registries) adds to the shared rules. */
export interface CredentialFamily<
  T extends CredentialTableName,
  Sealed extends keyof CredentialTables[T] & string,
  Input extends { name: string },
  Stored,
> {
  repo: CredentialsRepository<T, Sealed>
  /** What messages call one, as `git token`. */
  noun: string
  /** The unique index on the organization and the name: a clash is a 409. */
  nameIndex: string
  /** Who uses one, in the 409 of a delete, as `helm service(s)`. */
  usedBy: string
  /**
   * The stored credential an edit builds on (its secrets opened), for a family whose edits keep
   * the secrets they leave out; undefined when there is no such credential.
   */
  stored?: (organizationId: string, id: string) => Promise<Stored | undefined>
  /** The input checked (over `stored` on an edit) and as the table's columns, its secrets sealed; a 400 naming every broken rule. */
  toColumns(input: Input, stored?: Stored): Parameters<CredentialsRepository<T, Sealed>['update']>[2]
}

export interface CredentialsDeps {
  organizations: OrganizationsService
  /** The most credentials a list answers with (BERTH_LIST_LIMIT). */
  listLimit?: number
  /** Told after one is edited or deleted, so that what was read with it is forgotten. */
  onChanged?: (id: string) => void
}

/**
 * An organization's credentials of one family, as the routes of `organization-resource.routes.ts`
 * use them: READ to list and read, WRITE to create, replace and delete; names unique in the
 * organization (409); a delete refused while services use the credential (409).
 */
export function createCredentialsService<
  T extends CredentialTableName,
  Sealed extends keyof CredentialTables[T] & string,
  Input extends { name: string },
  Stored,
>(family: CredentialFamily<T, Sealed, Input, Stored>, { organizations, listLimit = DEFAULT_LIST_LIMIT, onChanged }: CredentialsDeps) {
  const { repo, noun } = family
  const nameTaken = (name: string) => new AppError('conflict', `a ${noun} named "${name}" already exists in this organization`)
  const uniqueName = <R>(name: string, write: () => Promise<R>) => withUniqueName(family.nameIndex, () => nameTaken(name), write)
  type Row = CredentialRow<T, Sealed>

  const { get, list } = organizationRecordReads<Row>(organizations, repo, { role: 'READ', noun, listLimit })

  return {
    list,
    get,

    async create(principal: Principal, organizationId: string, input: Input): Promise<Row> {
      await organizations.requireRole(principal, organizationId, 'WRITE')
      const columns = family.toColumns(input)
      return whenParentGone(
        () => notFound('organization'),
        () => uniqueName(input.name, () => repo.insert({ organizationId, ...columns } as Parameters<typeof repo.insert>[0])),
      )
    },

    /**
     * A full replacement. A family with `stored` keeps the secrets the edit leaves out: clients can
     * never read them back, so a GET-modify-PUT must not wipe them.
     */
    async update(principal: Principal, organizationId: string, id: string, input: Input): Promise<Row> {
      await organizations.requireRole(principal, organizationId, 'WRITE')
      let stored: Stored | undefined
      if (family.stored) {
        stored = await family.stored(organizationId, id)
        if (!stored) throw notFound(noun)
      }
      const columns = family.toColumns(input, stored)
      const row = await uniqueName(input.name, () => repo.update(organizationId, id, columns))
      if (!row) throw notFound(noun)
      onChanged?.(id)
      return row
    },

    async delete(principal: Principal, organizationId: string, id: string): Promise<void> {
      await organizations.requireRole(principal, organizationId, 'WRITE')
      const result = await repo.deleteUnlessUsed(organizationId, id)
      if (!result) throw notFound(noun)
      if (result.usedBy > 0) throw new AppError('conflict', `the ${noun} is used by ${result.usedBy} ${family.usedBy}; change or delete them first`)
      onChanged?.(id)
    },

    /** For other modules, which have checked the caller's rights: the credential, or undefined. */
    find(organizationId: string, id: string): Promise<Row | undefined> {
      return repo.findById(organizationId, id)
    },
  }
}
