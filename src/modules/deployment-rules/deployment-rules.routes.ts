import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import type { DeploymentRuleRow } from './deployment-rules.repository.ts'
import {
  DeploymentRuleParams,
  type ProjectDeploymentRule,
  ProjectDeploymentRuleRequest,
  ProjectDeploymentRuleResponseList,
  ProjectDeploymentRule as ProjectDeploymentRuleSchema,
  ProjectDeploymentRulesPriorityOrderRequest,
  ProjectParams,
  type RuleMode,
  type Weekday,
} from './deployment-rules.schemas.ts'
import type { DeploymentRuleInput, ProjectDeploymentRulesService } from './deployment-rules.service.ts'

const tags = ['Project Deployment Rule']

const toRuleResponse = (row: DeploymentRuleRow): ProjectDeploymentRule => ({
  id: row.id,
  created_at: row.createdAt.toISOString(),
  updated_at: row.updatedAt.toISOString(),
  name: row.name,
  description: row.description,
  mode: row.mode as RuleMode,
  cluster_id: row.clusterId,
  auto_stop: row.autoStop,
  timezone: row.timezone,
  start_time: row.startTime.toISOString(),
  stop_time: row.stopTime.toISOString(),
  weekdays: row.weekdays as Weekday[],
  wildcard: row.wildcard,
  priority_index: row.priorityIndex,
})

const ruleInput = (body: ProjectDeploymentRuleRequest): DeploymentRuleInput => ({
  name: body.name.trim(),
  description: body.description ?? null,
  mode: body.mode,
  clusterId: body.cluster_id.toLowerCase(),
  autoStop: body.auto_stop ?? false,
  timezone: body.timezone,
  startTime: new Date(body.start_time),
  stopTime: new Date(body.stop_time),
  weekdays: body.weekdays,
  wildcard: body.wildcard ?? '',
})

export function deploymentRulesRoutes(rules: ProjectDeploymentRulesService): FastifyPluginAsyncTypebox {
  return async (app) => {
    const base = '/project/:projectId/deploymentRule'

    app.get(
      base,
      {
        schema: {
          operationId: 'listProjectDeploymentRules',
          summary: 'List project deployment rules',
          description: 'In priority order: the first whose `wildcard` matches a new environment’s name gives it its mode, cluster and schedule.',
          tags,
          params: ProjectParams,
          response: { 200: ProjectDeploymentRuleResponseList },
        },
      },
      async (req) => ({ results: (await rules.list(req.principal, req.params.projectId)).map(toRuleResponse) }),
    )

    app.post(
      base,
      {
        schema: {
          operationId: 'createDeploymentRule',
          summary: 'Create a deployment rule',
          description: 'Needs the WRITE role. The new rule comes last in priority. 409 when the project has a rule of that name.',
          tags,
          params: ProjectParams,
          body: ProjectDeploymentRuleRequest,
          response: { 201: ProjectDeploymentRuleSchema, 409: Type.Ref('ErrorResponse', { description: 'the name is taken (`conflict`)' }) },
        },
      },
      async (req, reply) => reply.code(201).send(toRuleResponse(await rules.create(req.principal, req.params.projectId, ruleInput(req.body)))),
    )

    // Registered before `/:deploymentRuleId`, which would otherwise not match `order` anyway (not a UUID): kept here for reading order.
    app.put(
      `${base}/order`,
      {
        schema: {
          operationId: 'updateDeploymentRulesPriorityOrder',
          summary: 'Update deployment rules priority order',
          description: 'Needs the WRITE role. The rules named come first, in that order; those left out follow in their order of before.',
          tags,
          params: ProjectParams,
          body: ProjectDeploymentRulesPriorityOrderRequest,
          response: { 200: Type.Null({ description: 'reordered' }) },
        },
      },
      async (req, reply) => {
        await rules.reorder(req.principal, req.params.projectId, req.body.project_deployment_rule_ids_in_order ?? [])
        return reply.code(200).send(null)
      },
    )

    app.get(
      `${base}/:deploymentRuleId`,
      {
        schema: {
          operationId: 'getProjectDeploymentRule',
          summary: 'Get a project deployment rule',
          tags,
          params: DeploymentRuleParams,
          response: { 200: ProjectDeploymentRuleSchema },
        },
      },
      async (req) => toRuleResponse(await rules.get(req.principal, req.params.projectId, req.params.deploymentRuleId)),
    )

    app.put(
      `${base}/:deploymentRuleId`,
      {
        schema: {
          operationId: 'editProjectDeployemtnRule',
          summary: 'Edit a project deployment rule',
          description:
            'Needs the WRITE role. A full replacement; the rule keeps its place in the order. Environments made by it keep what it gave them.',
          tags,
          params: DeploymentRuleParams,
          body: ProjectDeploymentRuleRequest,
          response: { 200: ProjectDeploymentRuleSchema, 409: Type.Ref('ErrorResponse', { description: 'the name is taken (`conflict`)' }) },
        },
      },
      async (req) => {
        const { projectId, deploymentRuleId } = req.params
        return toRuleResponse(await rules.update(req.principal, projectId, deploymentRuleId, ruleInput(req.body)))
      },
    )

    app.delete(
      `${base}/:deploymentRuleId`,
      {
        schema: {
          operationId: 'deleteProjectDeploymentRule',
          summary: 'Delete a project deployment rule',
          description: 'Needs the WRITE role. Environments made by it keep what it gave them.',
          tags,
          params: DeploymentRuleParams,
          response: { 204: Type.Null({ description: 'deleted' }) },
        },
      },
      async (req, reply) => {
        await rules.delete(req.principal, req.params.projectId, req.params.deploymentRuleId)
        return reply.code(204).send(null)
      },
    )
  }
}
