import { createHash } from 'node:crypto'
import type { HistoryFilters, HistoryPageQuery } from './deployment-history.repository.ts'
import type { HelmDeployOverrides } from './deployment-plan.ts'
import type { HelmDeployRequest, HistoryQuery } from './deployments.schemas.ts'
import type { EnvironmentStatusRecord, HistoryPage, StatusRecord } from './deployments.service.ts'

export function historyPageQuery(query: HistoryQuery): HistoryPageQuery {
  const filters: HistoryFilters = {
    status: query.status,
    triggerAction: query.trigger_action,
    origin: query.origin,
    from: query.from === undefined ? undefined : new Date(query.from),
    to: query.to === undefined ? undefined : new Date(query.to),
  }
  return { pageSize: query.pageSize, startId: query.startId, filters }
}

/** The page as JSON text: the stored entries joined as they are, never parsed again. */
export function historyPageJson(page: HistoryPage): string {
  const next = page.hasMore ? JSON.stringify(page.lastId) : 'null'
  return `{"page":${page.page},"page_size":${page.pageSize},"results":[${page.entries.join(',')}],"next_start_id":${next},"has_more":${page.hasMore}}`
}

/** A strong ETag of a response body: pollers send it back and get 304 while nothing changed. */
export const bodyTag = (body: string | Buffer) => createHash('sha256').update(body).digest('base64url').slice(0, 27)

export const helmDeployOverrides = (body: HelmDeployRequest | undefined): HelmDeployOverrides => ({
  chartVersion: body?.chart_version,
  gitCommitId: body?.git_commit_id,
  valuesOverrideGitCommitId: body?.values_override_git_commit_id,
})

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
