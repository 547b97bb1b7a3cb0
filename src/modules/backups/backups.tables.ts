import type { ColumnType, Generated, Kysely } from 'kysely'
import type { Db } from '#src/platform/db/database.ts'
import type { Database } from '#src/platform/db/schema.ts'

// Kysely's view of the backups' tables (migration 0041), kept beside the module that alone uses them.

type CreatedAt = ColumnType<Date, Date | undefined, never>
/** bigint, read as text. */
type BigIntText = ColumnType<string | null, string | number | null | undefined, string | number | null>

export type JobStatus = 'QUEUED' | 'RUNNING' | 'DONE' | 'ERROR'

/** An organization's S3-compatible store; the secret sealed with the server's SecretBox. */
export interface BackupDestinationsTable {
  id: Generated<string>
  organizationId: string
  name: string
  kind: 'S3'
  /** Null: the AWS endpoint of the region. */
  endpoint: string | null
  region: string
  bucket: string
  prefix: string
  pathStyle: boolean
  accessKeyId: string
  secretSealed: Buffer
  createdAt: CreatedAt
  updatedAt: Date | null
}

/** What backups and restores share: a job runners claim (QUEUED → RUNNING → DONE or ERROR) and hold with a lease. */
interface JobColumns {
  status: Generated<JobStatus>
  error: string | null
  log: Generated<string>
  createdBy: string
  leaseOwner: string | null
  leaseExpiresAt: Date | null
  claims: Generated<number>
  createdAt: CreatedAt
  updatedAt: Generated<Date>
  startedAt: Date | null
  endedAt: Date | null
}

/** One backup: a job, then what it made. */
export interface DatabaseBackupsTable extends JobColumns {
  id: Generated<string>
  organizationId: string
  serviceId: string
  /** Null: the directory under the data dir. */
  destinationId: string | null
  engine: string
  name: string
  message: string
  origin: 'MANUAL' | 'SCHEDULED'
  objectKey: string
  sizeBytes: BigIntText
  sha256: string | null
}

/** One restore of a backup into a database (its own, or another of the same engine). */
export interface DatabaseRestoresTable extends JobColumns {
  id: Generated<string>
  organizationId: string
  /** The database restored into. */
  serviceId: string
  backupId: string | null
  backupName: string
  /** The database the backup was taken of. */
  sourceServiceId: string
}

/** A database's backup schedule and retention. */
export interface DatabaseBackupSchedulesTable {
  serviceId: string
  organizationId: string
  cron: string
  timezone: string
  destinationId: string | null
  keepCount: number | null
  keepDays: number | null
  nextFireAt: Date
  createdAt: CreatedAt
  updatedAt: Date | null
}

// A type alias, not an interface: Kysely needs its index signature.
export type BackupTables = {
  backupDestinations: BackupDestinationsTable
  databaseBackups: DatabaseBackupsTable
  databaseRestores: DatabaseRestoresTable
  databaseBackupSchedules: DatabaseBackupSchedulesTable
}

export type BackupsDb = Kysely<Database & BackupTables>

/** The database with the backups' tables in view. */
export const withBackupTables = (db: Db): BackupsDb => db.withTables<BackupTables>()
