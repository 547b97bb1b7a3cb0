import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { GitTokenParams } from '#src/modules/organization-credentials/git-tokens/git-tokens.schemas.ts'
import { HelmRepositoryParams } from '#src/modules/organization-credentials/helm-repositories/helm-repositories.schemas.ts'
import { ProjectParams } from '#src/modules/projects/projects.schemas.ts'
import { OrganizationParams } from '#src/platform/http/common-schemas.ts'
import { listBody } from '#src/platform/http/lists.ts'
import {
  AvailableRoleList,
  EnvironmentOverviewList,
  EnvironmentStatsList,
  GitTokenAssociatedServicesList,
  HelmRepositoryAssociatedServicesList,
  OnboardingPatchRequest,
  OnboardingResponse,
  OrganizationEnvironmentList,
  ProjectStatsList,
  ServiceLightList,
  ServicesQuery,
} from './organization-views.schemas.ts'
import type { OrganizationViewsService } from './organization-views.service.ts'
import {
  toAssociatedServiceResponse,
  toEnvironmentOverviewResponse,
  toOrganizationEnvironmentResponse,
  toServiceLightResponse,
} from './organization-views.wire.ts'

const VISIBLE = 'A custom role’s holder sees only the environments it may read, in lists and in counts.'
const CAPPED = 'At most BERTH_LIST_LIMIT of them; `has_more` (Berth extension) says whether some were left out.'

