import { Type } from 'typebox'
import { Status } from '#src/platform/deployment-status.schemas.ts'
import { DateTime, Enum, Nullable, Uuid } from '#src/platform/http/common-schemas.ts'
import { ListResponse } from '#src/platform/http/lists.ts'

// The wire shapes of backups: the reference's Backup, BackupRequest and BackupPaginatedResponseList,
// and Berth's extensions in the same style (restores, destinations, schedules).

export const JOB_STATUSES = ['QUEUED', 'RUNNING', 'DONE', 'ERROR'] as const
const JobStatus = (title: string) => Enum(JOB_STATUSES, title, 'QUEUED → RUNNING → DONE or ERROR')

export const DatabaseBackupParams = Type.Object({ databaseId: Uuid, backupId: Uuid })
export const DatabaseRestoreParams = Type.Object({ databaseId: Uuid, restoreId: Uuid })
export const BackupDestinationParams = Type.Object({ organizationId: Uuid, backupDestinationId: Uuid })

export const BackupListQuery = Type.Object({
  startId: Type.Optional(Type.String({ format: 'uuid', description: 'the first backup of the page (a `next_start_id`)' })),
  pageSize: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'Berth extension: 20 by default' })),
})

export const BackupRequest = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 255 }),
    message: Type.String({ maxLength: 1024 }),
    destination_id: Type.Optional(
      Nullable(
        Type.String({
          format: 'uuid',
          description: "Berth extension: the organization's backup destination; absent or null: the directory under the data dir",
        }),
      ),
    ),
  },
  { title: 'BackupRequest', additionalProperties: false },
)

export const Backup = Type.Object(
  {
    id: Uuid,
    created_at: DateTime,
    updated_at: Type.Optional(DateTime),
    name: Type.String(),
    message: Type.String(),
    status: Type.Optional(Status),
    backup_status: JobStatus('BackupStatusEnum'),
    error_message: Nullable(Type.String({ description: "why it ended ERROR, in the engine's tool's or the store's own words (secrets masked)" })),
    database_id: Uuid,
    database_type: Type.String(),
    destination_id: Nullable(Uuid),
    origin: Enum(['MANUAL', 'SCHEDULED'], 'BackupOriginEnum'),
    size_bytes: Nullable(Type.Integer({ description: 'the stored (gzip) object, once DONE' })),
    sha256: Nullable(Type.String({ description: 'SHA-256 of the stored object, hex, once DONE' })),
    started_at: Nullable(DateTime),
    ended_at: Nullable(DateTime),
    created_by: Type.String(),
  },
  { title: 'Backup' },
)

export const BackupPaginatedResponseList = Type.Object(
  {
    page: Type.Number(),
    page_size: Type.Number(),
    results: Type.Array(Backup),
    next_start_id: Nullable(Type.String({ description: 'Berth extension: the startId of the next page; null on the last page' })),
    has_more: Type.Boolean({ description: 'Berth extension: whether older backups follow' }),
    last_successful_backup_at: Nullable(DateTime),
  },
  { title: 'BackupPaginatedResponseList' },
)

export const BackupLogResponse = Type.Object(
  { log: Type.String({ description: 'what the backup said while it ran, secrets masked' }) },
  { title: 'BackupLogResponse' },
)

export const RestoreRequest = Type.Object(
  {
    target_database_id: Type.Optional(
      Nullable(
        Type.String({ format: 'uuid', description: "another database of the same type to restore into (a copy); absent: the backup's own database" }),
      ),
    ),
  },
  { title: 'DatabaseRestoreRequest', additionalProperties: false },
)

export const Restore = Type.Object(
  {
    id: Uuid,
    created_at: DateTime,
    updated_at: DateTime,
    database_id: Uuid,
    backup_id: Nullable(Uuid),
    backup_name: Type.String(),
    source_database_id: Uuid,
    restore_status: JobStatus('RestoreStatusEnum'),
    error_message: Nullable(Type.String()),
    started_at: Nullable(DateTime),
    ended_at: Nullable(DateTime),
    triggered_by: Type.String(),
    log: Type.String({ description: 'what the restore said while it ran, secrets masked' }),
  },
  { title: 'DatabaseRestore' },
)

export const RestoreResponseList = Type.Object({ results: Type.Array(Restore) }, { title: 'DatabaseRestoreResponseList' })

export const BackupScheduleRequest = Type.Object(
  {
    cron: Type.String({
      minLength: 1,
      maxLength: 255,
      description: 'five fields (minute hour day-of-month month day-of-week), six with seconds first, or @daily…',
    }),
    timezone: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'an IANA time zone; Etc/UTC by default' })),
    destination_id: Type.Optional(Nullable(Type.String({ format: 'uuid' }))),
    keep_count: Type.Optional(
      Nullable(Type.Integer({ minimum: 1, maximum: 10_000, description: 'how many scheduled backups that ended DONE are kept' })),
    ),
    keep_days: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 36_500, description: 'how many days scheduled backups are kept' }))),
  },
  { title: 'DatabaseBackupScheduleRequest', additionalProperties: false },
)

export const BackupSchedule = Type.Object(
  {
    database_id: Uuid,
    cron: Type.String(),
    timezone: Type.String(),
    destination_id: Nullable(Uuid),
    keep_count: Nullable(Type.Integer()),
    keep_days: Nullable(Type.Integer()),
    next_backup_at: DateTime,
    created_at: DateTime,
    updated_at: Nullable(DateTime),
  },
  { title: 'DatabaseBackupSchedule' },
)

export const BackupDestinationRequest = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 255 }),
    kind: Enum(['S3'], 'BackupDestinationKindEnum'),
    endpoint: Type.Optional(
      Nullable(Type.String({ maxLength: 2048, description: "the store's URL (MinIO, R2…); absent: AWS's endpoint of the region" })),
    ),
    region: Type.String({ minLength: 1, maxLength: 64 }),
    bucket: Type.String({ minLength: 3, maxLength: 63, pattern: '^[A-Za-z0-9._-]+$' }),
    prefix: Type.Optional(Type.String({ maxLength: 512, description: 'a folder of the bucket the objects go under' })),
    path_style: Type.Optional(Type.Boolean({ description: 'bucket in the path, not the host name (MinIO-like servers)' })),
    access_key_id: Type.String({ minLength: 1, maxLength: 256 }),
    secret_access_key: Type.Optional(Type.String({ minLength: 1, maxLength: 1024, description: 'write-only; an edit may leave it out to keep it' })),
  },
  { title: 'BackupDestinationRequest', additionalProperties: false },
)

export const BackupDestination = Type.Object(
  {
    id: Uuid,
    created_at: DateTime,
    updated_at: Nullable(DateTime),
    name: Type.String(),
    kind: Enum(['S3'], 'BackupDestinationKindEnum'),
    endpoint: Nullable(Type.String()),
    region: Type.String(),
    bucket: Type.String(),
    prefix: Type.String(),
    path_style: Type.Boolean(),
    access_key_id: Type.String(),
    used_by: Type.Integer({ description: 'backups and schedules that use it: a destination in use cannot be deleted' }),
  },
  { title: 'BackupDestination' },
)

export const BackupDestinationResponseList = ListResponse(BackupDestination, 'BackupDestinationResponseList')
