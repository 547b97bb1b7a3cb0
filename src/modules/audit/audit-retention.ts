import type { Db } from '#src/platform/db/database.ts'
import { createAuditRepository } from './audit.repository.ts'

const DAY_MS = 86_400_000
/** How often a runner looks for events past the retention. */
const PRUNE_EVERY_MS = 3_600_000

/**
 * The runner's part of the audit log: deletes events older than BERTH_AUDIT_RETENTION_DAYS, at
 * start and then every hour. Several runners may prune at once; each deletes what it finds.
 */
export function createAuditRetention(settings: { db: Db; retentionDays: number; log: { warn(fields: object, message: string): void } }) {
  const repo = createAuditRepository(settings.db)
  let timer: NodeJS.Timeout | undefined
  let pruning: Promise<void> = Promise.resolve()

  const prune = () => {
    pruning = (async () => {
      const before = new Date(Date.now() - settings.retentionDays * DAY_MS)
      while ((await repo.prune(before)) > 0) {}
    })().catch((error: unknown) => settings.log.warn({ err: error }, 'could not prune the audit log'))
  }

  return {
    start(): void {
      if (timer) return
      prune()
      timer = setInterval(prune, PRUNE_EVERY_MS)
      timer.unref()
    },
    async stop(): Promise<void> {
      clearInterval(timer)
      timer = undefined
      await pruning
    },
  }
}
