import { type ExpressionBuilder, type Insertable, type Selectable, sql, type Updateable } from 'kysely'
import type { Db } from '#src/platform/db/database.ts'
import type { Database, ProjectsTable } from '#src/platform/db/schema.ts'

export type ProjectRow = Selectable<ProjectsTable>
/** A project with the number of its environments, as every response shows it. */
export type ProjectRecord = ProjectRow & { environmentsCount: number }

const environmentsCount = (eb: ExpressionBuilder<Database, 'projects'>) =>
  eb
    .selectFrom('environments')
    .select(sql<number>`count(*)::int`.as('count'))
    .whereRef('environments.projectId', '=', 'projects.id')
    .$asScalar()
    .$notNull()
    .as('environmentsCount')

export function createProjectsRepository(db: Db) {
  return {
    findById(projectId: string): Promise<ProjectRecord | undefined> {
      return db.selectFrom('projects').selectAll('projects').select(environmentsCount).where('id', '=', projectId).executeTakeFirst()
    },

    list(organizationId: string, limit: number): Promise<ProjectRecord[]> {
      return db
        .selectFrom('projects')
        .selectAll('projects')
        .select(environmentsCount)
        .where('organizationId', '=', organizationId)
        .orderBy((eb) => eb.fn('lower', ['name']))
        .orderBy('id')
        .limit(limit)
        .execute()
    },

    async insert(values: Insertable<ProjectsTable>): Promise<ProjectRecord> {
      const row = await db.insertInto('projects').values(values).returningAll().executeTakeFirstOrThrow()
      return { ...row, environmentsCount: 0 }
    },

    update(organizationId: string, projectId: string, changes: Updateable<ProjectsTable>): Promise<ProjectRecord | undefined> {
      return db
        .updateTable('projects')
        .set({ ...changes, updatedAt: new Date() })
        .where('organizationId', '=', organizationId)
        .where('id', '=', projectId)
        .returningAll()
        .returning(environmentsCount)
        .executeTakeFirst()
    },

    async delete(organizationId: string, projectId: string): Promise<boolean> {
      const result = await db.deleteFrom('projects').where('organizationId', '=', organizationId).where('id', '=', projectId).executeTakeFirst()
      return result.numDeletedRows > 0n
    },
  }
}

export type ProjectsRepository = ReturnType<typeof createProjectsRepository>
