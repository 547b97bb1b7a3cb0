// A database's backups: the reference's listDatabaseBackup, addBackupDatabase and removeDatabaseBackup, and Berth's get and log.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Backup, BackupListQuery, BackupLogResponse, BackupPaginatedResponseList, BackupRequest, DatabaseBackupParams } from './backups.schemas.ts'
import type { BackupsService } from './backups.service.ts'
import { toBackupResponse } from './backups.wire.ts'
import { DatabaseParams, Deleted, tags } from './backups-routes-shared.ts'

export function databaseBackupsRoutes(backups: BackupsService): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/database/:databaseId/backup',
      {
        schema: {
          operationId: 'listDatabaseBackup',
          summary: 'List database  backups',
          description:
            'Newest first, 20 a page by default; `next_start_id` is the startId of the next page. Each backup says its state (`backup_status`: QUEUED, RUNNING, DONE or ERROR with `error_message`), size and SHA-256; `last_successful_backup_at` says when the last one ended DONE.',
          tags,
          params: DatabaseParams,
          querystring: BackupListQuery,
          response: { 200: BackupPaginatedResponseList },
        },
      },
      async (req) => {
        const page = await backups.list(req.principal, req.params.databaseId, req.query)
        return {
          page: 1,
          page_size: page.pageSize,
          results: page.rows.map(toBackupResponse),
          next_start_id: page.next,
          has_more: page.next !== null,
          last_successful_backup_at: page.lastSuccess?.toISOString() ?? null,
        }
      },
    )

    app.post(
      '/database/:databaseId/backup',
      {
        schema: {
          operationId: 'addBackupDatabase',
          summary: 'Add a backup to the Database ',
          description:
            "Needs the DEPLOY role. Queues a dump with the engine's own tool inside the database's container or pod (pg_dump -Fc, mysqldump --single-transaction, mongodump --archive, a fresh Redis RDB snapshot), gzip-compressed and streamed to `destination_id` (default: the directory under the data dir). A MANAGED database, or one its cluster only simulates, is a 400.",
          tags,
          params: DatabaseParams,
          body: BackupRequest,
          response: { 201: Backup },
        },
      },
      async (req, reply) => {
        const { name, message, destination_id } = req.body
        const row = await backups.take(req.principal, req.params.databaseId, { name, message, destinationId: destination_id ?? null })
        return reply.code(201).send(toBackupResponse(row))
      },
    )

    app.get(
      '/database/:databaseId/backup/:backupId',
      {
        schema: {
          operationId: 'getDatabaseBackup',
          summary: 'Get a database backup',
          description: 'Berth extension.',
          tags,
          params: DatabaseBackupParams,
          response: { 200: Backup },
        },
      },
      async (req) => toBackupResponse(await backups.get(req.principal, req.params.databaseId, req.params.backupId)),
    )

    app.get(
      '/database/:databaseId/backup/:backupId/log',
      {
        schema: {
          operationId: 'getDatabaseBackupLog',
          summary: 'Get the log of a database backup',
          description:
            'Berth extension. What the backup said while it ran: the tool, the destination, the size and checksum, or why it failed; secrets masked.',
          tags,
          params: DatabaseBackupParams,
          response: { 200: BackupLogResponse },
        },
      },
      async (req) => ({ log: (await backups.get(req.principal, req.params.databaseId, req.params.backupId)).log }),
    )

    app.delete(
      '/database/:databaseId/backup/:backupId',
      {
        schema: {
          operationId: 'removeDatabaseBackup',
          summary: 'Remove database  backup',
          description:
            "Needs the DEPLOY role. Deletes the backup's object from its destination, then the backup. 409 while it runs or a restore of it is queued or running; 502 when the store refuses the delete (in its words).",
          tags,
          params: DatabaseBackupParams,
          response: { 204: Deleted },
        },
      },
      async (req, reply) => {
        await backups.remove(req.principal, req.params.databaseId, req.params.backupId)
        return reply.code(204).send(null)
      },
    )
  }
}
