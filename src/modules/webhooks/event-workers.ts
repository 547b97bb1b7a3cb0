import { createAuditRetention } from '#src/modules/audit/audit-retention.ts'
import type { Db } from '#src/platform/db/database.ts'
import type { SecretBox } from '#src/platform/secrets/secret-box.ts'
import { createConfiguredWebhookDeliverer } from './webhook-deliverer.ts'

/**
 * What a process that runs deployments does for issue 45, from the server's settings: deliver the
 * webhooks' outbox, and prune the audit log past BERTH_AUDIT_RETENTION_DAYS.
 */
export function createEventWorkers(
  config: Parameters<typeof createConfiguredWebhookDeliverer>[0] & { audit: { retentionDays: number } },
  db: Db,
  secrets: SecretBox,
  log: { warn(fields: object, message: string): void },
) {
  const deliverer = createConfiguredWebhookDeliverer(config, db, secrets, log)
  const retention = createAuditRetention({ db, retentionDays: config.audit.retentionDays, log })
  return {
    start(): void {
      deliverer.start()
      retention.start()
    },
    async stop(): Promise<void> {
      await Promise.all([deliverer.stop(), retention.stop()])
    },
  }
}

export type EventWorkers = ReturnType<typeof createEventWorkers>
