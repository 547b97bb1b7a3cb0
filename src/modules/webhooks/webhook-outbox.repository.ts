import { sql } from 'kysely'
import type { Db } from '#src/platform/db/database.ts'
import type { DeploymentFacts } from './webhook-bodies.ts'
import type { WebhookEvent, WebhookKind } from './webhooks.schemas.ts'

/** A delivery a runner claimed, with its webhook as it is now (an edit takes effect at once). */
export interface ClaimedDelivery {
  id: string
  organizationId: string
  webhookId: string
  event: WebhookEvent
  executionId: string
  facts: DeploymentFacts
  attempts: number
  kind: WebhookKind
  targetUrl: string
  targetSecretSealed: Buffer | null
  enabled: boolean
}

/** What one attempt sent and got back. */
export interface AttemptRecord {
  kind: WebhookKind
  targetUrl: string
  request: object
  statusCode: number
  responseBody: string | null
}

/** How a delivery goes on after an attempt. */
export type NextStep = { state: 'DELIVERED' } | { state: 'FAILED' } | { state: 'PENDING'; retryInMs: number }

// The webhooks' outbox as runners work it: claim what is due, record each attempt, give up in the end.
export function createWebhookOutboxRepository(db: Db) {
  return {
    /**
     * Claims up to `limit` due deliveries for `leaseMs`, at most one per webhook: the oldest due one
     * of a webhook no runner is delivering to (so a slow receiver holds no other), skipping rows
     * another runner is claiming at this moment.
     */
    async claim(limit: number, leaseMs: number): Promise<ClaimedDelivery[]> {
      const result = await sql<ClaimedDelivery>`
        with candidates as (
          select distinct on (d.webhook_id) d.id from webhook_deliveries d
           where d.state = 'PENDING' and d.next_attempt_at <= clock_timestamp()
             and (d.lease_expires_at is null or d.lease_expires_at < clock_timestamp())
             and not exists (
               select 1 from webhook_deliveries held
                where held.webhook_id = d.webhook_id and held.state = 'PENDING' and held.lease_expires_at >= clock_timestamp())
           order by d.webhook_id, d.next_attempt_at, d.created_at
        ), due as (
          select id from webhook_deliveries where id in (select id from candidates)
           order by next_attempt_at limit ${limit}
           for update skip locked
        )
        update webhook_deliveries d
           set lease_expires_at = clock_timestamp() + make_interval(secs => ${leaseMs / 1000})
          from due, organization_webhooks w
         where d.id = due.id and w.id = d.webhook_id
        returning d.id, d.organization_id as "organizationId", d.webhook_id as "webhookId", d.event, d.execution_id as "executionId",
                  d.facts, d.attempts, w.kind, w.target_url as "targetUrl", w.target_secret_sealed as "targetSecretSealed", w.enabled
      `.execute(db)
      return result.rows
    },

    /** Records an attempt and what follows it, in one transaction. */
    async recordAttempt(delivery: ClaimedDelivery, attempt: AttemptRecord | undefined, next: NextStep): Promise<void> {
      await db.transaction().execute(async (trx) => {
        if (attempt) {
          await trx
            .insertInto('webhookAttempts')
            .values({
              organizationId: delivery.organizationId,
              webhookId: delivery.webhookId,
              deliveryId: delivery.id,
              kind: attempt.kind,
              matchedEvent: delivery.event,
              targetUrlUsed: attempt.targetUrl,
              request: JSON.stringify(attempt.request),
              statusCode: attempt.statusCode,
              responseBody: attempt.responseBody,
            })
            .execute()
        }
        await trx
          .updateTable('webhookDeliveries')
          .set({
            state: next.state,
            attempts: sql<number>`attempts + ${attempt ? 1 : 0}`,
            leaseExpiresAt: null,
            ...(next.state === 'PENDING'
              ? { nextAttemptAt: sql<Date>`clock_timestamp() + make_interval(secs => ${next.retryInMs / 1000})` }
              : { endedAt: sql<Date>`clock_timestamp()` }),
          })
          .where('id', '=', delivery.id)
          .execute()
      })
    },

    /** When the next delivery is due (undefined: none is pending), so that an idle runner sleeps until then. */
    async nextDue(): Promise<Date | undefined> {
      const row = await db
        .selectFrom('webhookDeliveries')
        .select((eb) => eb.fn.min('nextAttemptAt').as('due'))
        .where('state', '=', 'PENDING')
        .executeTakeFirst()
      return row?.due ?? undefined
    },
  }
}

export type WebhookOutboxRepository = ReturnType<typeof createWebhookOutboxRepository>
