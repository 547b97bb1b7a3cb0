import type { Principal } from '#src/platform/auth/principal.ts'
import type { Role } from '#src/platform/auth/roles.ts'
import { whenParentGone, withUniqueName } from '#src/platform/db/errors.ts'
import { notFound } from '#src/platform/http/errors.ts'
import { type CappedList, capped } from '#src/platform/http/lists.ts'
import type { OrganizationsService } from './organizations.service.ts'

/** Where an organization's records of one kind are read. */
export interface OrganizationRecordsRepository<Row> {
  findById(organizationId: string, id: string): Promise<Row | undefined>
  list(organizationId: string, limit: number): Promise<Row[]>
}

/**
 * Reading an organization's records of one kind (credentials, webhooks) behind one role: a record
 * by id (404 naming `noun` when the organization has none), and the list, capped at `listLimit`.
 */
export function organizationRecordReads<Row>(
  organizations: Pick<OrganizationsService, 'requireRole'>,
  repo: OrganizationRecordsRepository<Row>,
  { role, noun, listLimit }: { role: Role; noun: string; listLimit: number },
) {
  return {
    async get(principal: Principal, organizationId: string, id: string): Promise<Row> {
      await organizations.requireRole(principal, organizationId, role)
      const row = await repo.findById(organizationId, id)
      if (!row) throw notFound(noun)
      return row
    },

    async list(principal: Principal, organizationId: string): Promise<CappedList<Row>> {
      await organizations.requireRole(principal, organizationId, role)
      return capped(listLimit, (limit) => repo.list(organizationId, limit))
    },
  }
}

/**
 * Inserts one of an organization's records under a unique constraint: `clash` (a 409) when the
 * constraint is violated, a 404 when the organization was deleted meanwhile.
 */
export const insertOrganizationRecord = <T>(constraint: string, clash: () => Error, insert: () => Promise<T>): Promise<T> =>
  whenParentGone(
    () => notFound('organization'),
    () => withUniqueName(constraint, clash, insert),
  )
