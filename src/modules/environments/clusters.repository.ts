import type { Insertable, Selectable } from 'kysely'
import type { Db } from '#src/platform/db/database.ts'
import type { ClustersTable } from '#src/platform/db/schema.ts'

export type ClusterRow = Selectable<ClustersTable>
export type NewCluster = Omit<Insertable<ClustersTable>, 'organizationId' | 'isDefault'>

/** Clusters have no API of their own: environments read them, and make each organization's default one. */
export function createClustersRepository(db: Db) {
  return {
    findById(organizationId: string, clusterId: string): Promise<ClusterRow | undefined> {
      return db.selectFrom('clusters').selectAll().where('organizationId', '=', organizationId).where('id', '=', clusterId).executeTakeFirst()
    },

    findDefault(organizationId: string): Promise<ClusterRow | undefined> {
      return db.selectFrom('clusters').selectAll().where('organizationId', '=', organizationId).where('isDefault', '=', true).executeTakeFirst()
    },

    /** Inserts the default cluster unless one exists (`clusters_default_key`); undefined when it did. */
    insertDefaultIfMissing(organizationId: string, values: NewCluster): Promise<ClusterRow | undefined> {
      return db
        .insertInto('clusters')
        .values({ ...values, organizationId, isDefault: true })
        .onConflict((oc) => oc.column('organizationId').where('isDefault', '=', true).doNothing())
        .returningAll()
        .executeTakeFirst()
    },
  }
}

export type ClustersRepository = ReturnType<typeof createClustersRepository>
