import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import type { AdvancedSettingsService } from '#src/modules/services/advanced-settings/advanced-settings.service.ts'
import { Uuid } from '#src/platform/http/common-schemas.ts'

// getApplicationNetwork, editApplicationNetwork and the container's: the reference's older view of
// one advanced setting, `network.ingress.enable_sticky_session`, read and written as that setting
// (docs/organization-views.md).

const STICKY = 'network.ingress.enable_sticky_session'

const KINDS = [
  { type: 'APPLICATION', segment: 'application', param: 'applicationId', name: 'Application' },
  { type: 'CONTAINER', segment: 'container', param: 'containerId', name: 'Container' },
] as const

export function kindNetworkRoutes(settings: AdvancedSettingsService): FastifyPluginAsyncTypebox {
  return async (app) => {
    for (const { type, segment, param, name } of KINDS) {
      const Network = Type.Object(
        {
          sticky_session: Type.Boolean({
            default: false,
            description: `the advanced setting ${STICKY}: whether the load balancer sends a client back to the same instance`,
          }),
        },
        { title: `${name}Network` },
      )
      const Params = Type.Object({ [param]: Uuid })
      const idOf = (params: unknown) => (params as Record<string, string>)[param]!
      const tags = [`${name} Configuration`]

      app.get(
        `/${segment}/:${param}/network`,
        {
          schema: {
            operationId: `get${name}Network`,
            summary: `Get ${name} Network information`,
            description: `The ${segment}'s sticky session setting: its advanced setting \`${STICKY}\`.`,
            tags,
            params: Params,
            response: { 200: Network },
          },
        },
        async (req) => ({ sticky_session: (await settings.get(req.principal, type, idOf(req.params)))[STICKY] === true }),
      )

      app.put(
        `/${segment}/:${param}/network`,
        {
          schema: {
            operationId: `edit${name}Network`,
            summary: `Edit ${name} Network`,
            description: `Sets the advanced setting \`${STICKY}\` (absent: unchanged), as edit${name}AdvancedSettings does. Berth keeps it with the service's settings and shows it in its deployments' snapshots; neither the front door nor the Kubernetes executor applies sticky sessions yet. Needs the WRITE role.`,
            tags,
            params: Params,
            body: Type.Object({ sticky_session: Type.Optional(Type.Boolean()) }, { title: `${name}NetworkRequest` }),
            response: { 201: Network },
          },
        },
        async (req, reply) => {
          const changes = req.body.sticky_session === undefined ? {} : { [STICKY]: req.body.sticky_session }
          const stored = await settings.edit(req.principal, type, idOf(req.params), changes)
          return reply.code(201).send({ sticky_session: stored[STICKY] === true })
        },
      )
    }
  }
}
