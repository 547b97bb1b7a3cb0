import type { OrganizationsService } from '#src/modules/organizations/organizations.service.ts'
import type { Principal } from '#src/platform/auth/principal.ts'
import { whenParentGone } from '#src/platform/db/errors.ts'
import { AppError, notFound } from '#src/platform/http/errors.ts'
import { type CappedList, capped, DEFAULT_LIST_LIMIT } from '#src/platform/http/lists.ts'
import type { AssociatedItemRow, GroupColumns, GroupKind, GroupRow, OrganizationGroupsRepository } from './organization-groups.repository.ts'

interface Deps {
  repo: OrganizationGroupsRepository
  organizations: OrganizationsService
  /** The most groups a list answers with (BERTH_LIST_LIMIT). */
  listLimit?: number
}

const WHAT: Record<GroupKind, string> = { LABELS: 'labels group', ANNOTATIONS: 'annotations group' }

const inUse = (kind: GroupKind, count: number) =>
  new AppError('conflict', `the ${WHAT[kind]} is attached to ${count} service(s); detach it from them first (…/associatedItems lists them)`)

/**
 * Labels groups and annotations groups of an organization (docs/labels-and-annotations-groups.md, "Labels and annotations
 * groups"): anyone in the organization reads them, WRITE creates, edits and deletes them.
 */
export function createOrganizationGroupsService({ repo, organizations, listLimit = DEFAULT_LIST_LIMIT }: Deps) {
  async function get(principal: Principal, organizationId: string, kind: GroupKind, groupId: string): Promise<GroupRow> {
    await organizations.requireRole(principal, organizationId, 'READ')
    const row = await repo.findById(organizationId, kind, groupId)
    if (!row) throw notFound(WHAT[kind])
    return row
  }

  return {
    get,

    async list(principal: Principal, organizationId: string, kind: GroupKind): Promise<CappedList<GroupRow>> {
      await organizations.requireRole(principal, organizationId, 'READ')
      return capped(listLimit, (limit) => repo.list(organizationId, kind, limit))
    },

    async create(principal: Principal, organizationId: string, kind: GroupKind, columns: GroupColumns): Promise<GroupRow> {
      await organizations.requireRole(principal, organizationId, 'WRITE')
      return whenParentGone(
        () => notFound('organization'),
        () => repo.insert(organizationId, kind, columns),
      )
    },

    /** A full replacement; the services it is attached to get the new entries with their next deployment. */
    async update(principal: Principal, organizationId: string, kind: GroupKind, groupId: string, columns: GroupColumns): Promise<GroupRow> {
      await organizations.requireRole(principal, organizationId, 'WRITE')
      const row = await repo.update(organizationId, kind, groupId, columns)
      if (!row) throw notFound(WHAT[kind])
      return row
    },

    /** Refused with 409 while services use the group. */
    async delete(principal: Principal, organizationId: string, kind: GroupKind, groupId: string): Promise<void> {
      await organizations.requireRole(principal, organizationId, 'WRITE')
      const outcome = await repo.deleteUnlessUsed(organizationId, kind, groupId)
      if (!outcome) throw notFound(WHAT[kind])
      if (outcome.usedBy > 0) throw inUse(kind, outcome.usedBy)
    },

    async associatedItems(principal: Principal, organizationId: string, kind: GroupKind, groupId: string): Promise<AssociatedItemRow[]> {
      const group = await get(principal, organizationId, kind, groupId)
      return repo.associatedItems(group.id)
    },

    /** For services: the organization's groups of that kind among `ids`, without access checks (the service's own check covers them). */
    findGroups: (organizationId: string, kind: GroupKind, ids: string[]) => repo.findMany(organizationId, kind, ids),
  }
}

export type OrganizationGroupsService = ReturnType<typeof createOrganizationGroupsService>
