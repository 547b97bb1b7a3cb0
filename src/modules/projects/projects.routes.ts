import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { OrganizationParams } from '#src/platform/http/common-schemas.ts'
import { listBody } from '#src/platform/http/lists.ts'
import { Project, ProjectParams, ProjectRequest, ProjectResponseList } from './projects.schemas.ts'
import type { ProjectsService } from './projects.service.ts'
import { projectInput, toProjectResponse } from './projects.wire.ts'

const listTags = ['Projects']
const mainTags = ['Project Main Calls']

export function projectsRoutes(projects: ProjectsService): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/organization/:organizationId/project',
      {
        schema: {
          operationId: 'listProject',
          summary: 'List projects',
          description: 'Ordered by name, ignoring letter case; at most BERTH_LIST_LIMIT of them (`has_more` says when more exist).',
          tags: listTags,
          params: OrganizationParams,
          response: { 200: ProjectResponseList },
        },
      },
      async (req) => listBody(await projects.list(req.principal, req.params.organizationId), toProjectResponse),
    )

    app.post(
      '/organization/:organizationId/project',
      {
        schema: {
          operationId: 'createProject',
          summary: 'Create a project',
          description: 'Needs the WRITE role. Answers 200, as the reference does.',
          tags: listTags,
          params: OrganizationParams,
          body: ProjectRequest,
          response: { 200: Project },
        },
      },
      async (req) => toProjectResponse(await projects.create(req.principal, req.params.organizationId, projectInput(req.body))),
    )

    app.get(
      '/project/:projectId',
      {
        schema: { operationId: 'getProject', summary: 'Get project by ID', tags: mainTags, params: ProjectParams, response: { 200: Project } },
      },
      async (req) => toProjectResponse(await projects.get(req.principal, req.params.projectId)),
    )

    app.put(
      '/project/:projectId',
      {
        schema: {
          operationId: 'editProject',
          summary: 'Edit a project',
          description: 'Needs the WRITE role. Replaces the name and description: an omitted description is cleared.',
          tags: mainTags,
          params: ProjectParams,
          body: ProjectRequest,
          response: { 200: Project },
        },
      },
      async (req) => toProjectResponse(await projects.update(req.principal, req.params.projectId, projectInput(req.body))),
    )

    // DELETE /project/:projectId is the deployment triggers' (deletes.routes.ts): a project goes by deleting its environments.
  }
}
