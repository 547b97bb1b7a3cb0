// An organization's backup destinations (Berth extension): the S3-compatible stores backups go to.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { organizationResourceRoutes } from '#src/platform/http/organization-resource.routes.ts'
import type { BackupDestinationsService, DestinationInput } from './backup-destinations.service.ts'
import { BackupDestination, BackupDestinationParams, BackupDestinationRequest, BackupDestinationResponseList } from './backups.schemas.ts'
import { toDestinationResponse } from './backups.wire.ts'
import { tags } from './backups-routes-shared.ts'

export function backupDestinationsRoutes(destinations: BackupDestinationsService): FastifyPluginAsyncTypebox {
  return organizationResourceRoutes(
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
}
