import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { DeleteEnvironmentQuery, EnvironmentParams } from '#src/modules/environments/environments.schemas.ts'
import { ProjectParams } from '#src/modules/projects/projects.schemas.ts'
import type { DeploymentTriggers } from './deployment-triggers.service.ts'

// The deletes of projects and environments: an environment with services goes by a deployment
// (trigger DELETE), and a project by deleting its environments, so the triggers answer them.
// Registered after the projects' and environments' own routes, they stand beside them in /openapi.json.

export function projectAndEnvironmentDeletesRoutes(triggers: DeploymentTriggers): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.delete(
      '/project/:projectId',
      {
        schema: {
          operationId: 'deleteProject',
          summary: 'Delete a project',
          description:
            "Needs the WRITE role. Deletes each of its environments as deleteEnvironment does (their services uninstalled: an IAC service's destroy, volumes and images removed); the project goes with its last environment, at once when none has services. Meanwhile no environment can be added to it (404).",
          tags: ['Project Main Calls'],
          params: ProjectParams,
        },
      },
      async (req, reply) => {
        await triggers.deleteProject(req.principal, req.params.projectId)
        return reply.code(204).send()
      },
    )

    app.delete(
      '/environment/:environmentId',
      {
        schema: {
          operationId: 'deleteEnvironment',
          summary: 'Delete an environment',
          description:
            'Needs the WRITE role. An environment without services goes at once; otherwise a deployment (trigger DELETE) uninstalls its services, running the on_delete of its lifecycle jobs, and the environment goes when every service went: until then it reads as DELETE_QUEUED or DELETING, and a failed deletion leaves it (DELETE_ERROR) with the services that failed. Another delete meanwhile changes nothing; other deployments are refused (409).',
          tags: ['Environment Main Calls'],
          params: EnvironmentParams,
          querystring: DeleteEnvironmentQuery,
        },
      },
      async (req, reply) => {
        await triggers.deleteEnvironment(req.principal, req.params.environmentId)
        return reply.code(204).send()
      },
    )
  }
}
