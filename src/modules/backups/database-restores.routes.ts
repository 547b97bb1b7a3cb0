// A database's restores (Berth extension): restoring a backup into it or into a copy, and the restores it had.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { DatabaseBackupParams, DatabaseRestoreParams, Restore, RestoreRequest, RestoreResponseList } from './backups.schemas.ts'
import type { BackupsService } from './backups.service.ts'
import { toRestoreResponse } from './backups.wire.ts'
import { DatabaseParams, tags } from './backups-routes-shared.ts'

export function databaseRestoresRoutes(backups: BackupsService): FastifyPluginAsyncTypebox {
  return async (app) => {
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
  }
}
