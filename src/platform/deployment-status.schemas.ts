// The statuses of services and environments on the wire: every module that answers a status uses
// them (the deployments, the kinds' own routes, previews, backups), so they live below them all.

import { Type } from 'typebox'
import { ORIGINS, SERVICE_ACTION_STATUSES, SERVICE_ACTIONS, SERVICE_SUB_ACTIONS, STATES } from './deployment-states.ts'
import { DateTime, Enum, Nullable, Uuid } from './http/common-schemas.ts'

export const StateEnum = Enum(STATES, 'StateEnum')
export const Origin = Enum(ORIGINS, 'OrganizationEventOrigin')
const DeploymentStatus = Enum(
  ['NEVER_DEPLOYED', 'UP_TO_DATE', 'OUT_OF_DATE'],
  'ServiceDeploymentStatusEnum',
  'whether what runs is the latest configuration',
)

export const StatusDetails = Type.Object(
  {
    action: Enum(SERVICE_ACTIONS, 'ServiceActionEnum'),
    status: Enum(SERVICE_ACTION_STATUSES, 'ServiceActionStatusEnum'),
    sub_action: Enum(SERVICE_SUB_ACTIONS, 'ServiceSubActionEnum', 'what an IAC service runs (its plan, apply, destroy…); NONE for other kinds'),
  },
  { title: 'StatusDetails' },
)

export const Status = Type.Object(
  {
    id: Uuid,
    state: StateEnum,
    service_deployment_status: DeploymentStatus,
    last_deployment_date: Type.Optional(DateTime),
    is_part_last_deployment: Type.Boolean(),
    execution_id: Type.Optional(Type.String()),
    status_details: StatusDetails,
    deployment_request_id: Nullable(Uuid),
    deployment_requests_count: Type.Integer({
      description: 'how many deployments are queued or running: of the environment in its Status, of the service in a service Status',
    }),
  },
  { title: 'Status' },
)

export const EnvironmentStatus = Type.Object(
  {
    id: Uuid,
    state: StateEnum,
    last_deployment_date: Nullable(DateTime),
    last_deployment_state: StateEnum,
    last_deployment_id: Nullable(Type.String()),
    total_deployment_duration_in_seconds: Nullable(Type.Integer()),
    origin: Nullable(Origin),
    triggered_by: Nullable(Type.String()),
    deployment_status: DeploymentStatus,
    deployment_request_id: Nullable(Type.String({ description: 'the deployment the environment is busy with; null when idle' })),
  },
  { title: 'EnvironmentStatus' },
)
