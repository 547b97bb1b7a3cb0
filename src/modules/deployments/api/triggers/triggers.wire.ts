import type { EnvironmentStatusRecord, StatusRecord } from './deployment-statuses.ts'

// Statuses on the wire (the reference's Status and EnvironmentStatus).

export const toStatusResponse = (status: StatusRecord) => ({
  id: status.id,
  state: status.state,
  service_deployment_status: status.serviceDeploymentStatus,
  ...(status.lastDeploymentDate === undefined ? {} : { last_deployment_date: status.lastDeploymentDate }),
  is_part_last_deployment: status.isPartLastDeployment,
  ...(status.executionId === undefined ? {} : { execution_id: status.executionId }),
  status_details: { action: status.statusDetails.action, status: status.statusDetails.status, sub_action: status.statusDetails.subAction },
  deployment_request_id: status.deploymentRequestId,
  deployment_requests_count: status.deploymentRequestsCount,
})

export const toEnvironmentStatusResponse = (status: EnvironmentStatusRecord) => ({
  id: status.id,
  state: status.state,
  last_deployment_date: status.lastDeploymentDate,
  last_deployment_state: status.lastDeploymentState,
  last_deployment_id: status.lastDeploymentId,
  total_deployment_duration_in_seconds: status.totalDeploymentDurationInSeconds,
  origin: status.origin,
  triggered_by: status.triggeredBy,
  deployment_status: status.deploymentStatus,
  deployment_request_id: status.deploymentRequestId,
})
