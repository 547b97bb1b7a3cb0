import type { CLOUD_PROVIDERS } from '#src/modules/clusters/clusters.schemas.ts'
import type { EnvironmentStatusRecord } from '#src/modules/deployments/api/triggers/deployment-statuses.ts'
import { toEnvironmentStatusResponse } from '#src/modules/deployments/api/triggers/triggers.wire.ts'
import type { Mode } from '#src/modules/environments/environments.schemas.ts'
import type { ServiceType } from '#src/platform/deployment-states.ts'
import type { ServiceLightRow } from './organization-views.repository.ts'

/** A job's kind on the wire: CRON or LIFECYCLE, by the schedule it holds. */
const jobType = (schedule: string | null): 'LIFECYCLE' | 'CRON' => (schedule === 'lifecycle' ? 'LIFECYCLE' : 'CRON')

export const toServiceLightResponse = (row: ServiceLightRow) => ({
  id: row.id,
  name: row.name,
  description: row.description ?? '',
  icon_uri: row.iconUri ?? '',
  service_type: row.kind as ServiceType,
  project_id: row.projectId,
  project_name: row.projectName,
  environment_id: row.environmentId,
  environment_name: row.environmentName,
  cluster_id: row.clusterId,
  ...(row.kind === 'JOB' ? { job_type: jobType(row.jobSchedule) } : {}),
})

export const toOrganizationEnvironmentResponse =
  (organizationId: string) =>
  (row: { id: string; name: string; mode: string; projectId: string; clusterId: string; createdAt: Date; updatedAt: Date }) => ({
    id: row.id,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
    name: row.name,
    organization: { id: organizationId },
    project: { id: row.projectId },
    mode: row.mode as Mode,
    cluster_id: row.clusterId,
  })

export const toEnvironmentOverviewResponse = (row: {
  id: string
  name: string
  mode: string
  clusterId: string
  clusterName: string
  cloudProvider: string
  createdAt: Date
  updatedAt: Date
  serviceKinds: string[]
  managedBy: 'QOVERY' | 'ARGOCD' | 'MIXED'
  status: EnvironmentStatusRecord | null
}) => ({
  id: row.id,
  created_at: row.createdAt.toISOString(),
  updated_at: row.updatedAt.toISOString(),
  name: row.name,
  mode: row.mode as Mode,
  cluster: { id: row.clusterId, name: row.clusterName, cloud_provider: row.cloudProvider as (typeof CLOUD_PROVIDERS)[number], is_demo: false },
  services_overview: { service_count: row.serviceKinds.length, managed_by: row.managedBy },
  deployment_status: row.status && toEnvironmentStatusResponse(row.status),
})

// The services that use a git token or a helm repository: the mapping every credential's list shares.
export { toAssociatedServiceResponse } from '#src/modules/organization-credentials/associated-services.wire.ts'
