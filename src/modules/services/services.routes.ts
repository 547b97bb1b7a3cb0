import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { EnvironmentParams } from '#src/modules/environments/environments.schemas.ts'
import { ListResponse } from '#src/platform/http/lists.ts'
import { responseWritten } from '#src/platform/http/response-written.ts'
import type { KindRoutes } from './kind-routes.ts'
import { LIST_WRITE_TIMEOUT_MS, SERVICE_LIST_DESCRIPTION, SERVICE_LIST_HAS_MORE, ServiceListQuery } from './service-lists.ts'
import type { ServicesService } from './services.service.ts'

/** What every kind's services share on the wire: the environment's list of all of them. */
export function servicesRoutes(services: ServicesService, kinds: readonly KindRoutes[]): FastifyPluginAsyncTypebox {
  const byType = new Map(kinds.map((kind) => [kind.type, kind]))
  return async (app) => {
    app.get(
      '/environment/:environmentId/services',
      {
        schema: {
          operationId: 'listServicesByEnvironmentId',
          summary: 'List Services By EnvironmentId',
          description: `The services of the environment, whatever their kind, each in its kind's response shape (\`service_type\` tells which). ${SERVICE_LIST_DESCRIPTION}`,
          tags: ['Environment Main Calls'],
          params: EnvironmentParams,
          querystring: ServiceListQuery,
          response: { 200: ListResponse(Type.Union(kinds.map((kind) => kind.response.schema)), 'ServiceResponseList', SERVICE_LIST_HAS_MORE) },
        },
      },
      async (req, reply) => {
        const heldUntil = () => responseWritten(reply, LIST_WRITE_TIMEOUT_MS)
        const page = await services.list(req.principal, req.params.environmentId, { startId: req.query.startId, heldUntil })
        return {
          results: page.rows.flatMap((service) => {
            const kind = byType.get(service.kind)
            return kind ? [kind.response.of(service)] : []
          }) as never[],
          has_more: page.hasMore,
        }
      },
    )
  }
}
