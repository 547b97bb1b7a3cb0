// How runners hold backups and restores: a queued job claimed with FOR UPDATE SKIP LOCKED, its lease renewed, every write fenced by it, the abandoned ones ended.
import { sql } from 'kysely'
import type { BackupRow, RestoreRow } from './backups.repository.ts'
import type { BackupsDb, JobStatus } from './backups.tables.ts'

/** The tables of the jobs runners hold. */
export type Job = 'databaseBackups' | 'databaseRestores'

export function createBackupLeasesRepository(db: BackupsDb) {
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
  }
}
