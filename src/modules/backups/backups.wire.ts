import type { Static } from 'typebox'
import type { BackupRow, DestinationRow, RestoreRow, ScheduleRow } from './backups.repository.ts'
import type { BackupDestination, BackupSchedule, Backup as BackupSchema, Restore } from './backups.schemas.ts'

// Backups' records as the wire shows them: snake_case, times in ISO 8601, secrets never.

const iso = (date: Date | null) => (date ? date.toISOString() : null)

/** The reference's Status for a backup: its state in the words of a deployment's. */
const STATES = {
  QUEUED: { state: 'QUEUED', status: 'QUEUED' },
  RUNNING: { state: 'EXECUTING', status: 'ONGOING' },
  DONE: { state: 'READY', status: 'SUCCESS' },
  ERROR: { state: 'DEPLOYMENT_ERROR', status: 'ERROR' },
} as const

export function toBackupResponse(row: BackupRow): Static<typeof BackupSchema> {
  const words = STATES[row.status]
  return {
    id: row.id,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
    name: row.name,
    message: row.message,
    status: {
      id: row.id,
      state: words.state,
      service_deployment_status: 'UP_TO_DATE',
      ...(row.endedAt ? { last_deployment_date: row.endedAt.toISOString() } : {}),
      is_part_last_deployment: false,
      execution_id: row.id,
      status_details: { action: 'DEPLOY', status: words.status, sub_action: 'NONE' },
      deployment_request_id: null,
      deployment_requests_count: row.status === 'QUEUED' || row.status === 'RUNNING' ? 1 : 0,
    },
    backup_status: row.status,
    error_message: row.error,
    database_id: row.serviceId,
    database_type: row.engine,
    destination_id: row.destinationId,
    origin: row.origin,
    size_bytes: row.sizeBytes === null ? null : Number(row.sizeBytes),
    sha256: row.sha256,
    started_at: iso(row.startedAt),
    ended_at: iso(row.endedAt),
    created_by: row.createdBy,
  }
}

export const toRestoreResponse = (row: RestoreRow): Static<typeof Restore> => ({
  id: row.id,
  created_at: row.createdAt.toISOString(),
  updated_at: row.updatedAt.toISOString(),
  database_id: row.serviceId,
  backup_id: row.backupId,
  backup_name: row.backupName,
  source_database_id: row.sourceServiceId,
  restore_status: row.status,
  error_message: row.error,
  started_at: iso(row.startedAt),
  ended_at: iso(row.endedAt),
  triggered_by: row.createdBy,
  log: row.log,
})

export const toScheduleResponse = (row: ScheduleRow): Static<typeof BackupSchedule> => ({
  database_id: row.serviceId,
  cron: row.cron,
  timezone: row.timezone,
  destination_id: row.destinationId,
  keep_count: row.keepCount,
  keep_days: row.keepDays,
  next_backup_at: row.nextFireAt.toISOString(),
  created_at: row.createdAt.toISOString(),
  updated_at: iso(row.updatedAt),
})

export const toDestinationResponse = (row: DestinationRow): Static<typeof BackupDestination> => ({
  id: row.id,
  created_at: row.createdAt.toISOString(),
  updated_at: iso(row.updatedAt),
  name: row.name,
  kind: row.kind,
  endpoint: row.endpoint,
  region: row.region,
  bucket: row.bucket,
  prefix: row.prefix,
  path_style: row.pathStyle,
  access_key_id: row.accessKeyId,
  used_by: row.usedBy,
})
