import type { Insertable, Selectable, Updateable } from 'kysely'
import type { Db } from '#src/platform/db/database.ts'
import { retryTransactionConflicts } from '#src/platform/db/errors.ts'
import { updateRow } from '#src/platform/db/rows-by-keys.ts'
import type { EnvironmentsTable } from '#src/platform/db/schema.ts'

export type EnvironmentRow = Selectable<EnvironmentsTable>
/** An environment with what responses show of its cluster. */
export type EnvironmentRecord = EnvironmentRow & { clusterName: string; clusterCloudProvider: string; clusterRegion: string }
export type EnvironmentChanges = Pick<Updateable<EnvironmentsTable>, 'name' | 'mode' | 'autoPreview'>

export function createEnvironmentsRepository(db: Db) {
  const withCluster = () =>
    db
      .selectFrom('environments as e')
      .innerJoin('clusters as c', 'c.id', 'e.clusterId')
      .selectAll('e')
      .select(['c.name as clusterName', 'c.cloudProvider as clusterCloudProvider', 'c.region as clusterRegion'])

  const findById = (environmentId: string): Promise<EnvironmentRecord | undefined> =>
    withCluster().where('e.id', '=', environmentId).executeTakeFirst()

  return {
    findById,

    list(organizationId: string, projectId: string, limit: number): Promise<EnvironmentRecord[]> {
      return withCluster()
        .where('e.organizationId', '=', organizationId)
        .where('e.projectId', '=', projectId)
        .orderBy((eb) => eb.fn('lower', ['e.name']))
        .orderBy('e.id')
        .limit(limit)
        .execute()
    },

    /**
     * One statement: read in a second one, an environment deleted in between would be missing from
     * its own create. Its foreign keys' checks lock the project and then the organization, the other
     * order from an organization delete's: PostgreSQL may abort it as a deadlock's victim, and it
     * runs again (then finding the project gone, if the delete won).
     */
    insert(values: Insertable<EnvironmentsTable>): Promise<EnvironmentRecord> {
      return retryTransactionConflicts(() =>
        db
          .with('e', (cte) => cte.insertInto('environments').values(values).returningAll())
          .selectFrom('e')
          .innerJoin('clusters as c', 'c.id', 'e.clusterId')
          .selectAll('e')
          .select(['c.name as clusterName', 'c.cloudProvider as clusterCloudProvider', 'c.region as clusterRegion'])
          .executeTakeFirstOrThrow(),
      )
    },

    async update(organizationId: string, environmentId: string, changes: EnvironmentChanges): Promise<EnvironmentRecord | undefined> {
      const updated = await updateRow(db, 'environments', { organizationId, id: environmentId }, changes)
      return updated && findById(environmentId)
    },

    /**
     * Its helm services go with it (foreign keys cascade). Locks are taken in the order
     * organization and project deletes take them: the organization and the project (key shares,
     * which wait for their deletes), then the environment.
     */
    delete(organizationId: string, projectId: string, environmentId: string): Promise<boolean> {
      return retryTransactionConflicts(() =>
        db.transaction().execute(async (trx) => {
          await trx.selectFrom('organizations').select('id').where('id', '=', organizationId).forKeyShare().execute()
          await trx.selectFrom('projects').select('id').where('id', '=', projectId).forKeyShare().execute()
          const result = await trx
            .deleteFrom('environments')
            .where('organizationId', '=', organizationId)
            .where('id', '=', environmentId)
            .executeTakeFirst()
          return result.numDeletedRows > 0n
        }),
      )
    },
  }
}

export type EnvironmentsRepository = ReturnType<typeof createEnvironmentsRepository>
