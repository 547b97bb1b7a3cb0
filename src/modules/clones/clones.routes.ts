import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { Environment, EnvironmentParams } from '#src/modules/environments/environments.schemas.ts'
import { toEnvironmentResponse } from '#src/modules/environments/environments.wire.ts'
import type { KindRoutes } from '#src/modules/services/kind-routes.ts'
import { Uuid } from '#src/platform/http/common-schemas.ts'
import { CloneEnvironmentRequest, CloneServiceRequest } from './clones.schemas.ts'
import type { ClonesService } from './clones.service.ts'

const COPIES =
  "Copies the configuration (checked again as a create), the deployment stage, the variables and secrets (secrets sealed as stored, aliases and overrides pointed at their counterparts), a job's advanced settings; not the deployment history. A database clone gets new master credentials. Needs WRITE on the source and on the target."

/** cloneEnvironment, and each kind's clone (`/helm/{helmId}/clone`…). */
export function clonesRoutes(clones: ClonesService, kinds: readonly KindRoutes[]): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      '/environment/:environmentId/clone',
      {
        schema: {
          operationId: 'cloneEnvironment',
          summary: 'Clone environment',
          description: `A new environment with the source's services, stages and environment variables, in the source's project or another of its organization. ${COPIES} The new environment is not deployed.`,
          tags: ['Environment Actions'],
          params: EnvironmentParams,
          body: CloneEnvironmentRequest,
          response: { 202: Environment },
        },
      },
      async (req, reply) => {
        const { name, cluster_id, mode, project_id } = req.body
        const created = await clones.cloneEnvironment(req.principal, req.params.environmentId, {
          name,
          clusterId: cluster_id,
          mode,
          projectId: project_id,
        })
        return reply.code(202).send(toEnvironmentResponse(created))
      },
    )

    for (const kind of kinds) {
      const lower = kind.name.toLowerCase()
      app.post(
        `/${kind.segment}/:${kind.param}/clone`,
        {
          schema: {
            operationId: `clone${kind.name}`,
            summary: `Clone ${lower}`,
            description: `A new ${lower} with the same configuration in the environment \`environment_id\`. ${COPIES}`,
            tags: [`${kind.name}s`],
            params: Type.Object({ [kind.param]: Uuid }),
            body: CloneServiceRequest,
            response: { 202: kind.response.schema },
          },
        },
        async (req, reply) => {
          const serviceId = (req.params as Record<string, string>)[kind.param]!
          const cloned = await clones.cloneService(req.principal, kind.type, serviceId, {
            name: req.body.name,
            environmentId: req.body.environment_id,
          })
          return reply.code(202).send(kind.response.of(cloned) as never)
        },
      )
    }
  }
}
