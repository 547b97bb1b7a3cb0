import type { DeploymentHistoryService } from '#src/modules/deployments/api/history/deployment-history.service.ts'
import { historyPageQuery } from '#src/modules/deployments/api/history/history-pages.ts'
import type { LogLine } from '#src/modules/deployments/api/logs/deployment-logs.repository.ts'
import type { DeploymentLogsService } from '#src/modules/deployments/api/logs/deployment-logs.service.ts'
import type { StatusRecord } from '#src/modules/deployments/api/triggers/deployment-statuses.ts'
import type { DeploymentTriggers } from '#src/modules/deployments/api/triggers/deployment-triggers.service.ts'
import type { DeploymentRun } from '#src/modules/deployments/queue/deployment-progress.ts'
import type { EnvironmentsService } from '#src/modules/environments/environments.service.ts'
import type { Principal } from '#src/platform/auth/principal.ts'
import type { ServiceType } from '#src/platform/deployment-states.ts'
import { notFound } from '#src/platform/http/errors.ts'
import { stableUuid } from '#src/platform/stable-uuid.ts'

// The reference's per-kind views of statuses, histories and logs: answered from what the
// deployments module already keeps (statuses, the V2 history, the log lines).

export interface ServiceViewsDeps {
  deployments: Pick<DeploymentTriggers, 'getEnvironmentStatuses' | 'triggerSelected'>
  history: Pick<DeploymentHistoryService, 'servicePage'>
  logs: Pick<DeploymentLogsService, 'last'>
  findRun(executionId: string): Promise<DeploymentRun | undefined>
  environments: Pick<EnvironmentsService, 'requireEnvironment'>
}

/** A service's entry in the V2 history, the part the v1 lists show. */
export interface ServiceHistoryEntry {
  identifier: { name: string; execution_id: string }
  status: string
  auditing_data: { created_at: string; updated_at?: string }
  details?: Record<string, unknown> | null
}

/** The v1 page size, as the reference's "the 20 last results". */
const V1_PAGE_SIZE = 20

/** A stable UUID naming one log line (the reference's EnvironmentLog id is a UUID; Berth's lines are numbered). */
export function logLineUuid(line: Pick<LogLine, 'executionId' | 'id'>): string {
  return stableUuid(`${line.executionId}/${line.id}`)
}

export function createServiceViewsService(deps: ServiceViewsDeps) {
  return {
    /** The statuses of the environment's services of one kind. */
    async environmentKindStatuses(principal: Principal, environmentId: string, kind: ServiceType): Promise<StatusRecord[]> {
      const { services } = await deps.deployments.getEnvironmentStatuses(principal, environmentId)
      return services.filter(({ service }) => service.kind === kind).map(({ status }) => status)
    },

    /** A page of 20 of the service's V2 history entries, newest first, after `startId`. */
    async serviceHistory(principal: Principal, serviceId: string, kind: ServiceType, startId: string | undefined) {
      const page = await deps.history.servicePage(principal, serviceId, kind, historyPageQuery({ pageSize: V1_PAGE_SIZE, startId }))
      return JSON.parse(page.body.toString('utf8')) as { page: number; page_size: number; results: ServiceHistoryEntry[] }
    },

    /** The last lines of the environment's newest deployment, oldest first. */
    environmentLog: (principal: Principal, environmentId: string) => deps.logs.last(principal, environmentId, undefined),

    /** uninstallEnvironment: one run that uninstalls every service of the environment (its records stay; a deploy installs them again). */
    async uninstallEnvironment(principal: Principal, environmentId: string): Promise<void> {
      await deps.environments.requireEnvironment(principal, environmentId, 'DEPLOY')
      const { services } = await deps.deployments.getEnvironmentStatuses(principal, environmentId)
      if (services.length === 0) return
      const items = services.map(({ service }, index) => ({ type: service.kind, id: service.id, overrides: {}, path: `/services/${index}` }))
      await deps.deployments.triggerSelected(principal, environmentId, 'UNINSTALL', items)
    },

    /** The deployment request (execution id) and the environment it belongs to, when the caller may read that environment. */
    async deploymentRequest(principal: Principal, deploymentRequestId: string): Promise<DeploymentRun> {
      const run = await deps.findRun(deploymentRequestId.toLowerCase())
      if (!run) throw notFound('deployment request')
      await deps.environments.requireEnvironment(principal, run.environmentId, 'READ').catch(() => {
        throw notFound('deployment request')
      })
      return run
    },
  }
}

export type ServiceViewsService = ReturnType<typeof createServiceViewsService>
