import { type ExpressionBuilder, type Insertable, type Selectable, sql, type Updateable } from 'kysely'
import type { Db } from '#src/platform/db/database.ts'
import { retryTransactionConflicts } from '#src/platform/db/errors.ts'
import { deleteRows, lockRow, lockRows } from '#src/platform/db/rows-by-keys.ts'
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

    /**
     * Marks the project as being deleted (migration 0043: it goes with its last environment); the
     * ids of its environments, undefined when there is no such project.
     */
    async markDeleting(organizationId: string, projectId: string): Promise<string[] | undefined> {
      const marked = await db
        .updateTable('projects')
        .set({ deletingAt: sql`coalesce(deleting_at, now())` })
        .where('organizationId', '=', organizationId)
        .where('id', '=', projectId)
        .returning('id')
        .executeTakeFirst()
      if (!marked) return undefined
      const environments = await db.selectFrom('environments').select('id').where('projectId', '=', projectId).orderBy('id').execute()
      return environments.map((row) => row.id)
    },

    /**
     * Deletes the project and, by cascade, its environments and their services, taking locks in
     * the order organization deletes do (organizations.repository.ts): its organization (a key
     * share, which waits for that organization's delete), the project, then its environments.
     */
    /** The ids of the environments that went with it; undefined when there was no such project. */
    delete(organizationId: string, projectId: string): Promise<{ environmentIds: string[] } | undefined> {
      return retryTransactionConflicts(() =>
        db.transaction().execute(async (trx) => {
          await trx.selectFrom('organizations').select('id').where('id', '=', organizationId).forKeyShare().execute()
          if (!(await lockRow(trx, 'projects', { organizationId, id: projectId }))) return undefined
          const environmentIds = await lockRows(trx, 'environments', { projectId })
          return (await deleteRows(trx, 'projects', { id: projectId })) ? { environmentIds } : undefined
        }),
      )
    },
  }
}

export type ProjectsRepository = ReturnType<typeof createProjectsRepository>
