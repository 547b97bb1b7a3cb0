import { sql } from 'kysely'
import type { Db } from '#src/platform/db/database.ts'
import { withBackupTables } from './backups.tables.ts'

// What the metrics of issue 46 read of backups: for each database that has backups or a schedule,
// when its last backup ended DONE (null: never) and how many of its backups are in each state, so
// that an alert rule can watch for a database whose backups stopped succeeding.

export interface DatabaseBackupMetrics {
  organizationId: string
  environmentId: string
  databaseId: string
  databaseName: string
  /** When its newest DONE backup ended; null when none did. */
  lastSuccessAt: Date | null
  /** Its backups by state (QUEUED, RUNNING, DONE, ERROR). */
  counts: Record<'QUEUED' | 'RUNNING' | 'DONE' | 'ERROR', number>
}

/** Every database with backups or a backup schedule: its last successful backup time and its counts by result. One query. */
export async function databaseBackupMetrics(plain: Db): Promise<DatabaseBackupMetrics[]> {
  const db = withBackupTables(plain)
  const rows = await db
    .selectFrom('services as s')
    .leftJoin('databaseBackups as b', 'b.serviceId', 's.id')
    .select([
      's.organizationId',
      's.environmentId',
      's.id as databaseId',
      's.name as databaseName',
      sql<Date | null>`max(b.ended_at) filter (where b.status = 'DONE')`.as('lastSuccessAt'),
      sql<number>`count(b.id) filter (where b.status = 'QUEUED')::int`.as('queued'),
      sql<number>`count(b.id) filter (where b.status = 'RUNNING')::int`.as('running'),
      sql<number>`count(b.id) filter (where b.status = 'DONE')::int`.as('done'),
      sql<number>`count(b.id) filter (where b.status = 'ERROR')::int`.as('error'),
    ])
    .where('s.kind', '=', 'DATABASE')
    .where((eb) =>
      eb.or([
        eb.exists(eb.selectFrom('databaseBackups as x').select('x.id').whereRef('x.serviceId', '=', 's.id')),
        eb.exists(eb.selectFrom('databaseBackupSchedules as c').select('c.serviceId').whereRef('c.serviceId', '=', 's.id')),
      ]),
    )
    .groupBy(['s.organizationId', 's.environmentId', 's.id', 's.name'])
    .orderBy('s.id')
    .execute()
  return rows.map((row) => ({
    organizationId: row.organizationId,
    environmentId: row.environmentId,
    databaseId: row.databaseId,
    databaseName: row.databaseName,
    lastSuccessAt: row.lastSuccessAt,
    counts: { QUEUED: row.queued, RUNNING: row.running, DONE: row.done, ERROR: row.error },
  }))
}
