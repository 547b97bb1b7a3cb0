import { sql } from 'kysely'
import type { Db } from '#src/platform/db/database.ts'

/** An organization's webhook secret as stored: sealed. */
export interface StoredWebhookSecret {
  secretSealed: Buffer
  createdAt: Date
  rotatedAt: Date
}

export function createGitWebhooksRepository(db: Db) {
  return {
    async findSecret(organizationId: string): Promise<StoredWebhookSecret | undefined> {
      return db
        .selectFrom('gitWebhookSecrets')
        .select(['secretSealed', 'createdAt', 'rotatedAt'])
        .where('organizationId', '=', organizationId)
        .executeTakeFirst()
    },

    /** Sets the organization's secret, replacing the one it had; undefined when the organization is gone. */
    async putSecret(organizationId: string, secretSealed: Buffer): Promise<StoredWebhookSecret | undefined> {
      return db
        .insertInto('gitWebhookSecrets')
        .columns(['organizationId', 'secretSealed', 'rotatedAt'])
        .expression((eb) =>
          eb
            .selectFrom('organizations')
            .select([sql<string>`id`.as('organizationId'), sql<Buffer>`${secretSealed}::bytea`.as('secretSealed'), sql<Date>`now()`.as('rotatedAt')])
            .where('id', '=', organizationId),
        )
        .onConflict((oc) => oc.column('organizationId').doUpdateSet({ secretSealed, rotatedAt: sql`now()` }))
        .returning(['secretSealed', 'createdAt', 'rotatedAt'])
        .executeTakeFirst()
    },

    async deleteSecret(organizationId: string): Promise<boolean> {
      const result = await db.deleteFrom('gitWebhookSecrets').where('organizationId', '=', organizationId).executeTakeFirst()
      return result.numDeletedRows > 0n
    },

    /**
     * Remembers a delivery; false when it was already remembered (a replay). Deliveries older
     * than `keepDays` are forgotten on the way.
     */
    async rememberDelivery(organizationId: string, provider: string, deliveryId: string, keepDays: number): Promise<boolean> {
      await db.deleteFrom('gitWebhookDeliveries').where('receivedAt', '<', sql<Date>`now() - make_interval(days => ${keepDays})`).execute()
      const inserted = await db
        .insertInto('gitWebhookDeliveries')
        .values({ organizationId, provider, deliveryId })
        .onConflict((oc) => oc.columns(['organizationId', 'provider', 'deliveryId']).doNothing())
        .returning('deliveryId')
        .executeTakeFirst()
      return inserted !== undefined
    },

    /** Forgets a delivery whose deployments could not be queued, so that the provider's retry is acted on. */
    async forgetDelivery(organizationId: string, provider: string, deliveryId: string): Promise<void> {
      await db
        .deleteFrom('gitWebhookDeliveries')
        .where('organizationId', '=', organizationId)
        .where('provider', '=', provider)
        .where('deliveryId', '=', deliveryId)
        .execute()
    },
  }
}

export type GitWebhooksRepository = ReturnType<typeof createGitWebhooksRepository>
