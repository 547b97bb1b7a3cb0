import { type Selectable, sql } from 'kysely'
import type { Db } from '#src/platform/db/database.ts'
import { deleteUnlessUsed } from '#src/platform/db/delete-unless-used.ts'
import { deleteRows, hasRow, updateRow } from '#src/platform/db/rows-by-keys.ts'
import { createBackupTargetsRepository } from './backup-targets.repository.ts'
import {
  type BackupDestinationsTable,
  type DatabaseBackupSchedulesTable,
  type DatabaseBackupsTable,
  type DatabaseRestoresTable,
  withBackupTables,
} from './backups.tables.ts'

// The SQL of backups' requests: destinations, backups, restores and schedules, organization first.

export type DestinationRow = Omit<Selectable<BackupDestinationsTable>, 'secretSealed'> & { usedBy: number }
export type SealedDestinationRow = DestinationRow & { secretSealed: Buffer }
export type BackupRow = Selectable<DatabaseBackupsTable>
export type RestoreRow = Selectable<DatabaseRestoresTable>
export type ScheduleRow = Selectable<DatabaseBackupSchedulesTable>

const DESTINATION_COLUMNS = [
  'id',
  'organizationId',
  'name',
  'kind',
  'endpoint',
  'region',
  'bucket',
  'prefix',
  'pathStyle',
  'accessKeyId',
  'createdAt',
  'updatedAt',
] as const

const usedBy = sql<number>`((select count(*) from database_backups b where b.destination_id = backup_destinations.id)
  + (select count(*) from database_backup_schedules s where s.destination_id = backup_destinations.id))::int`

/** What a request sets of a destination (its kind is always S3). */
export type DestinationColumns = Pick<
  BackupDestinationsTable,
  'name' | 'endpoint' | 'region' | 'bucket' | 'prefix' | 'pathStyle' | 'accessKeyId' | 'secretSealed'
>

