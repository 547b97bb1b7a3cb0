import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { backupDestinationsRoutes } from './backup-destinations.routes.ts'
import type { BackupDestinationsService } from './backup-destinations.service.ts'
import { backupScheduleRoutes } from './backup-schedule.routes.ts'
import type { BackupsService } from './backups.service.ts'
import { databaseBackupsRoutes } from './database-backups.routes.ts'
import { databaseRestoresRoutes } from './database-restores.routes.ts'

// The reference's Backups family (listDatabaseBackup, addBackupDatabase, removeDatabaseBackup) and
// Berth's extensions: a backup's log, restores, a database's schedule, an organization's destinations.

// Registered in this order, which is the order of their paths in /openapi.json.

export function backupsRoutes(backups: BackupsService, destinations: BackupDestinationsService): FastifyPluginAsyncTypebox {
  return async (app) => {
    await app.register(backupDestinationsRoutes(destinations))
    await app.register(databaseBackupsRoutes(backups))
    await app.register(databaseRestoresRoutes(backups))
    await app.register(backupScheduleRoutes(backups))
  }
}
