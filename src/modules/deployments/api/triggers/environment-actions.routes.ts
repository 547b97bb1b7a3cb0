import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { EnvironmentParams } from '#src/modules/environments/environments.schemas.ts'
import { ProjectParams } from '#src/modules/projects/projects.schemas.ts'
import { EnvironmentStatus, Status } from '#src/platform/deployment-status.schemas.ts'
import { emptyBodyAsObject } from '#src/platform/http/body-parsing.ts'
import { conflictResponse } from '#src/platform/http/common-schemas.ts'
import { CancelRequest, DryRunQuery } from '../../deployments.schemas.ts'
import type { DeploymentTriggers } from './deployment-triggers.service.ts'
import { toEnvironmentStatusResponse, toStatusResponse } from './triggers.wire.ts'

const QUEUES = 'Needs the DEPLOY role. The deployment is queued behind those of the environment already queued or running, and runs when they end.'

export function environmentActionsRoutes(deployments: DeploymentTriggers): FastifyPluginAsyncTypebox {
  return async (app) => {
    const environmentTags = ['Environment Actions']

    app.post(
      '/environment/:environmentId/deploy',
      {
        schema: {
          operationId: 'deployEnvironment',
          summary: 'Deploy environment',
          description: `Deploys every service of the environment. ${QUEUES}`,
          tags: environmentTags,
          params: EnvironmentParams,
          querystring: DryRunQuery,
          response: { 202: Status },
        },
      },
      async (req, reply) =>
        reply
          .code(202)
          .send(toStatusResponse(await deployments.deployEnvironment(req.principal, req.params.environmentId, req.query.dry_run === true))),
    )

    app.post(
      '/environment/:environmentId/redeploy',
      {
        schema: {
          operationId: 'redeployEnvironment',
          summary: 'Redeploy environment',
          description: `Restarts every service of the environment (trigger RESTART). ${QUEUES}`,
          tags: environmentTags,
          params: EnvironmentParams,
          response: { 202: EnvironmentStatus },
        },
      },
      async (req, reply) =>
        reply.code(202).send(toEnvironmentStatusResponse(await deployments.redeployEnvironment(req.principal, req.params.environmentId))),
    )

    app.post(
      '/environment/:environmentId/stop',
      {
        schema: {
          operationId: 'stopEnvironment',
          summary: 'Stop environment',
          description: `Stops every service of the environment, in the reverse order of deploying. ${QUEUES}`,
          tags: environmentTags,
          params: EnvironmentParams,
          response: { 202: EnvironmentStatus, ...conflictResponse('the environment is already stopped and nothing is queued') },
        },
      },
      async (req, reply) =>
        reply.code(202).send(toEnvironmentStatusResponse(await deployments.stopEnvironment(req.principal, req.params.environmentId))),
    )

    app.post(
      '/environment/:environmentId/cancelDeployment',
      {
        preValidation: emptyBodyAsObject,
        schema: {
          operationId: 'cancelEnvironmentDeployment',
          summary: 'Cancel environment deployment',
          description:
            'Needs the DEPLOY role. Cancels every deployment of the environment that is queued (at once: CANCELED) or running ' +
            '(CANCELING while what runs is stopped, then CANCELED).',
          tags: environmentTags,
          params: EnvironmentParams,
          body: CancelRequest,
          response: { 202: EnvironmentStatus, ...conflictResponse('nothing is queued or running, or the cancel is already under way') },
        },
      },
      async (req, reply) =>
        reply.code(202).send(toEnvironmentStatusResponse(await deployments.cancelEnvironment(req.principal, req.params.environmentId))),
    )

    app.get(
      '/environment/:environmentId/status',
      {
        schema: {
          operationId: 'getEnvironmentStatus',
          summary: 'Get environment status',
          description:
            "`state` is what the environment is busy with, else its newest deployment's outcome (STOPPED only while no service is DEPLOYED or RESTARTED); READY before any.",
          tags: ['Environment Main Calls'],
          params: EnvironmentParams,
          response: { 200: EnvironmentStatus },
        },
      },
      async (req) => toEnvironmentStatusResponse(await deployments.getEnvironmentStatus(req.principal, req.params.environmentId)),
    )

    app.get(
      '/project/:projectId/environment/status',
      {
        schema: {
          operationId: 'getProjectEnvironmentsStatus',
          summary: 'List environments statuses',
          description:
            "Each environment of the project with its status, as getEnvironmentStatus answers it (what `qovery environment list` shows). A custom role's holder gets the environments it sees.",
          tags: ['Environments'],
          params: ProjectParams,
          response: { 200: Type.Object({ results: Type.Array(EnvironmentStatus) }, { title: 'EnvironmentStatusList' }) },
        },
      },
      async (req) => ({
        results: (await deployments.getProjectEnvironmentsStatus(req.principal, req.params.projectId)).map(toEnvironmentStatusResponse),
      }),
    )
  }
}
