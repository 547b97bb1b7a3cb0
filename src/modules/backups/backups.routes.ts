import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { Uuid } from '#src/platform/http/common-schemas.ts'
import { organizationResourceRoutes } from '#src/platform/http/organization-resource.routes.ts'
import type { BackupDestinationsService, DestinationInput } from './backup-destinations.service.ts'
import {
  Backup,
  BackupDestination,
  BackupDestinationParams,
  BackupDestinationRequest,
  BackupDestinationResponseList,
  BackupListQuery,
  BackupLogResponse,
  BackupPaginatedResponseList,
  BackupRequest,
  BackupSchedule,
  BackupScheduleRequest,
  DatabaseBackupParams,
  DatabaseRestoreParams,
  Restore,
  RestoreRequest,
  RestoreResponseList,
} from './backups.schemas.ts'
import type { BackupsService } from './backups.service.ts'
import { toBackupResponse, toDestinationResponse, toRestoreResponse, toScheduleResponse } from './backups.wire.ts'

// The reference's Backups family (listDatabaseBackup, addBackupDatabase, removeDatabaseBackup) and
// Berth's extensions: a backup's log, restores, a database's schedule, an organization's destinations.

const tags = ['Backups']
const DatabaseParams = Type.Object({ databaseId: Uuid })
const Deleted = Type.Null({ description: 'deleted' })

export function backupsRoutes(backups: BackupsService, destinations: BackupDestinationsService): FastifyPluginAsyncTypebox {
  const destinationRoutes = organizationResourceRoutes(
    {
      segment: 'backupDestination',
      param: 'backupDestinationId',
      tags,
      schemas: {
        params: BackupDestinationParams,
        request: BackupDestinationRequest,
        response: BackupDestination,
        responseList: BackupDestinationResponseList,
      },
      docs: {
        list: {
          operationId: 'listBackupDestination',
          summary: 'List backup destinations',
          description:
            'Berth extension. S3-compatible stores backups can go to; backups without one go to the directory under the data dir. The secret key is never returned.',
        },
        create: {
          operationId: 'createBackupDestination',
          summary: 'Create a backup destination',
          description: 'Berth extension. Needs the ADMIN role. The endpoint follows the private-address rules of git providers and registries.',
        },
        get: { operationId: 'getBackupDestination', summary: 'Get a backup destination', description: 'Berth extension.' },
        edit: {
          operationId: 'editBackupDestination',
          summary: 'Edit a backup destination',
          description:
            'Berth extension. Needs the ADMIN role. A left-out secret_access_key keeps the stored one, unless the endpoint or the bucket changes.',
        },
        delete: {
          operationId: 'deleteBackupDestination',
          summary: 'Delete a backup destination',
          description: 'Berth extension. Needs the ADMIN role. Refused with 409 while backups or schedules use it.',
        },
      },
      inUse: 'backups or schedules use the destination (`conflict`)',
      toInput: (body): DestinationInput => ({
        name: body.name,
        endpoint: body.endpoint ?? null,
        region: body.region,
        bucket: body.bucket,
        prefix: body.prefix ?? '',
        pathStyle: body.path_style ?? false,
        accessKeyId: body.access_key_id,
        secretAccessKey: body.secret_access_key,
      }),
      toResponse: toDestinationResponse,
    },
    destinations,
  )

  return async (app) => {
    await app.register(destinationRoutes)

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

    app.post(
      '/database/:databaseId/backup/:backupId/restore',
      {
        schema: {
          operationId: 'restoreDatabaseBackup',
          summary: 'Restore a database backup',
          description:
            "Berth extension. Needs the DEPLOY role (on the target too). Queues a restore of a DONE backup into its database, or with `target_database_id` into another database of the same type (a copy). The stored object's SHA-256 is checked before anything is touched. 409 while a deployment of the target runs. The restore is recorded with who asked, when, from which backup, and its log (listDatabaseRestore).",
          tags,
          params: DatabaseBackupParams,
          body: Type.Optional(RestoreRequest),
          response: { 201: Restore },
        },
      },
      async (req, reply) => {
        const target = req.body?.target_database_id ?? null
        const row = await backups.restore(req.principal, req.params.databaseId, req.params.backupId, target)
        return reply.code(201).send(toRestoreResponse(row))
      },
    )

    app.get(
      '/database/:databaseId/restore',
      {
        schema: {
          operationId: 'listDatabaseRestore',
          summary: 'List the restores of a database',
          description:
            'Berth extension. The restores into this database, newest first (the last 100): who asked, when, from which backup, their state and log.',
          tags,
          params: DatabaseParams,
          response: { 200: RestoreResponseList },
        },
      },
      async (req) => ({ results: (await backups.listRestores(req.principal, req.params.databaseId)).map(toRestoreResponse) }),
    )

    app.get(
      '/database/:databaseId/restore/:restoreId',
      {
        schema: {
          operationId: 'getDatabaseRestore',
          summary: 'Get a restore of a database',
          description: 'Berth extension.',
          tags,
          params: DatabaseRestoreParams,
          response: { 200: Restore },
        },
      },
      async (req) => toRestoreResponse(await backups.getRestore(req.principal, req.params.databaseId, req.params.restoreId)),
    )

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
