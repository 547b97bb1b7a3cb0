import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { ProjectParams } from '#src/modules/projects/projects.schemas.ts'
import type { Principal } from '#src/platform/auth/principal.ts'
import { listBody } from '#src/platform/http/lists.ts'
import {
  CreateEnvironmentRequest,
  DeleteEnvironmentQuery,
  Environment,
  EnvironmentEditRequest,
  EnvironmentParams,
  EnvironmentResponseList,
} from './environments.schemas.ts'
import type { EnvironmentsService } from './environments.service.ts'
import { environmentEdit, newEnvironmentInput, toEnvironmentResponse } from './environments.wire.ts'

const listTags = ['Environments']
const mainTags = ['Environment Main Calls']

/**
 * `deleteEnvironment` is the deployment triggers' (an environment with services is deleted by a
 * deployment); the other routes are the environments service's.
 */
export function environmentsRoutes(
  environments: EnvironmentsService,
  deleteEnvironment: (principal: Principal, environmentId: string) => Promise<void>,
): FastifyPluginAsyncTypebox {
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

    app.delete(
      '/environment/:environmentId',
      {
        schema: {
          operationId: 'deleteEnvironment',
          summary: 'Delete an environment',
          description:
            'Needs the WRITE role. An environment without services goes at once; otherwise a deployment (trigger DELETE) uninstalls its services, running the on_delete of its lifecycle jobs, and the environment goes when every service went: until then it reads as DELETE_QUEUED or DELETING, and a failed deletion leaves it (DELETE_ERROR) with the services that failed. Another delete meanwhile changes nothing; other deployments are refused (409).',
          tags: mainTags,
          params: EnvironmentParams,
          querystring: DeleteEnvironmentQuery,
        },
      },
      async (req, reply) => {
        await deleteEnvironment(req.principal, req.params.environmentId)
        return reply.code(204).send()
      },
    )
  }
}
