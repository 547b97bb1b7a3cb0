import type { StatusExtension } from '#src/modules/deployments/api/triggers/service-actions.routes.ts'
import { DateTime, Nullable } from '#src/platform/http/common-schemas.ts'
import type { BackupsService } from './backups.service.ts'

/** A database's status also says when its last backup ended DONE (a Berth extension; null: never). */
export function databaseStatusExtension(backups: BackupsService): StatusExtension {
  return {
    properties: {
      last_successful_backup_at: {
        ...Nullable(DateTime),
        description: 'Berth extension: when the last backup of this database ended DONE; null when none did (docs/backups.md).',
      },
    },
    read: async (databaseId) => ({ last_successful_backup_at: (await backups.lastSuccessfulBackupAt(databaseId))?.toISOString() ?? null }),
  }
}
