import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import type { DeploymentRun } from '#src/modules/deployments/queue/deployment-progress.ts'
import { EnvironmentParams } from '#src/modules/environments/environments.schemas.ts'
import { pullRequestUrl } from '#src/modules/git-webhooks/pull-request-events.ts'
import { Status } from '#src/platform/deployment-status.schemas.ts'
import { OrganizationParams, Uuid } from '#src/platform/http/common-schemas.ts'
import type { DeploymentRuleRecord, DeploymentRulesService } from './deployment-rules.service.ts'
import {
  EnvironmentDeploymentRule,
  EnvironmentDeploymentRuleEditRequest,
  OrganizationContainerPreviewRequest,
  PreviewEnvironmentList,
} from './previews.schemas.ts'
import type { PreviewRecord, PreviewsService } from './previews.service.ts'

// previewContainerEnvironments, an environment's previews (for the console), and the environment
// deployment rule that holds the reference's preview settings. docs/previews.md.

/** The Status previewContainerEnvironments answers: the first preview's queued deployment, else the organization, with nothing queued. */
function previewStatus(organizationId: string, runs: DeploymentRun[]) {
  const [run] = runs
  if (!run) {
    return {
      id: organizationId,
      state: 'READY' as const,
      service_deployment_status: 'UP_TO_DATE' as const,
      is_part_last_deployment: false,
      status_details: { action: 'DEPLOY' as const, status: 'NEVER' as const, sub_action: 'NONE' as const },
      deployment_request_id: null,
      deployment_requests_count: 0,
    }
  }
  return {
    id: run.environmentId,
    state: run.status,
    service_deployment_status: 'NEVER_DEPLOYED' as const,
    last_deployment_date: run.createdAt,
    is_part_last_deployment: true,
    execution_id: run.id,
    status_details: { action: 'DEPLOY' as const, status: 'QUEUED' as const, sub_action: 'NONE' as const },
    deployment_request_id: run.id,
    deployment_requests_count: runs.length,
  }
}

export const toPreviewResponse = (row: PreviewRecord) => ({
  id: row.id,
  environment_id: row.environmentId,
  environment_name: row.environmentName,
  source_environment_id: row.sourceEnvironmentId,
  kind: row.pullRequestNumber === null ? ('CONTAINER_TAG' as const) : ('PULL_REQUEST' as const),
  provider: row.provider,
  repository: row.repository,
  pull_request:
    row.pullRequestNumber === null
      ? null
      : {
          number: row.pullRequestNumber,
          title: row.title,
          // A link stored before links were checked is checked on the way out too.
          url: pullRequestUrl(row.provider, row.url),
          head_branch: row.headBranch,
          head_commit: row.headCommit,
          author: row.author,
        },
  image_tag: row.imageTag,
  created_at: row.createdAt.toISOString(),
  last_activity_at: row.lastActivityAt.toISOString(),
})

const toRuleResponse = (rule: DeploymentRuleRecord) => ({
  id: rule.id,
  created_at: rule.createdAt.toISOString(),
  ...(rule.updatedAt ? { updated_at: rule.updatedAt.toISOString() } : {}),
  on_demand_preview: rule.onDemandPreview,
  auto_stop: rule.autoStop,
  auto_preview: rule.autoPreview,
  timezone: rule.timezone,
  start_time: rule.startTime.toISOString(),
  stop_time: rule.stopTime.toISOString(),
  weekdays: rule.weekdays as never,
})

export function previewsRoutes(previews: PreviewsService, rules: DeploymentRulesService): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      '/organization/:organizationId/container/preview',
      {
        schema: {
          operationId: 'previewContainerEnvironments',
          summary: 'Preview container environments',
          description:
            'Triggers a new container preview for each environment matching the following conditions: preview environment feature should be enabled for the container (`auto_preview`); the container should have the same image name and a different tag. Each preview is a clone of the environment, of mode PREVIEW, named `<environment>-<tag>`, where those containers run `tag`, deployed at once (origin API). The same tag again makes nothing new. Needs DEPLOY in the organization and on each environment previewed (others are left out; 403 when there were some and none may be deployed); BERTH_PREVIEWS_PER_ENVIRONMENT bounds them (docs/previews.md).',
          tags: ['Containers'],
          params: OrganizationParams,
          body: OrganizationContainerPreviewRequest,
          response: { 202: Status },
        },
      },
      async (req, reply) => {
        const runs = await previews.previewContainers(req.principal, req.params.organizationId, req.body.image_name, req.body.tag)
        return reply.code(202).send(previewStatus(req.params.organizationId, runs))
      },
    )

    app.get(
      '/environment/:environmentId/previews',
      {
        schema: {
          operationId: 'listEnvironmentPreviews',
          summary: "List the environment's preview environments",
          description:
            'Berth extension (docs/previews.md). Needs READ on the environment. Its previews, oldest first: each with its environment (null while being made), the pull request it previews (number, title, link, head) or the image tag.',
          tags: ['Environment Main Calls'],
          params: EnvironmentParams,
          response: { 200: PreviewEnvironmentList },
        },
      },
      async (req) => ({ results: (await previews.list(req.principal, req.params.environmentId)).map(toPreviewResponse) }),
    )

    app.get(
      '/environment/:environmentId/deploymentRule',
      {
        schema: {
          operationId: 'getEnvironmentDeploymentRule',
          summary: 'Get environment deployment rule',
          description:
            "Needs READ. The rule's `id` is the environment's. `auto_preview` is the environment's: pull requests against a branch it deploys make previews (docs/previews.md). Berth keeps the schedule fields as given and starts or stops nothing by them.",
          tags: ['Environment Deployment Rule'],
          params: EnvironmentParams,
          response: { 200: EnvironmentDeploymentRule },
        },
      },
      async (req) => toRuleResponse(await rules.get(req.principal, req.params.environmentId)),
    )

    app.put(
      '/environment/:environmentId/deploymentRule/:deploymentRuleId',
      {
        schema: {
          operationId: 'editEnvironmentDeploymentRule',
          summary: 'Edit an environment deployment rule',
          description:
            "Needs WRITE. `deploymentRuleId` is the environment's id (getEnvironmentDeploymentRule's `id`). `auto_preview` (false when absent) sets the environment's.",
          tags: ['Environment Deployment Rule'],
          params: Type.Object({ environmentId: Uuid, deploymentRuleId: Uuid }),
          body: EnvironmentDeploymentRuleEditRequest,
          response: { 200: EnvironmentDeploymentRule },
        },
      },
      async (req) => {
        const { body } = req
        const rule = await rules.edit(req.principal, req.params.environmentId, req.params.deploymentRuleId, {
          onDemandPreview: body.on_demand_preview ?? false,
          autoPreview: body.auto_preview ?? false,
          autoStop: body.auto_stop ?? false,
          timezone: body.timezone,
          startTime: new Date(body.start_time),
          stopTime: new Date(body.stop_time),
          weekdays: body.weekdays,
        })
        return toRuleResponse(rule)
      },
    )
  }
}
