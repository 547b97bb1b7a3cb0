import type { Selectable } from 'kysely'
import type { Db } from '#src/platform/db/database.ts'
import type { EnvironmentDeploymentRulesTable } from '#src/platform/db/schema.ts'

// Environments' deployment rules as rows (migration 0030): one per environment once edited.

export type DeploymentRuleRow = Selectable<EnvironmentDeploymentRulesTable>

export interface DeploymentRuleEdit {
  onDemandPreview: boolean
  autoStop: boolean
  timezone: string
  startTime: Date
  stopTime: Date
  weekdays: string[]
}

export function createDeploymentRulesRepository(db: Db) {
  return {
    find: (environmentId: string): Promise<DeploymentRuleRow | undefined> =>
      db.selectFrom('environmentDeploymentRules').selectAll().where('environmentId', '=', environmentId).executeTakeFirst(),

    /** Writes the rule and the environment's `auto_preview` together. */
    put(environmentId: string, edit: DeploymentRuleEdit, autoPreview: boolean): Promise<DeploymentRuleRow> {
      return db.transaction().execute(async (trx) => {
        await trx.updateTable('environments').set({ autoPreview, updatedAt: new Date() }).where('id', '=', environmentId).execute()
        const values = { ...edit, weekdays: JSON.stringify(edit.weekdays) }
        return trx
          .insertInto('environmentDeploymentRules')
          .values({ environmentId, ...values })
          .onConflict((oc) => oc.column('environmentId').doUpdateSet({ ...values, updatedAt: new Date() }))
          .returningAll()
          .executeTakeFirstOrThrow()
      })
    },
  }
}

export type DeploymentRulesRepository = ReturnType<typeof createDeploymentRulesRepository>
