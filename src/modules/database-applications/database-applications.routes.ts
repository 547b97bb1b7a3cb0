import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { ApplicationResponse } from '#src/modules/services/kinds/application/application.schemas.ts'
import type { Principal } from '#src/platform/auth/principal.ts'
import { Uuid } from '#src/platform/http/common-schemas.ts'
import type { DatabaseApplicationsService } from './database-applications.service.ts'

const tags = ['Database Application']
const DatabaseParams = Type.Object({ databaseId: Uuid })
const LINK_RULE =
  "An application uses a database when it declares, in its own scope, an alias or an override of one of the database's built-in variables " +
  '(`QOVERY_<TYPE>_Z<first 8 hex of its id>_…`, which every service of the environment sees): docs/databases.md.'

export interface DatabaseApplicationsRouteDeps {
  service: DatabaseApplicationsService
  /** An application as its own GET answers it. */
  applicationAnswer(principal: Principal, applicationId: string): Promise<ApplicationResponse>
}

/** listDatabaseApplication and removeApplicationFromDatabase. */
export function databaseApplicationsRoutes({ service, applicationAnswer }: DatabaseApplicationsRouteDeps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/database/:databaseId/application',
      {
        schema: {
          operationId: 'listDatabaseApplication',
          summary: 'List applications using the database',
          description: `${LINK_RULE} The applications that do, by name. Containers and jobs linked the same way are not listed (the answer holds applications).`,
          tags,
          params: DatabaseParams,
          response: { 200: Type.Object({ results: Type.Array(ApplicationResponse) }, { title: 'ApplicationResponseList' }) },
        },
      },
      async (req) => {
        const ids = await service.applicationIds(req.principal, req.params.databaseId)
        const results = await Promise.all(ids.map((id) => applicationAnswer(req.principal, id)))
        return { results: results.sort((a, b) => a.name.localeCompare(b.name)) }
      },
    )

    app.delete(
      '/database/:databaseId/application/:targetApplicationId',
      {
        schema: {
          operationId: 'removeApplicationFromDatabase',
          summary: 'Remove an application from this database',
          description:
            `${LINK_RULE} Needs the WRITE role. Deletes the application's aliases and overrides of the database's built-in variables ` +
            '(its next deployment no longer has them); an application without any already does not use it (204, nothing changed).',
          tags,
          params: Type.Object({ databaseId: Uuid, targetApplicationId: Uuid }),
        },
      },
      async (req, reply) => {
        await service.remove(req.principal, req.params.databaseId, req.params.targetApplicationId)
        return reply.code(204).send()
      },
    )
  }
}
