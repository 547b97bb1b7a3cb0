import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { EnvironmentParams } from '#src/modules/environments/environments.schemas.ts'
import type { KindRoutes } from '#src/modules/services/kind-routes.ts'
import { Status } from '#src/platform/deployment-status.schemas.ts'
import { Uuid } from '#src/platform/http/common-schemas.ts'
import type { DeploymentTriggers } from './deployment-triggers.service.ts'
import { toStatusResponse } from './triggers.wire.ts'

// Berth extension: going back to what an earlier deployment ran (the reference has no place for
// it). A rollback is a DEPLOY of the earlier deployment's snapshots.

const RollbackRequest = Type.Object(
  {
    execution_id: Type.String({
      format: 'uuid',
      description: 'The execution id (a history entry) of the earlier successful deploy or redeploy to deploy again',
    }),
  },
  { title: 'RollbackRequest', additionalProperties: false },
)

const WHAT_IS_RESTORED =
  'What runs afterwards is what ran then: its configuration, the overrides its deploy named (image tag, commit, chart version), ' +
  'its variables and secrets, advanced settings and labels, as of then. The stored configuration is not changed: the service reads ' +
  'OUT_OF_DATE until it is deployed as configured again. The history records a DEPLOY whose service details carry ' +
  '`restores_execution_id`. Needs the DEPLOY role; queued behind the deployments of the environment already queued or running. ' +
  'An execution that is not a successful deploy or redeploy of it is a 400 at `/execution_id`.'

/** `POST /{kind}/{id}/rollback` of one kind's services. */
export function serviceRollbackRoutes(kind: KindRoutes, triggers: DeploymentTriggers): FastifyPluginAsyncTypebox {
  const Params = Type.Object({ [kind.param]: Uuid })
  const lower = kind.name.toLowerCase()
  return async (app) => {
    app.post(
      `/${kind.segment}/:${kind.param}/rollback`,
      {
        schema: {
          operationId: `rollback${kind.name}`,
          summary: `Roll back ${lower}`,
          description: `Berth extension: deploys the ${lower} service again as the earlier execution \`execution_id\` deployed it. ${WHAT_IS_RESTORED}`,
          tags: [kind.tags.actions],
          params: Params,
          body: RollbackRequest,
          response: { 202: Status },
        },
      },
      async (req, reply) => {
        const serviceId = (req.params as Record<string, string>)[kind.param]!
        const queued = await triggers.rollbackService(req.principal, kind.type, serviceId, req.body.execution_id)
        return reply.code(202).send(toStatusResponse(queued))
      },
    )
  }
}

/** `POST /environment/{environmentId}/rollback`. */
export function environmentRollbackRoutes(triggers: DeploymentTriggers): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      '/environment/:environmentId/rollback',
      {
        schema: {
          operationId: 'rollbackEnvironment',
          summary: 'Roll back environment',
          description:
            'Berth extension: deploys again, as the earlier execution `execution_id` deployed them, the services it deployed ' +
            'successfully that are still in the environment and not skipped (the execution must have succeeded as a whole); ' +
            `services it did not deploy are left as they are. ${WHAT_IS_RESTORED}`,
          tags: ['Environment Actions'],
          params: EnvironmentParams,
          body: RollbackRequest,
          response: { 202: Status },
        },
      },
      async (req, reply) =>
        reply.code(202).send(toStatusResponse(await triggers.rollbackEnvironment(req.principal, req.params.environmentId, req.body.execution_id))),
    )
  }
}
