import { randomUUID } from 'node:crypto'
import type { Insertable, Selectable, Updateable } from 'kysely'
import type { Db } from '#src/platform/db/database.ts'
import { deleteRows, updateRow } from '#src/platform/db/rows-by-keys.ts'
import type { OrganizationWebhooksTable, WebhookAttemptsTable } from '#src/platform/db/schema.ts'

export type WebhookRow = Selectable<OrganizationWebhooksTable>
export type WebhookAttemptRow = Selectable<WebhookAttemptsTable>

/** The webhooks an organization configured, and the attempts made at delivering to them. */
export function createWebhooksRepository(db: Db) {
  const webhooks = (organizationId: string) => db.selectFrom('organizationWebhooks').selectAll().where('organizationId', '=', organizationId)

  return {
    list(organizationId: string, limit: number): Promise<WebhookRow[]> {
      return webhooks(organizationId).orderBy('createdAt').orderBy('id').limit(limit).execute()
    },

    findById(organizationId: string, webhookId: string): Promise<WebhookRow | undefined> {
      return webhooks(organizationId).where('id', '=', webhookId).executeTakeFirst()
    },

    insert(values: Insertable<OrganizationWebhooksTable>): Promise<WebhookRow> {
      return db.insertInto('organizationWebhooks').values(values).returningAll().executeTakeFirstOrThrow()
    },

    update(organizationId: string, webhookId: string, changes: Updateable<OrganizationWebhooksTable>): Promise<WebhookRow | undefined> {
      return updateRow(db, 'organizationWebhooks', { organizationId, id: webhookId }, changes)
    },

    delete(organizationId: string, webhookId: string): Promise<boolean> {
      return deleteRows(db, 'organizationWebhooks', { organizationId, id: webhookId })
    },

    /** Queues a delivery of made-up facts to the webhook (a test); its id. */
    async insertTestDelivery(organizationId: string, webhookId: string, event: string, facts: object): Promise<string> {
      const row = await db
        .insertInto('webhookDeliveries')
        .values({ organizationId, webhookId, event, executionId: randomUUID(), facts: JSON.stringify(facts) })
        .returning('id')
        .executeTakeFirstOrThrow()
      return row.id
    },

    /** The webhook's attempts, newest first. */
    listAttempts(organizationId: string, webhookId: string, limit: number): Promise<(WebhookAttemptRow & { executionId: string })[]> {
      return db
        .selectFrom('webhookAttempts as a')
        .innerJoin('webhookDeliveries as d', 'd.id', 'a.deliveryId')
        .selectAll('a')
        .select('d.executionId')
        .where('a.organizationId', '=', organizationId)
        .where('a.webhookId', '=', webhookId)
        .orderBy('a.createdAt', 'desc')
        .orderBy('a.id', 'desc')
        .limit(limit)
        .execute()
    },
  }
}

export type WebhooksRepository = ReturnType<typeof createWebhooksRepository>
