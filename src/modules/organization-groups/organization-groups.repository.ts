import { sql } from 'kysely'
import type { Db } from '#src/platform/db/database.ts'
import { deleteUnlessUsed } from '#src/platform/db/delete-unless-used.ts'
import { SERVICE_PLACE_COLUMNS } from '#src/platform/db/service-place.ts'

export type GroupKind = 'LABELS' | 'ANNOTATIONS'

/** A labels or annotations group with the number of services it is attached to. */
export interface GroupRow {
  id: string
  organizationId: string
  kind: GroupKind
  name: string
  entries: unknown
  scopes: string[]
  createdAt: Date
  updatedAt: Date | null
  associatedItemsCount: number
}

/** A service a group is attached to, with where it lives. */
export interface AssociatedItemRow {
  serviceId: string
  serviceName: string
  kind: string
  cronJob: boolean
  environmentId: string
  environmentName: string
  projectId: string
  projectName: string
  clusterId: string
  clusterName: string
}

export interface GroupColumns {
  name: string
  entries: unknown[]
  scopes: string[]
}

const COLUMNS = ['id', 'organizationId', 'kind', 'name', 'entries', 'scopes', 'createdAt', 'updatedAt'] as const

const servicesUsingGroup = sql<number>`(select count(distinct r.service_id)::int from service_references r where r.organization_group_id = organization_groups.id)`

export function createOrganizationGroupsRepository(db: Db) {
  const selectRows = (organizationId: string, kind: GroupKind) =>
    db
      .selectFrom('organizationGroups')
      .select(COLUMNS)
      .select(servicesUsingGroup.as('associatedItemsCount'))
      .where('organizationId', '=', organizationId)
      .where('kind', '=', kind)

  const findById = (organizationId: string, kind: GroupKind, groupId: string): Promise<GroupRow | undefined> =>
    selectRows(organizationId, kind).where('id', '=', groupId).executeTakeFirst()

  return {
    list(organizationId: string, kind: GroupKind, limit: number): Promise<GroupRow[]> {
      return selectRows(organizationId, kind).orderBy(sql`lower(name)`).orderBy('id').limit(limit).execute()
    },

    findById,

    /** The groups of the organization among `ids` (the others are not its groups of that kind). */
    findMany(organizationId: string, kind: GroupKind, ids: string[]): Promise<GroupRow[]> {
      if (ids.length === 0) return Promise.resolve([])
      return selectRows(organizationId, kind).where('id', 'in', ids).execute()
    },

    async insert(organizationId: string, kind: GroupKind, columns: GroupColumns): Promise<GroupRow> {
      const row = await db
        .insertInto('organizationGroups')
        .values({ organizationId, kind, name: columns.name, entries: JSON.stringify(columns.entries), scopes: JSON.stringify(columns.scopes) })
        .returning(COLUMNS)
        .executeTakeFirstOrThrow()
      return { ...row, associatedItemsCount: 0 }
    },

    async update(organizationId: string, kind: GroupKind, groupId: string, columns: GroupColumns): Promise<GroupRow | undefined> {
      const updated = await db
        .updateTable('organizationGroups')
        .set({ name: columns.name, entries: JSON.stringify(columns.entries), scopes: JSON.stringify(columns.scopes), updatedAt: new Date() })
        .where('organizationId', '=', organizationId)
        .where('kind', '=', kind)
        .where('id', '=', groupId)
        .executeTakeFirst()
      return updated.numUpdatedRows > 0n ? findById(organizationId, kind, groupId) : undefined
    },

    /** Deletes the group unless services use it: undefined when there is no such group, else how many use it (0: deleted). */
    deleteUnlessUsed(organizationId: string, kind: GroupKind, groupId: string): Promise<{ usedBy: number } | undefined> {
      return deleteUnlessUsed(db, 'organizationGroups', { organizationId, kind, id: groupId }, servicesUsingGroup)
    },

    /** The services the group is attached to, by name. */
    associatedItems(groupId: string): Promise<AssociatedItemRow[]> {
      return db
        .selectFrom('serviceReferences as r')
        .innerJoin('services as s', 's.id', 'r.serviceId')
        .innerJoin('environments as e', 'e.id', 's.environmentId')
        .innerJoin('projects as p', 'p.id', 'e.projectId')
        .innerJoin('clusters as c', 'c.id', 'e.clusterId')
        .select(SERVICE_PLACE_COLUMNS)
        .select([
          's.kind',
          sql<boolean>`coalesce(s.configuration -> 'schedule' ? 'cronjob', false)`.as('cronJob'),
          'c.id as clusterId',
          'c.name as clusterName',
        ])
        .where('r.organizationGroupId', '=', groupId)
        .orderBy(sql`lower(s.name)`)
        .orderBy('s.id')
        .execute()
    },
  }
}

export type OrganizationGroupsRepository = ReturnType<typeof createOrganizationGroupsRepository>
