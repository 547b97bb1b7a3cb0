import { sql } from 'kysely'
import { nextFireAfter } from '#src/modules/services/kinds/job/cron-expressions.ts'
import type { Db } from '#src/platform/db/database.ts'
import type { BackupRow, RestoreRow } from './backups.repository.ts'
import { type BackupsDb, type JobStatus, withBackupTables } from './backups.tables.ts'

// What runners do with backups and restores (docs/backups.md, "How backups run"): claim the oldest
// queued job with FOR UPDATE SKIP LOCKED and hold it with a lease they renew; every write of a
// job they hold is fenced by that lease. A job whose runner died (its lease expired) ends ERROR:
// a dump or a restore cannot resume half-way. Schedules fire in one transaction each: the due row
// claimed, its backup queued and its next time moved, so several processes queue each tick once.

type Job = 'databaseBackups' | 'databaseRestores'

/** A tick missed for longer than this (every runner down) is not made up for, but for one run. */
export const MISSED_TICK_GRACE_MS = 10_000

export function createBackupRunsRepository(plain: Db) {
  const db: BackupsDb = withBackupTables(plain)

  async function claim<T extends Job>(table: T, owner: string, leaseMs: number) {
    return db.transaction().execute(async (trx) => {
      const next = await trx
        .selectFrom(table as Job)
        .select('id')
        .where('status', '=', 'QUEUED')
        .orderBy('createdAt')
        .limit(1)
        .forUpdate()
        .skipLocked()
        .executeTakeFirst()
      if (!next) return undefined
      return trx
        .updateTable(table as Job)
        .set({
          status: 'RUNNING',
          leaseOwner: owner,
          leaseExpiresAt: sql`clock_timestamp() + ${`${leaseMs} milliseconds`}::interval`,
          claims: sql`claims + 1`,
          startedAt: sql`clock_timestamp()`,
          updatedAt: sql`clock_timestamp()`,
        })
        .where('id', '=', next.id)
        .returningAll()
        .executeTakeFirstOrThrow()
    })
  }

  /** The job while `owner` holds it: every write below is fenced by it. */
  const held = (table: Job, id: string, owner: string) =>
    db.updateTable(table).where('id', '=', id).where('leaseOwner', '=', owner).where('status', '=', 'RUNNING')

  return {
    claimBackup: (owner: string, leaseMs: number) => claim('databaseBackups', owner, leaseMs) as Promise<BackupRow | undefined>,
    claimRestore: (owner: string, leaseMs: number) => claim('databaseRestores', owner, leaseMs) as Promise<RestoreRow | undefined>,

    /** Extends the lease; false when the job is no longer this runner's. */
    async renew(table: Job, id: string, owner: string, leaseMs: number): Promise<boolean> {
      const result = await held(table, id, owner)
        .set({ leaseExpiresAt: sql`clock_timestamp() + ${`${leaseMs} milliseconds`}::interval` })
        .executeTakeFirst()
      return result.numUpdatedRows > 0n
    },

    async appendLog(table: Job, id: string, owner: string, lines: string): Promise<void> {
      await held(table, id, owner)
        .set({ log: sql`log || ${lines}`, updatedAt: sql`clock_timestamp()` })
        .execute()
    },

    /** Ends the job held by `owner`: DONE (with what a backup made) or ERROR with its reason. */
    async finish(
      table: Job,
      id: string,
      owner: string,
      outcome: { status: Extract<JobStatus, 'DONE' | 'ERROR'>; error?: string; sizeBytes?: number; sha256?: string },
    ): Promise<boolean> {
      const made = table === 'databaseBackups' && outcome.status === 'DONE' ? { sizeBytes: outcome.sizeBytes, sha256: outcome.sha256 } : {}
      const result = await held(table, id, owner)
        .set({ status: outcome.status, error: outcome.error ?? null, ...made, endedAt: sql`clock_timestamp()`, updatedAt: sql`clock_timestamp()` })
        .executeTakeFirst()
      return result.numUpdatedRows > 0n
    },

    /** Ends the jobs whose runner's lease ran out: ERROR, interrupted. */
    async endAbandoned(table: Job): Promise<number> {
      const result = await db
        .updateTable(table)
        .set({
          status: 'ERROR',
          error: 'interrupted: the Berth process running it stopped before it ended (its lease ran out)',
          endedAt: sql`clock_timestamp()`,
          updatedAt: sql`clock_timestamp()`,
        })
        .where('status', '=', 'RUNNING')
        .where('leaseExpiresAt', '<', sql<Date>`clock_timestamp()`)
        .executeTakeFirst()
      return Number(result.numUpdatedRows)
    },

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
    findBackup(id: string) {
      return db.selectFrom('databaseBackups').selectAll().where('id', '=', id).executeTakeFirst()
    },
    findDestination(organizationId: string, id: string) {
      return db.selectFrom('backupDestinations').selectAll().where('organizationId', '=', organizationId).where('id', '=', id).executeTakeFirst()
    },
    findService(serviceId: string) {
      return db
        .selectFrom('services')
        .select(['id', 'organizationId', 'environmentId', 'name', 'kind', 'configuration'])
        .where('id', '=', serviceId)
        .executeTakeFirst()
    },
    deploymentRunning: async (serviceId: string) =>
      (await db
        .selectFrom('serviceDeployments')
        .select('executionId')
        .where('serviceId', '=', serviceId)
        .where('actionStatus', 'in', ['QUEUED', 'ONGOING', 'CANCELING'])
        .limit(1)
        .executeTakeFirst()) !== undefined,
    clusterOf(environmentId: string) {
      return db
        .selectFrom('environments as e')
        .innerJoin('clusters as c', 'c.id', 'e.clusterId')
        .select(['c.executor', 'c.isDefault', 'c.kubeconfigSealed'])
        .where('e.id', '=', environmentId)
        .executeTakeFirst()
    },
  }
}

export type BackupRunsRepository = ReturnType<typeof createBackupRunsRepository>
