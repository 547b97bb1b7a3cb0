import type { Selectable } from 'kysely'
import type { Db } from '#src/platform/db/database.ts'
import { findRow } from '#src/platform/db/rows-by-keys.ts'
import { type AlertReceiversTable, type AlertRulesTable, withAlertingTables } from './alerting.tables.ts'

// The alerting tables (migration 0053), and the few reads of other tables the rules' checks need.

export function createAlertingRepository(plain: Db) {
  const db = withAlertingTables(plain)
  return {
    findReceiver: (id: string) => db.selectFrom('alertReceivers').selectAll().where('id', '=', id).executeTakeFirst(),
    listReceivers: (organizationId: string, limit: number) =>
      db.selectFrom('alertReceivers').selectAll().where('organizationId', '=', organizationId).orderBy('name').orderBy('id').limit(limit).execute(),
    insertReceiver: (row: ReceiverColumns & { organizationId: string }) =>
      db
        .insertInto('alertReceivers')
        .values({ ...row, settings: JSON.stringify(row.settings) })
        .returningAll()
        .executeTakeFirstOrThrow(),
    updateReceiver: (id: string, row: ReceiverColumns) =>
      db
        .updateTable('alertReceivers')
        .set({ ...row, settings: JSON.stringify(row.settings), updatedAt: new Date() })
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirst(),
    deleteReceiver: (id: string) => db.deleteFrom('alertReceivers').where('id', '=', id).executeTakeFirst(),
    rulesUsingReceiver: (id: string) =>
      db
        .selectFrom('alertRules')
        .select('id')
        .where((eb) => eb(eb.val(id), '=', eb.fn.any('alertReceiverIds')))
        .execute(),
    countReceiversOf: async (organizationId: string, ids: string[]) =>
      (await db.selectFrom('alertReceivers').select('id').where('organizationId', '=', organizationId).where('id', 'in', ids).execute()).length,

    findRule: (id: string) => db.selectFrom('alertRules').selectAll().where('id', '=', id).executeTakeFirst(),
    listRules: (organizationId: string, limit: number) =>
      db.selectFrom('alertRules').selectAll().where('organizationId', '=', organizationId).orderBy('name').orderBy('id').limit(limit).execute(),
    insertRule: (row: RuleColumns & { organizationId: string; clusterId: string; targetType: string; targetId: string; targetName: string }) =>
      db
        .insertInto('alertRules')
        .values({ ...row, condition: JSON.stringify(row.condition), presentation: JSON.stringify(row.presentation) })
        .returningAll()
        .executeTakeFirstOrThrow(),
    updateRule: (id: string, row: RuleColumns) =>
      db
        .updateTable('alertRules')
        .set((eb) => ({
          ...row,
          condition: JSON.stringify(row.condition),
          presentation: JSON.stringify(row.presentation),
          version: eb('version', '+', 1),
          updatedAt: new Date(),
        }))
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirst(),
    deleteRule: (id: string) => db.deleteFrom('alertRules').where('id', '=', id).executeTakeFirst(),

    clusterOf: (organizationId: string, clusterId: string) => findRow(db, 'clusters', { organizationId, id: clusterId }, ['id', 'name', 'executor']),
    clusterById: (clusterId: string) =>
      db.selectFrom('clusters').select(['id', 'organizationId', 'name', 'executor', 'isDefault']).where('id', '=', clusterId).executeTakeFirst(),
    serviceOf: (organizationId: string, serviceId: string) => findRow(db, 'services', { organizationId, id: serviceId }, ['id', 'name', 'kind']),
    environmentOf: (organizationId: string, environmentId: string) =>
      findRow(db, 'environments', { organizationId, id: environmentId }, ['id', 'name']),
  }
}

/** What a create or an edit sets of a receiver; its settings are written as JSON. */
export type ReceiverColumns = Omit<Selectable<AlertReceiversTable>, 'id' | 'organizationId' | 'createdAt' | 'updatedAt'>

/** What an edit sets of a rule (a create adds its organization, cluster and target); condition and presentation are written as JSON. */
export type RuleColumns = Omit<
  Selectable<AlertRulesTable>,
  'id' | 'organizationId' | 'clusterId' | 'targetType' | 'targetId' | 'targetName' | 'version' | 'createdAt' | 'updatedAt'
>

export type AlertingRepository = ReturnType<typeof createAlertingRepository>