export function createBackupsRepository(plain: Db) {
  const db = withBackupTables(plain)
  const destinations = (organizationId: string) =>
    db.selectFrom('backupDestinations').select(DESTINATION_COLUMNS).select(usedBy.as('usedBy')).where('organizationId', '=', organizationId)

  return {
    ...createBackupTargetsRepository(db),

    listDestinations(organizationId: string, limit: number): Promise<DestinationRow[]> {
      return destinations(organizationId).orderBy(sql`lower(name)`).orderBy('id').limit(limit).execute()
    },
    findDestination(organizationId: string, id: string): Promise<SealedDestinationRow | undefined> {
      return destinations(organizationId).select('secretSealed').where('id', '=', id).executeTakeFirst()
    },
    async insertDestination(organizationId: string, columns: DestinationColumns): Promise<DestinationRow> {
      const { id } = await db
        .insertInto('backupDestinations')
        .values({ organizationId, kind: 'S3', ...columns })
        .returning('id')
        .executeTakeFirstOrThrow()
      return (await destinations(organizationId).where('id', '=', id).executeTakeFirst())!
    },
    async updateDestination(organizationId: string, id: string, columns: DestinationColumns): Promise<DestinationRow | undefined> {
      const updated = await updateRow(db, 'backupDestinations', { organizationId, id }, columns)
      return updated && destinations(organizationId).where('id', '=', id).executeTakeFirst()
    },
    /** Deletes it unless backups or schedules use it: undefined when it does not exist, else how many use it (0: deleted). */
    deleteDestinationUnlessUsed(organizationId: string, id: string): Promise<{ usedBy: number } | undefined> {
      return deleteUnlessUsed(db, 'backupDestinations', { organizationId, id }, usedBy)
    },

    /** Queues a backup; its object's key is made from its id. */
    insertBackup(
      values: Pick<BackupRow, 'organizationId' | 'serviceId' | 'destinationId' | 'engine' | 'name' | 'message' | 'origin' | 'createdBy'> & {
        objectKey: (id: string) => string
      },
    ): Promise<BackupRow> {
      const { objectKey, ...rest } = values
      return db.transaction().execute(async (trx) => {
        const { id } = await sql<{ id: string }>`select gen_random_uuid() as id`.execute(trx).then((r) => r.rows[0]!)
        return trx
          .insertInto('databaseBackups')
          .values({ id, ...rest, objectKey: objectKey(id) })
          .returningAll()
          .executeTakeFirstOrThrow()
      })
    },
    /** A page of the database's backups, newest first, from `startId` (included) when given; undefined when startId is not one of them. */
    async listBackups(serviceId: string, pageSize: number, startId?: string): Promise<BackupRow[] | undefined> {
      let query = db.selectFrom('databaseBackups').selectAll().where('serviceId', '=', serviceId)
      if (startId !== undefined) {
        if (!(await hasRow(db, 'databaseBackups', { serviceId, id: startId }))) return undefined
        // Compared in SQL: a time read into JavaScript loses its microseconds.
        query = query.where(sql<boolean>`(created_at, id) <= (select created_at, id from database_backups where id = ${startId})`)
      }
      return query.orderBy('createdAt', 'desc').orderBy('id', 'desc').limit(pageSize).execute()
    },
    findBackup(organizationId: string, backupId: string): Promise<BackupRow | undefined> {
      return db.selectFrom('databaseBackups').selectAll().where('organizationId', '=', organizationId).where('id', '=', backupId).executeTakeFirst()
    },
    /** Deletes a finished backup unless a restore of it waits or runs; false when it was not finished or is used. */
    async deleteFinishedBackup(backupId: string): Promise<boolean> {
      const deleted = await db
        .deleteFrom('databaseBackups')
        .where('id', '=', backupId)
        .where('status', 'in', ['DONE', 'ERROR', 'QUEUED'])
        .where(({ not, exists, selectFrom }) =>
          not(exists(selectFrom('databaseRestores').select('id').where('backupId', '=', backupId).where('status', 'in', ['QUEUED', 'RUNNING']))),
        )
        .executeTakeFirst()
      return deleted.numDeletedRows > 0n
    },
    /** When each of these databases last had a backup that ended DONE. */
    async lastSuccess(serviceIds: string[]): Promise<Map<string, Date>> {
      if (serviceIds.length === 0) return new Map()
      const rows = await db
        .selectFrom('databaseBackups')
        .select(['serviceId', (eb) => eb.fn.max('endedAt').as('at')])
        .where('serviceId', 'in', serviceIds)
        .where('status', '=', 'DONE')
        .groupBy('serviceId')
        .execute()
      return new Map(rows.filter((row) => row.at).map((row) => [row.serviceId, row.at as Date]))
    },

    insertRestore(values: {
      organizationId: string
      serviceId: string
      backupId: string
      backupName: string
      sourceServiceId: string
      createdBy: string
    }): Promise<RestoreRow> {
      return db.insertInto('databaseRestores').values(values).returningAll().executeTakeFirstOrThrow()
    },
    listRestores(serviceId: string, limit: number): Promise<RestoreRow[]> {
      return db
        .selectFrom('databaseRestores')
        .selectAll()
        .where('serviceId', '=', serviceId)
        .orderBy('createdAt', 'desc')
        .orderBy('id', 'desc')
        .limit(limit)
        .execute()
    },
    findRestore(serviceId: string, restoreId: string): Promise<RestoreRow | undefined> {
      return db.selectFrom('databaseRestores').selectAll().where('serviceId', '=', serviceId).where('id', '=', restoreId).executeTakeFirst()
    },

    findSchedule(serviceId: string): Promise<ScheduleRow | undefined> {
      return db.selectFrom('databaseBackupSchedules').selectAll().where('serviceId', '=', serviceId).executeTakeFirst()
    },
    upsertSchedule(values: Omit<ScheduleRow, 'createdAt' | 'updatedAt'>): Promise<ScheduleRow> {
      const { serviceId, organizationId, ...changes } = values
      return db
        .insertInto('databaseBackupSchedules')
        .values(values)
        .onConflict((oc) => oc.column('serviceId').doUpdateSet({ ...changes, updatedAt: new Date() }))
        .returningAll()
        .executeTakeFirstOrThrow()
    },
    deleteSchedule(serviceId: string): Promise<boolean> {
      return deleteRows(db, 'databaseBackupSchedules', { serviceId })
    },
  }
}

export type BackupsRepository = ReturnType<typeof createBackupsRepository>