export function organizationViewsRoutes(views: OrganizationViewsService): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/organization/:organizationId/services',
      {
        schema: {
          operationId: 'listServicesByOrganizationId',
          summary: 'List Services By OrganizationId',
          description: `The organization's services of every kind, by project, environment and name, filtered by project, environment or cluster. ${CAPPED} ${VISIBLE}`,
          tags: ['Organization Main Calls'],
          params: OrganizationParams,
          querystring: ServicesQuery,
          response: { 200: ServiceLightList },
        },
      },
      async (req) => {
        const { project_id: projectId, environment_id: environmentId, cluster_id: clusterId } = req.query
        return listBody(
          await views.listServices(req.principal, req.params.organizationId, { projectId, environmentId, clusterId }),
          toServiceLightResponse,
        )
      },
    )

    app.get(
      '/organization/:organizationId/environments',
      {
        schema: {
          operationId: 'listEnvironmentsByOrganizationId',
          summary: 'List Environments By OrganizationId',
          description: `The environments of every project of the organization, by project and name. ${CAPPED} ${VISIBLE} Berth extension: \`cluster_id\`.`,
          tags: ['Organization Main Calls'],
          params: OrganizationParams,
          response: { 200: OrganizationEnvironmentList },
        },
      },
      async (req) =>
        listBody(
          await views.listEnvironments(req.principal, req.params.organizationId),
          toOrganizationEnvironmentResponse(req.params.organizationId),
        ),
    )

    app.get(
      '/organization/:organizationId/project/stats',
      {
        schema: {
          operationId: 'getOrganizationProjectStats',
          summary: 'List total number of services and environments for each project of the organization',
          description: `Each project of the organization, by name, with how many environments and services it holds. ${VISIBLE}`,
          tags: ['Projects'],
          params: OrganizationParams,
          response: { 200: ProjectStatsList },
        },
      },
      async (req) => ({
        results: (await views.projectStats(req.principal, req.params.organizationId)).map((project) => ({
          id: project.id,
          service_total_number: project.services,
          environment_total_number: project.environments,
        })),
      }),
    )

    app.get(
      '/project/:projectId/environment/stats',
      {
        schema: {
          operationId: 'getProjectEnvironmentServiceNumber',
          summary: 'List total number of services for each environment of the project',
          description: `Each environment of the project, by name, with how many services it holds. ${VISIBLE}`,
          tags: ['Environments'],
          params: ProjectParams,
          response: { 200: EnvironmentStatsList },
        },
      },
      async (req) => ({
        results: (await views.environmentStats(req.principal, req.params.projectId)).map((environment) => ({
          id: environment.id,
          service_total_number: environment.services,
        })),
      }),
    )

    app.get(
      '/project/:projectId/environment/overview',
      {
        schema: {
          operationId: 'getProjectEnvironmentsOverview',
          summary: 'List environments overview',
          description: `Each environment of the project, by name, with its cluster, how many services it holds and who deploys them, and its status (getEnvironmentStatus). ${VISIBLE}`,
          tags: ['Environments'],
          params: ProjectParams,
          response: { 200: EnvironmentOverviewList },
        },
      },
      async (req) => ({ results: (await views.environmentsOverview(req.principal, req.params.projectId)).map(toEnvironmentOverviewResponse) }),
    )

    app.get(
      '/organization/:organizationId/gitToken/:gitTokenId/associatedServices',
      {
        schema: {
          operationId: 'getGitTokenAssociatedServices',
          summary: 'Get organization git token associated services',
          description: `The services whose repositories are read with the git token (applications, jobs as CRON or LIFECYCLE, helms, terraforms), by project, environment and name. ${CAPPED} ${VISIBLE}`,
          tags: ['Organization Main Calls'],
          params: GitTokenParams,
          response: { 200: GitTokenAssociatedServicesList },
        },
      },
      async (req) =>
        listBody(await views.gitTokenServices(req.principal, req.params.organizationId, req.params.gitTokenId), toAssociatedServiceResponse),
    )

    app.get(
      '/organization/:organizationId/helmRepository/:helmRepositoryId/associatedServices',
      {
        schema: {
          operationId: 'getHelmRepositoryAssociatedServices',
          summary: 'Get organization helm repository associated services',
          description: `The helm services whose chart comes from the repository, by project, environment and name. ${CAPPED} ${VISIBLE}`,
          tags: ['Organization Main Calls'],
          params: HelmRepositoryParams,
          response: { 200: HelmRepositoryAssociatedServicesList },
        },
      },
      async (req) =>
        listBody(
          await views.helmRepositoryServices(req.principal, req.params.organizationId, req.params.helmRepositoryId),
          toAssociatedServiceResponse,
        ),
    )

    app.get(
      '/organization/:organizationId/availableRole',
      {
        schema: {
          operationId: 'listOrganizationAvailableRoles',
          summary: 'List organization available roles',
          description:
            "The roles a member, an invitation or an API token can be given: the built-in ADMIN, WRITE, DEPLOY and READ by their fixed ids, then the organization's custom roles by name.",
          tags: ['Organization Main Calls'],
          params: OrganizationParams,
          response: { 200: AvailableRoleList },
        },
      },
      async (req) => ({ results: await views.availableRoles(req.principal, req.params.organizationId) }),
    )

    app.get(
      '/organization/:organizationId/onboarding',
      {
        schema: {
          operationId: 'getOrganizationOnboarding',
          summary: 'Get the onboarding status of an organization',
          description:
            "Where the organization's onboarding stands: IN_PROGRESS until a member with WRITE marks it DISMISSED or COMPLETED. `use_cases` is null: Berth has no sign-up.",
          tags: ['Organization Main Calls'],
          params: OrganizationParams,
          response: { 200: OnboardingResponse },
        },
      },
      async (req) => ({ use_cases: null, status: await views.onboarding(req.principal, req.params.organizationId) }),
    )

    app.post(
      '/organization/:organizationId/onboarding',
      {
        schema: {
          operationId: 'updateOrganizationOnboarding',
          summary: 'Update the onboarding status of an organization',
          description: "Sets where the organization's onboarding stands (the console's getting-started guide reads it). Needs the WRITE role.",
          tags: ['Organization Main Calls'],
          params: OrganizationParams,
          body: OnboardingPatchRequest,
          response: { 200: OnboardingResponse },
        },
      },
      async (req) => ({ use_cases: null, status: await views.setOnboarding(req.principal, req.params.organizationId, req.body.status) }),
    )
  }
}
