import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { EnvironmentParams } from '#src/modules/environments/environments.schemas.ts'
import { SERVICE_TYPES, STAGE_STATUSES, TRIGGER_ACTIONS } from '#src/platform/deployment-states.ts'
import { Origin, StatusDetails } from '#src/platform/deployment-status.schemas.ts'
import { emptyBodyAsObject } from '#src/platform/http/body-parsing.ts'
import { Enum, Uuid } from '#src/platform/http/common-schemas.ts'
import { ListResponse, listBody } from '#src/platform/http/lists.ts'
import type { DeploymentRun, ServiceProgress } from '../../queue/deployment-progress.ts'
import { familyOf, serviceStatus } from '../../queue/deployment-progress.ts'
import type { DeploymentTriggers } from './deployment-triggers.service.ts'

// The deployment queue: what each environment (or service) has queued or running, oldest first,
// and the cancel of one request.

const StageStatus = Enum(STAGE_STATUSES, 'StageStatusEnum')
const ServiceTypeEnum = Enum(SERVICE_TYPES, 'ServiceTypeEnum')
const Auditing = Type.Object({ triggered_by: Type.String(), origin: Type.Optional(Origin) })

const QueuedDeploymentRequestWithStages = Type.Object(
  {
    identifier: Type.Object({ deployment_request_id: Uuid, environment_id: Uuid }),
    auditing_data: Auditing,
    trigger_action: Enum(TRIGGER_ACTIONS, 'DeploymentHistoryTriggerAction'),
    stages: Type.Array(
      Type.Object({
        name: Type.String(),
        status: StageStatus,
        services: Type.Array(
          Type.Object({
            identifier: Type.Object({ service_id: Uuid, service_type: ServiceTypeEnum, name: Type.String() }),
            status: StageStatus,
            icon_uri: Type.String(),
            details: Type.Record(Type.String(), Type.Unknown()),
          }),
        ),
      }),
    ),
  },
  { title: 'QueuedDeploymentRequestWithStages' },
)

const QueuedDeploymentRequestForService = Type.Object(
  {
    identifier: Type.Object({ deployment_request_id: Uuid, service_id: Uuid, service_type: ServiceTypeEnum, name: Type.String() }),
    auditing_data: Auditing,
    status_details: StatusDetails,
    icon_uri: Type.String(),
  },
  { title: 'QueuedDeploymentRequestForService' },
)

/** A service's phase in words of a stage's status, as the queue's shape has them. */
const PHASE_AS_STAGE_STATUS: Record<ServiceProgress['phase'], (typeof STAGE_STATUSES)[number]> = {
  QUEUED: 'QUEUED',
  ONGOING: 'ONGOING',
  SUCCESS: 'DONE',
  ERROR: 'ERROR',
  CANCELING: 'ONGOING',
  CANCELED: 'CANCELED',
  SKIPPED: 'SKIPPED',
}

const auditing = (run: DeploymentRun) => ({ triggered_by: run.triggeredBy, origin: run.origin })

const toQueuedRequest = (run: DeploymentRun) => ({
  identifier: { deployment_request_id: run.id, environment_id: run.environmentId },
  auditing_data: auditing(run),
  trigger_action: run.triggerAction,
  stages: run.progress.stages.map((stage) => ({
    name: stage.name,
    status: stage.status,
    services: stage.services.map((service) => ({
      identifier: { service_id: service.id, service_type: service.type, name: service.name },
      status: PHASE_AS_STAGE_STATUS[service.phase],
      icon_uri: service.iconUri,
      details: service.details,
    })),
  })),
})

export function deploymentQueueRoutes(deployments: DeploymentTriggers): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/environment/:environmentId/deploymentQueue',
      {
        schema: {
          operationId: 'listDeploymentRequestByEnvironmentId',
          summary: 'List Deployment Queue Request By EnvironmentId',
          description:
            "The environment's deployments queued or running, oldest first: the first runs now, the others after it in order. " +
            'Berth extension: at most BERTH_LIST_LIMIT of them (1000 by default), `has_more` saying whether more wait.',
          tags: ['Environment Main Calls'],
          params: EnvironmentParams,
          response: { 200: ListResponse(QueuedDeploymentRequestWithStages, 'DeploymentQueueResponseList') },
        },
      },
      async (req) => listBody(await deployments.environmentQueue(req.principal, req.params.environmentId), toQueuedRequest),
    )

    app.get(
      '/service/:serviceId/deploymentQueue',
      {
        schema: {
          operationId: 'listDeploymentRequestByServiceId',
          summary: 'List Deployment Queue Request By ServiceId',
          description:
            "The deployments of the service's environment queued or running that include the service, oldest first. " +
            'Berth extension: at most BERTH_LIST_LIMIT of them (1000 by default), `has_more` saying whether more wait.',
          tags: ['Environment Main Calls'],
          params: Type.Object({ serviceId: Uuid }),
          response: { 200: ListResponse(QueuedDeploymentRequestForService, 'ServiceDeploymentQueueResponseList') },
        },
      },
      async (req) =>
        listBody(await deployments.serviceQueue(req.principal, req.params.serviceId), ({ run, service }) => ({
          identifier: { deployment_request_id: run.id, service_id: service.id, service_type: service.type, name: service.name },
          auditing_data: auditing(run),
          status_details: { action: familyOf(run).action, status: serviceStatus(run, service).actionStatus, sub_action: 'NONE' as const },
          icon_uri: service.iconUri,
        })),
    )

    app.post(
      '/deploymentQueue/:deploymentRequestId/cancelDeployment',
      {
        preValidation: emptyBodyAsObject,
        schema: {
          operationId: 'cancelDeploymentRequest',
          summary: 'Cancel deployment request',
          description:
            'Needs the DEPLOY role. Cancels one deployment request: a queued one at once, a running one through its runner (CANCELING, then CANCELED).',
          tags: ['Deployment Queue Actions'],
          params: Type.Object({ deploymentRequestId: Uuid }),
          body: Type.Object({}),
          response: {
            202: { type: 'null', description: 'the cancel is under way' },
            409: Type.Ref('ErrorResponse', { description: 'the request is no longer queued or running, or already being canceled (`conflict`)' }),
          },
        },
      },
      async (req, reply) => {
        await deployments.cancelRequest(req.principal, req.params.deploymentRequestId)
        return reply.code(202).send(undefined as never)
      },
    )
  }
}
