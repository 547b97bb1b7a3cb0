import type { Insertable, Selectable } from 'kysely'
import { sql } from 'kysely'
import { deleteRows } from '#src/platform/db/rows-by-keys.ts'
import type { DeploymentRulesDb, ProjectDeploymentRulesTable } from './deployment-rules.tables.ts'

// Projects' deployment rules as rows: listed in priority order (priority_index, then creation).

export type DeploymentRuleRow = Selectable<ProjectDeploymentRulesTable>
export type DeploymentRuleValues = Omit<
  Insertable<ProjectDeploymentRulesTable>,
  'id' | 'organizationId' | 'projectId' | 'priorityIndex' | 'createdAt' | 'updatedAt'
>

export function createProjectDeploymentRulesRepository(db: DeploymentRulesDb) {
  const rules = () => db.selectFrom('projectDeploymentRules').selectAll()
  return {
    list(organizationId: string, projectId: string): Promise<DeploymentRuleRow[]> {
      return rules()
        .where('organizationId', '=', organizationId)
        .where('projectId', '=', projectId)
        .orderBy('priorityIndex')
        .orderBy('createdAt')
        .orderBy('id')
        .execute()
    },

    find(organizationId: string, projectId: string, ruleId: string): Promise<DeploymentRuleRow | undefined> {
      return rules().where('organizationId', '=', organizationId).where('projectId', '=', projectId).where('id', '=', ruleId).executeTakeFirst()
    },

    /** A new rule goes last in its project's order. */
    insert(organizationId: string, projectId: string, values: DeploymentRuleValues): Promise<DeploymentRuleRow> {
      const last = db
        .selectFrom('projectDeploymentRules')
        .select(sql<number>`coalesce(max(priority_index) + 1, 0)`.as('next'))
        .where('projectId', '=', projectId)
      return db
        .insertInto('projectDeploymentRules')
        .values({ ...values, organizationId, projectId, priorityIndex: last })
        .returningAll()
        .executeTakeFirstOrThrow()
    },

    update(organizationId: string, projectId: string, ruleId: string, values: DeploymentRuleValues): Promise<DeploymentRuleRow | undefined> {
      return db
        .updateTable('projectDeploymentRules')
        .set({ ...values, updatedAt: new Date() })
        .where('organizationId', '=', organizationId)
        .where('projectId', '=', projectId)
        .where('id', '=', ruleId)
        .returningAll()
        .executeTakeFirst()
    },

    delete(organizationId: string, projectId: string, ruleId: string): Promise<boolean> {
      return deleteRows(db, 'projectDeploymentRules', { organizationId, projectId, id: ruleId })
    },

    /** Gives the rules their places in `orderedIds` (0, 1, …), in one transaction; the project's rows are locked first. */
    reorder(projectId: string, orderedIds: string[]): Promise<void> {
      return db.transaction().execute(async (trx) => {
        await trx.selectFrom('projectDeploymentRules').select('id').where('projectId', '=', projectId).forUpdate().execute()
        for (const [index, id] of orderedIds.entries()) {
          await trx
            .updateTable('projectDeploymentRules')
            .set({ priorityIndex: index })
            .where('projectId', '=', projectId)
            .where('id', '=', id)
            .execute()
        }
      })
    },
  }
}

export type ProjectDeploymentRulesRepository = ReturnType<typeof createProjectDeploymentRulesRepository>
