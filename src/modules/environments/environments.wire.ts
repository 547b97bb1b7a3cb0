import type { EnvironmentRecord } from './environments.repository.ts'
import type { CreateEnvironmentRequest, Environment, EnvironmentEditRequest, Mode } from './environments.schemas.ts'
import type { EnvironmentEdit, NewEnvironmentInput } from './environments.service.ts'

/** An environment as the reference's `Environment` shape; `last_updated_by` names a user, and API tokens are not users. */
export function toEnvironmentResponse(record: EnvironmentRecord): Environment {
  return {
    id: record.id,
    created_at: record.createdAt.toISOString(),
    updated_at: record.updatedAt.toISOString(),
    name: record.name,
    organization: { id: record.organizationId },
    project: { id: record.projectId },
    cloud_provider: { provider: record.clusterCloudProvider, cluster: record.clusterRegion },
    mode: record.mode as Mode,
    cluster_id: record.clusterId,
    cluster_name: record.clusterName,
    expires_at: null,
    auto_preview: record.autoPreview,
  }
}

export function newEnvironmentInput(body: CreateEnvironmentRequest): NewEnvironmentInput {
  return { name: body.name.trim(), mode: body.mode ?? 'DEVELOPMENT', autoPreview: body.auto_preview ?? false, clusterId: body.cluster }
}

export function environmentEdit(body: EnvironmentEditRequest): EnvironmentEdit {
  return { name: body.name?.trim(), mode: body.mode, autoPreview: body.auto_preview }
}
