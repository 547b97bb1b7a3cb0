// A database's backup schedule (Berth extension): read, set and delete.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { BackupSchedule, BackupScheduleRequest } from './backups.schemas.ts'
import type { BackupsService } from './backups.service.ts'
import { toScheduleResponse } from './backups.wire.ts'
import { DatabaseParams, Deleted, tags } from './backups-routes-shared.ts'

export function backupScheduleRoutes(backups: BackupsService): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/database/:databaseId/backupSchedule',
      {
        schema: {
          operationId: 'getDatabaseBackupSchedule',
          summary: 'Get the backup schedule of a database',
          description: 'Berth extension. `null` when the database has none.',
          tags,
          params: DatabaseParams,
          response: { 200: Type.Union([BackupSchedule, Type.Null()]) },
        },
      },
      async (req) => {
        const row = await backups.findSchedule(req.principal, req.params.databaseId)
        return row ? toScheduleResponse(row) : null
      },
    )

    app.put(
      '/database/:databaseId/backupSchedule',
      {
        schema: {
          operationId: 'editDatabaseBackupSchedule',
          summary: 'Set the backup schedule of a database',
          description:
            'Berth extension. Needs the WRITE role. A cron expression with its time zone, a destination, and how many backups (`keep_count`) or days (`keep_days`) to keep: after each scheduled backup that ends DONE, the older scheduled ones beyond that are deleted (never before). Several Berth processes take each scheduled backup once.',
          tags,
          params: DatabaseParams,
          body: BackupScheduleRequest,
          response: { 200: BackupSchedule },
        },
      },
      async (req) => {
        const body = req.body
        const row = await backups.putSchedule(req.principal, req.params.databaseId, {
          cron: body.cron,
          timezone: body.timezone,
          destinationId: body.destination_id ?? null,
          keepCount: body.keep_count ?? null,
          keepDays: body.keep_days ?? null,
        })
        return toScheduleResponse(row)
      },
    )

    app.delete(
      '/database/:databaseId/backupSchedule',
      {
        schema: {
          operationId: 'deleteDatabaseBackupSchedule',
          summary: 'Delete the backup schedule of a database',
          description: 'Berth extension. Needs the WRITE role. The backups it took stay.',
          tags,
          params: DatabaseParams,
          response: { 204: Deleted },
        },
      },
      async (req, reply) => {
        await backups.deleteSchedule(req.principal, req.params.databaseId)
        return reply.code(204).send(null)
      },
    )
  }
}
