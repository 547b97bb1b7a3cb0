import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { EnvironmentParams } from '#src/modules/environments/environments.schemas.ts'
import { HelmParams } from '#src/modules/helm-services/helm-services.schemas.ts'
import { emptyBodyAsObject } from '#src/platform/http/body-parsing.ts'
import { CancelRequest, EnvironmentStatus, HelmDeployRequest, HelmForceEventQuery, Status } from './deployments.schemas.ts'
import type { DeploymentsService } from './deployments.service.ts'
import { helmDeployOverrides, toEnvironmentStatusResponse, toStatusResponse } from './deployments.wire.ts'

const QUEUES = 'Needs the DEPLOY role. The deployment is queued behind those of the environment already queued or running, and runs when they end.'

const conflict = (description: string) => ({ 409: Type.Ref('ErrorResponse', { description: `${description} (\`conflict\`)` }) })

export function deploymentActionsRoutes(deployments: DeploymentsService): FastifyPluginAsyncTypebox {
  return async (app) => {
    const environmentTags = ['Environment Actions']
    const helmTags = ['Helm Actions']

    app.post(
      '/environment/:environmentId/deploy',
      {
        schema: {
          operationId: 'deployEnvironment',
          summary: 'Deploy environment',
          description: `Deploys every service of the environment. ${QUEUES}`,
          tags: environmentTags,
          params: EnvironmentParams,
          response: { 202: Status },
        },
      },
      async (req, reply) => reply.code(202).send(toStatusResponse(await deployments.deployEnvironment(req.principal, req.params.environmentId))),
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
          response: { 202: EnvironmentStatus, ...conflict('the environment is already stopped and nothing is queued') },
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
          response: { 202: EnvironmentStatus, ...conflict('nothing is queued or running, or the cancel is already under way') },
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

    app.post(
      '/helm/:helmId/deploy',
      {
        preValidation: emptyBodyAsObject,
        schema: {
          operationId: 'deployHelm',
          summary: 'Deploy helm',
          description: `\`chart_version\` applies to a chart of a helm repository, \`git_commit_id\` to one in a git repository. ${QUEUES}`,
          tags: helmTags,
          params: HelmParams,
          querystring: HelmForceEventQuery,
          body: HelmDeployRequest,
          response: { 202: Status },
        },
      },
      async (req, reply) => {
        const queued = await deployments.deployHelm(req.principal, req.params.helmId, helmDeployOverrides(req.body))
        return reply.code(202).send(toStatusResponse(queued))
      },
    )

    app.post(
      '/helm/:helmId/redeploy',
      {
        schema: {
          operationId: 'redeployHelm',
          summary: 'Redeploy helm',
          description: `Restarts the helm service (trigger RESTART). ${QUEUES}`,
          tags: helmTags,
          params: HelmParams,
          querystring: HelmForceEventQuery,
          response: { 202: Status },
        },
      },
      async (req, reply) => reply.code(202).send(toStatusResponse(await deployments.redeployHelm(req.principal, req.params.helmId))),
    )

    app.post(
      '/helm/:helmId/stop',
      {
        schema: {
          operationId: 'stopHelm',
          summary: 'Stop helm',
          description: QUEUES,
          tags: helmTags,
          params: HelmParams,
          response: { 202: Status, ...conflict('the helm service is already stopped and nothing queued includes it') },
        },
      },
      async (req, reply) => reply.code(202).send(toStatusResponse(await deployments.stopHelm(req.principal, req.params.helmId))),
    )

    app.post(
      '/helm/:helmId/uninstall',
      {
        preValidation: emptyBodyAsObject,
        schema: {
          operationId: 'uninstallHelm',
          summary: 'Uninstall helm',
          description: `Deletes what the chart installed and keeps the service's configuration (trigger UNINSTALL). ${QUEUES} 204 when the chart is not installed and nothing queued would install it.`,
          tags: helmTags,
          params: HelmParams,
          body: Type.Object({}),
          response: { 202: Status, 204: { type: 'null', description: 'no deployment was triggered: the chart is not installed' } },
        },
      },
      async (req, reply) => {
        const queued = await deployments.uninstallHelm(req.principal, req.params.helmId)
        if (queued === 'nothing') return reply.code(204).send(undefined as never)
        return reply.code(202).send(toStatusResponse(queued))
      },
    )

    app.get(
      '/helm/:helmId/status',
      {
        schema: {
          operationId: 'getHelmStatus',
          summary: 'Get helm status',
          description: "`state` is the service's state in its newest deployment; READY before any.",
          tags: ['Helm Main Calls'],
          params: HelmParams,
          response: { 200: Status },
        },
      },
      async (req) => toStatusResponse(await deployments.getHelmStatus(req.principal, req.params.helmId)),
    )
  }
}
