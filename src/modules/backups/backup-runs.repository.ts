import type { Db } from '#src/platform/db/database.ts'
import { createBackupLeasesRepository } from './backup-leases.repository.ts'
import { createBackupScheduleRunsRepository } from './backup-schedule-runs.repository.ts'
import { createBackupTargetsRepository } from './backup-targets.repository.ts'
import { type BackupsDb, withBackupTables } from './backups.tables.ts'

// What runners do with backups and restores (docs/backups.md, "How backups run"): claim the oldest
// queued job with FOR UPDATE SKIP LOCKED and hold it with a lease they renew; every write of a
// job they hold is fenced by that lease. A job whose runner died (its lease expired) ends ERROR:
// a dump or a restore cannot resume half-way. Schedules fire in one transaction each: the due row
// claimed, its backup queued and its next time moved, so several processes queue each tick once.

export { MISSED_TICK_GRACE_MS } from './backup-schedule-runs.repository.ts'

export function createBackupRunsRepository(plain: Db) {
  const db: BackupsDb = withBackupTables(plain)

  return {
    ...createBackupLeasesRepository(db),
    ...createBackupScheduleRunsRepository(db),
    ...createBackupTargetsRepository(db),

    // What a job reads of the rest: its backup, destination and database (backup-targets.repository.ts: its cluster, and whether it is being deployed).
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
  }
}

export type BackupRunsRepository = ReturnType<typeof createBackupRunsRepository>
