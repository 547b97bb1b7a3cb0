import type { Insertable, Selectable, Updateable } from 'kysely'
import type { Db } from '#src/platform/db/database.ts'
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

    async insert(values: Insertable<EnvironmentsTable>): Promise<EnvironmentRecord> {
      const { id } = await db.insertInto('environments').values(values).returning('id').executeTakeFirstOrThrow()
      return (await findById(id))!
    },

    async update(organizationId: string, environmentId: string, changes: EnvironmentChanges): Promise<EnvironmentRecord | undefined> {
      const updated = await db
        .updateTable('environments')
        .set({ ...changes, updatedAt: new Date() })
        .where('organizationId', '=', organizationId)
        .where('id', '=', environmentId)
        .returning('id')
        .executeTakeFirst()
      return updated && findById(environmentId)
    },

    /** Its helm services go with it (foreign keys cascade). */
    async delete(organizationId: string, environmentId: string): Promise<boolean> {
      const result = await db
        .deleteFrom('environments')
        .where('organizationId', '=', organizationId)
        .where('id', '=', environmentId)
        .executeTakeFirst()
      return result.numDeletedRows > 0n
    },
  }
}

export type EnvironmentsRepository = ReturnType<typeof createEnvironmentsRepository>
