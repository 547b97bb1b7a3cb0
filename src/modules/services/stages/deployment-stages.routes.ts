import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { EnvironmentParams } from '#src/modules/environments/environments.schemas.ts'
import { emptyBodyAsObject } from '#src/platform/http/body-parsing.ts'
import { conflictResponse } from '#src/platform/http/common-schemas.ts'
import {
  AttachServiceParams,
  AttachServiceRequest,
  DeploymentStageParams,
  DeploymentStageRequest,
  DeploymentStageResponse,
  DeploymentStageResponseList,
  MoveStageParams,
  ServiceParams,
} from './deployment-stages.schemas.ts'
import type { DeploymentStagesService } from './deployment-stages.service.ts'
import { stageInput, toStageList, toStageResponse } from './deployment-stages.wire.ts'

const tags = ['Deployment Stage Main Calls']

export function deploymentStagesRoutes(stages: DeploymentStagesService): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/environment/:environmentId/deploymentStage',
      {
        schema: {
          operationId: 'ListEnvironmentDeploymentStage',
          summary: 'List environment deployment stages',
          description: 'In deploy order.',
          tags,
          params: EnvironmentParams,
          response: { 200: DeploymentStageResponseList },
        },
      },
      async (req) => toStageList(await stages.list(req.principal, req.params.environmentId)),
    )

    app.post(
      '/environment/:environmentId/deploymentStage',
      {
        schema: {
          operationId: 'CreateEnvironmentDeploymentStage',
          summary: 'Create environment deployment stage',
          description:
            'Needs the WRITE role. The new stage deploys after the others. Berth limit: an environment holds at most ' +
            "BERTH_SERVICES_PER_ENVIRONMENT stages (200 by default), a 409 past it; a kind's default stage is made with its first service whatever their number.",
          tags,
          params: EnvironmentParams,
          body: DeploymentStageRequest,
          response: {
            200: DeploymentStageResponse,
            ...conflictResponse('the name is taken in the environment, or the environment holds BERTH_SERVICES_PER_ENVIRONMENT stages already'),
          },
        },
      },
      async (req) => toStageResponse(await stages.create(req.principal, req.params.environmentId, stageInput(req.body))),
    )

    app.get(
      '/deploymentStage/:deploymentStageId',
      {
        schema: {
          operationId: 'getDeploymentStage',
          summary: 'Get deployment stage',
          tags,
          params: DeploymentStageParams,
          response: { 200: DeploymentStageResponse },
        },
      },
      async (req) => toStageResponse(await stages.get(req.principal, req.params.deploymentStageId)),
    )

    app.put(
      '/deploymentStage/:deploymentStageId',
      {
        schema: {
          operationId: 'EditDeploymentStage',
          summary: 'Edit deployment stage',
          description: 'Needs the WRITE role.',
          tags,
          params: DeploymentStageParams,
          body: DeploymentStageRequest,
          response: { 200: DeploymentStageResponse, ...conflictResponse('the name is taken in the environment') },
        },
      },
      async (req) => toStageResponse(await stages.update(req.principal, req.params.deploymentStageId, stageInput(req.body))),
    )

    app.delete(
      '/deploymentStage/:deploymentStageId',
      {
        schema: {
          operationId: 'DeleteDeploymentStage',
          summary: 'Delete deployment stage',
          description: 'Needs the WRITE role. Only an empty stage can be deleted; deployments already queued keep the stages they were planned with.',
          tags,
          params: DeploymentStageParams,
          response: { 204: { type: 'null', description: 'deleted' }, ...conflictResponse('services are still in the stage') },
        },
      },
      async (req, reply) => {
        await stages.delete(req.principal, req.params.deploymentStageId)
        return reply.code(204).send(undefined as never)
      },
    )

    for (const where of ['before', 'after'] as const) {
      const word = where === 'before' ? 'Before' : 'After'
      app.put(
        `/deploymentStage/:deploymentStageId/move${word}/:stageId`,
        {
          preValidation: emptyBodyAsObject,
          schema: {
            operationId: `Move${word}DeploymentStage`,
            summary: `Move deployment stage ${where} requested stage`,
            description: `Needs the WRITE role. Places the stage right ${where} \`stageId\`, a stage of the same environment; answers the environment's stages in their new order.`,
            tags,
            params: MoveStageParams,
            response: { 200: DeploymentStageResponseList },
          },
        },
        async (req) => toStageList(await stages.move(req.principal, req.params.deploymentStageId, where, req.params.stageId)),
      )
    }

    app.put(
      '/deploymentStage/:deploymentStageId/service/:serviceId',
      {
        preValidation: emptyBodyAsObject,
        schema: {
          operationId: 'AttachServiceToDeploymentStage',
          summary: 'Attach service to deployment stage',
          description:
            "Needs the WRITE role. Moves a service of the stage's environment into the stage; answers the environment's stages. " +
            '`is_skipped: true` leaves it out of environment-level deployments; without it the service is included again.',
          tags,
          params: AttachServiceParams,
          body: AttachServiceRequest,
          response: { 200: DeploymentStageResponseList },
        },
      },
      async (req) => toStageList(await stages.attachService(req.principal, req.params.deploymentStageId, req.params.serviceId, req.body.is_skipped)),
    )

    app.get(
      '/service/:serviceId/deploymentStage',
      {
        schema: {
          operationId: 'getServiceDeploymentStage',
          summary: 'Get service deployment stage',
          tags,
          params: ServiceParams,
          response: { 200: DeploymentStageResponse },
        },
      },
      async (req) => toStageResponse(await stages.ofService(req.principal, req.params.serviceId)),
    )
  }
}
