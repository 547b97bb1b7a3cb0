import { type ColumnType, type Kysely, sql } from 'kysely'
import type { Db } from '#src/platform/db/database.ts'
import { deleteRows } from '#src/platform/db/rows-by-keys.ts'
import type { Database } from '#src/platform/db/schema.ts'

/** The time of the last event applied to each pull request (migration 0047). */
interface PullRequestMarksTable {
  organizationId: string
  provider: string
  repository: string
  number: number
  lastEventAt: Date
  updatedAt: ColumnType<Date, Date | undefined, Date>
}

// A type alias, not an interface: Kysely needs its index signature.
type GitWebhookTables = { pullRequestMarks: PullRequestMarksTable }

/** An organization's webhook secret as stored: sealed. */
export interface StoredWebhookSecret {
  secretSealed: Buffer
  createdAt: Date
  rotatedAt: Date
}

export function createGitWebhooksRepository(db: Db) {
  const marks: Kysely<Database & GitWebhookTables> = db.withTables<GitWebhookTables>()
  return {
    /**
     * Records that an event of the pull request from `eventAt` is applied; false when one from later
     * was applied already (this one is older: it changes nothing). Events of the same time pass.
     */
    async markPullRequest(organizationId: string, provider: string, repository: string, number: number, eventAt: Date): Promise<boolean> {
      const marked = await marks
        .insertInto('pullRequestMarks')
        .values({ organizationId, provider, repository, number, lastEventAt: eventAt })
        .onConflict((oc) =>
          oc
            .columns(['organizationId', 'provider', 'repository', 'number'])
            .doUpdateSet({ lastEventAt: eventAt, updatedAt: sql<Date>`now()` })
            .where('pullRequestMarks.lastEventAt', '<=', eventAt),
        )
        .returning('number')
        .executeTakeFirst()
      return marked !== undefined
    },

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

    deleteSecret(organizationId: string): Promise<boolean> {
      return deleteRows(db, 'gitWebhookSecrets', { organizationId })
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
