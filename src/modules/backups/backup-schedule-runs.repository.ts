// What runners do with backup schedules: queue the backups of those due, once across processes, and find the scheduled backups retention no longer keeps.
import { sql } from 'kysely'
import { nextFireAfter } from '#src/modules/services/kinds/job/cron-expressions.ts'
import type { BackupRow } from './backups.repository.ts'
import type { BackupsDb } from './backups.tables.ts'

/** A tick missed for longer than this (every runner down) is not made up for, but for one run. */
export const MISSED_TICK_GRACE_MS = 10_000

export function createBackupScheduleRunsRepository(db: BackupsDb) {
  return {
    /**
     * Queues a backup of every schedule due now, at most `limit`, each in its own transaction (the
     * row claimed FOR UPDATE SKIP LOCKED, its backup queued, its next fire time moved): how many.
     */
    async fireDueSchedules(limit: number, objectKey: (organizationId: string, serviceId: string, id: string, engine: string) => string) {
      const due = await db
        .selectFrom('databaseBackupSchedules')
        .select('serviceId')
        .where('nextFireAt', '<=', sql<Date>`now()`)
        .orderBy('nextFireAt')
        .limit(limit)
        .execute()
      let fired = 0
      for (const { serviceId } of due) {
        const queued = await db.transaction().execute(async (trx) => {
          const schedule = await trx
            .selectFrom('databaseBackupSchedules as s')
            .innerJoin('services as v', 'v.id', 's.serviceId')
            .select([
              's.serviceId',
              's.organizationId',
              's.cron',
              's.timezone',
              's.destinationId',
              's.nextFireAt',
              sql<string>`v.configuration->>'type'`.as('engine'),
            ])
            .where('s.serviceId', '=', serviceId)
            .where('s.nextFireAt', '<=', sql<Date>`now()`)
            .forUpdate('s')
            .skipLocked()
            .executeTakeFirst()
          if (!schedule) return false
          const { rows } = await sql<{ now: Date; id: string }>`select now() as now, gen_random_uuid() as id`.execute(trx)
          const { now, id } = rows[0]!
          let next = nextFireAfter(schedule.cron, schedule.timezone, schedule.nextFireAt)
          if (next && next.getTime() <= now.getTime() - MISSED_TICK_GRACE_MS) next = nextFireAfter(schedule.cron, schedule.timezone, now)
          await trx
            .insertInto('databaseBackups')
            .values({
              id,
              organizationId: schedule.organizationId,
              serviceId,
              destinationId: schedule.destinationId,
              engine: schedule.engine,
              name: `scheduled ${schedule.nextFireAt.toISOString()}`,
              message: `taken by the schedule "${schedule.cron}" (${schedule.timezone})`,
              origin: 'SCHEDULED',
              objectKey: objectKey(schedule.organizationId, serviceId, id, schedule.engine),
              createdBy: 'backup schedule',
            })
            .execute()
          if (next) await trx.updateTable('databaseBackupSchedules').set({ nextFireAt: next }).where('serviceId', '=', serviceId).execute()
          else await trx.deleteFrom('databaseBackupSchedules').where('serviceId', '=', serviceId).execute()
          return true
        })
        if (queued) fired++
      }
      return fired
    },

    /**
     * The scheduled backups of a database that its retention no longer keeps, after `newest` (a
     * success): beyond the newest `keepCount` that ended DONE, or older than `keepDays`; and failed
     * scheduled ones older than the oldest kept. Never `newest` itself.
     */
    async prunable(serviceId: string, newest: string, keepCount: number | null, keepDays: number | null): Promise<BackupRow[]> {
      const scheduled = await db
        .selectFrom('databaseBackups')
        .selectAll()
        .where('serviceId', '=', serviceId)
        .where('origin', '=', 'SCHEDULED')
        .where('status', 'in', ['DONE', 'ERROR'])
        .orderBy('createdAt', 'desc')
        .orderBy('id', 'desc')
        .execute()
      const { rows } = await sql<{ now: Date }>`select now() as now`.execute(db)
      const cutoff = keepDays === null ? undefined : rows[0]!.now.getTime() - keepDays * 86_400_000
      const done = scheduled.filter((row) => row.status === 'DONE')
      const kept = new Set(
        done
          .filter((row, index) => (keepCount === null || index < keepCount) && (cutoff === undefined || row.createdAt.getTime() >= cutoff))
          .map((row) => row.id),
      )
      kept.add(newest)
      const oldestKept = Math.min(...scheduled.filter((row) => kept.has(row.id)).map((row) => row.createdAt.getTime()))
      return scheduled.filter((row) => !kept.has(row.id) && (row.status === 'DONE' || row.createdAt.getTime() < oldestKept))
    },

    async deleteBackupRow(id: string): Promise<void> {
      await db.deleteFrom('databaseBackups').where('id', '=', id).execute()
    },

    findSchedule(serviceId: string) {
      return db.selectFrom('databaseBackupSchedules').selectAll().where('serviceId', '=', serviceId).executeTakeFirst()
    },
  }
}
