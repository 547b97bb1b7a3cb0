import { type Static, Type } from 'typebox'
import { SERVICE_TYPES, type ServiceType } from '#src/platform/deployment-states.ts'
import { Nullable, Uuid } from '#src/platform/http/common-schemas.ts'
import { recordHeadSchema } from '#src/platform/http/named-resources.ts'

export const DeploymentStageRequest = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      maxLength: 255,
      // Not blank: the name is kept trimmed.
      pattern: '\\S',
      description: 'The name of the deployment stage; unique in the environment, ignoring case',
    }),
    description: Type.Optional(Nullable(Type.String({ maxLength: 1024, description: 'free text describing this stage' }))),
  },
  { title: 'DeploymentStageRequest' },
)
export type DeploymentStageRequest = Static<typeof DeploymentStageRequest>

const DeploymentStageServiceResponse = Type.Object(
  {
    ...recordHeadSchema(),
    service_id: Uuid,
    service_type: Type.Unsafe<ServiceType>({
      type: 'string',
      enum: [...SERVICE_TYPES],
      title: 'ServiceTypeEnum',
      description: 'type of the service',
    }),
    is_skipped: Type.Boolean({ description: 'whether the service is excluded from environment-level deployments' }),
  },
  { title: 'DeploymentStageServiceResponse' },
)

export const DeploymentStageResponse = Type.Object(
  {
    ...recordHeadSchema(),
    environment: Type.Object({ id: Uuid }),
    name: Type.String({ description: 'name is case insensitive' }),
    description: Type.String(),
    deployment_order: Type.Integer({ description: 'Position of the deployment stage within the environment: 1 deploys first' }),
    services: Type.Array(DeploymentStageServiceResponse),
  },
  { title: 'DeploymentStageResponse' },
)
export type DeploymentStageResponse = Static<typeof DeploymentStageResponse>

export const DeploymentStageResponseList = Type.Object({ results: Type.Array(DeploymentStageResponse) }, { title: 'DeploymentStageResponseList' })

export const DeploymentStageParams = Type.Object({ deploymentStageId: Uuid })
export const MoveStageParams = Type.Object({ deploymentStageId: Uuid, stageId: Uuid })
export const AttachServiceParams = Type.Object({ deploymentStageId: Uuid, serviceId: Uuid })
export const ServiceParams = Type.Object({ serviceId: Uuid })

export const AttachServiceRequest = Type.Object({
  is_skipped: Type.Optional(
    Type.Boolean({
      description:
        'When true, the service stays in the stage but is left out of environment-level deployments; false or absent: it is included (a move un-skips it)',
    }),
  ),
})
