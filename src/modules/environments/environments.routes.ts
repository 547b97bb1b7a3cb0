import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { ProjectParams } from '#src/modules/projects/projects.schemas.ts'
import { listBody } from '#src/platform/http/lists.ts'
import { CreateEnvironmentRequest, Environment, EnvironmentEditRequest, EnvironmentParams, EnvironmentResponseList } from './environments.schemas.ts'
import type { EnvironmentsService } from './environments.service.ts'
import { environmentEdit, newEnvironmentInput, toEnvironmentResponse } from './environments.wire.ts'

const listTags = ['Environments']
const mainTags = ['Environment Main Calls']

export function environmentsRoutes(environments: EnvironmentsService): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/project/:projectId/environment',
      {
        schema: {
          operationId: 'listEnvironment',
          summary: 'List environments',
          description: 'Ordered by name, ignoring letter case; at most BERTH_LIST_LIMIT of them (`has_more` says when more exist).',
          tags: listTags,
          params: ProjectParams,
          response: { 200: EnvironmentResponseList },
        },
      },
      async (req) => listBody(await environments.list(req.principal, req.params.projectId), toEnvironmentResponse),
    )

    app.post(
      '/project/:projectId/environment',
      {
        schema: {
          operationId: 'createEnvironment',
          summary: 'Create an environment',
          description: "Needs the WRITE role. Without `cluster`, the environment goes on the organization's default cluster.",
          tags: listTags,
          params: ProjectParams,
          body: CreateEnvironmentRequest,
          response: { 201: Environment },
        },
      },
      async (req, reply) => {
        const created = await environments.create(req.principal, req.params.projectId, newEnvironmentInput(req.body))
        return reply.code(201).send(toEnvironmentResponse(created))
      },
    )

    app.get(
      '/environment/:environmentId',
      {
        schema: {
          operationId: 'getEnvironment',
          summary: 'Get environment by ID',
          tags: mainTags,
          params: EnvironmentParams,
          response: { 200: Environment },
        },
      },
      async (req) => toEnvironmentResponse(await environments.get(req.principal, req.params.environmentId)),
    )

    app.put(
      '/environment/:environmentId',
      {
        schema: {
          operationId: 'editEnvironment',
          summary: 'Edit an environment',
          description: 'Needs the WRITE role. A partial edit: absent fields keep their value.',
          tags: mainTags,
          params: EnvironmentParams,
          body: EnvironmentEditRequest,
          response: { 200: Environment },
        },
      },
      async (req) => toEnvironmentResponse(await environments.update(req.principal, req.params.environmentId, environmentEdit(req.body))),
    )

    // DELETE /environment/:environmentId is the deployment triggers' (deletes.routes.ts): an environment with services goes by a deployment.
  }
}
