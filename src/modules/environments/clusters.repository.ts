import { type Insertable, type Selectable, sql, type Updateable } from 'kysely'
import type { Db } from '#src/platform/db/database.ts'
import { deleteUnlessUsed } from '#src/platform/db/delete-unless-used.ts'
import { hasRow, updateRow } from '#src/platform/db/rows-by-keys.ts'
import type { ClustersTable } from '#src/platform/db/schema.ts'

export type ClusterRow = Selectable<ClustersTable>
export type NewCluster = Omit<Insertable<ClustersTable>, 'organizationId' | 'isDefault'>

const environmentsOnCluster = sql<number>`(select count(*)::int from environments e where e.cluster_id = clusters.id)`

/** Clusters: environments read them and make each organization's default one; src/modules/clusters serves them. */
export function createClustersRepository(db: Db) {
  return {
    findById(organizationId: string, clusterId: string): Promise<ClusterRow | undefined> {
      return db.selectFrom('clusters').selectAll().where('organizationId', '=', organizationId).where('id', '=', clusterId).executeTakeFirst()
    },

    /** Whether the cluster is one of the organization's. */
    isClusterOf(organizationId: string, clusterId: string): Promise<boolean> {
      return hasRow(db, 'clusters', { organizationId, id: clusterId })
    },

    /** Whether the organization has this container registry (a cluster's image_registry_id). */
    hasContainerRegistry(organizationId: string, registryId: string): Promise<boolean> {
      return hasRow(db, 'containerRegistries', { organizationId, id: registryId })
    },

    findDefault(organizationId: string): Promise<ClusterRow | undefined> {
      return db.selectFrom('clusters').selectAll().where('organizationId', '=', organizationId).where('isDefault', '=', true).executeTakeFirst()
    },

    /**
     * Inserts the default cluster unless one exists; undefined when it did. No conflict target: two
     * first inserts racing each other can also meet on `clusters_name_key` (same name), which a
     * target of `clusters_default_key` alone would let through as a unique violation (a 500).
     */
    insertDefaultIfMissing(organizationId: string, values: NewCluster): Promise<ClusterRow | undefined> {
      return db
        .insertInto('clusters')
        .values({ ...values, organizationId, isDefault: true })
        .onConflict((oc) => oc.doNothing())
        .returningAll()
        .executeTakeFirst()
    },

    list(organizationId: string, limit: number): Promise<ClusterRow[]> {
      return db
        .selectFrom('clusters')
        .selectAll()
        .where('organizationId', '=', organizationId)
        .orderBy('isDefault', 'desc')
        .orderBy(sql`lower(name)`)
        .orderBy('id')
        .limit(limit)
        .execute()
    },

    insert(organizationId: string, values: NewCluster): Promise<ClusterRow> {
      return db
        .insertInto('clusters')
        .values({ ...values, organizationId })
        .returningAll()
        .executeTakeFirstOrThrow()
    },

    update(organizationId: string, clusterId: string, values: Updateable<ClustersTable>): Promise<ClusterRow | undefined> {
      return updateRow(db, 'clusters', { organizationId, id: clusterId }, values)
    },

    /**
     * Sets the advanced settings of `set` and removes those of `reset`, in one statement, so that two
     * edits of different keys at once both hold; undefined when there is no such cluster.
     */
    mergeAdvancedSettings(organizationId: string, clusterId: string, set: Record<string, unknown>, reset: string[]): Promise<ClusterRow | undefined> {
      return db
        .updateTable('clusters')
        .set({
          advancedSettings: sql<string>`(advanced_settings || ${JSON.stringify(set)}::jsonb) - ${sql.val(reset)}::text[]`,
          updatedAt: new Date(),
        })
        .where('organizationId', '=', organizationId)
        .where('id', '=', clusterId)
        .returningAll()
        .executeTakeFirst()
    },

    /**
     * Deletes the cluster unless environments use it; undefined when there is no such cluster. The
     * cluster's row is locked first, so that an environment created on it meanwhile either is
     * counted or fails on its foreign key (which the service reports as the same conflict).
     */
    deleteUnlessUsed(organizationId: string, clusterId: string): Promise<{ usedBy: number } | undefined> {
      return deleteUnlessUsed(db, 'clusters', { organizationId, id: clusterId }, environmentsOnCluster)
    },
  }
}

export type ClustersRepository = ReturnType<typeof createClustersRepository>
