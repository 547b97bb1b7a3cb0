import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { EnvironmentParams } from '#src/modules/environments/environments.schemas.ts'
import type { KindRoutes } from './kind-routes.ts'
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
          description:
            "Every service of the environment, whatever its kind, each in its kind's response shape (`service_type` tells which), by name.",
          tags: ['Environment Main Calls'],
          params: EnvironmentParams,
          response: { 200: Type.Object({ results: Type.Array(Type.Union(kinds.map((kind) => kind.response.schema))) }) },
        },
      },
      async (req) => ({
        results: (await services.list(req.principal, req.params.environmentId)).flatMap((service) => {
          const kind = byType.get(service.kind)
          return kind ? [kind.response.of(service)] : []
        }) as never[],
      }),
    )
  }
}
