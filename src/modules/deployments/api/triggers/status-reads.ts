import type { ServiceSummary } from '#src/modules/services/service-kinds.ts'
import type { Principal } from '#src/platform/auth/principal.ts'
import type { ServiceType } from '#src/platform/deployment-states.ts'
import { type CappedList, capped, DEFAULT_LIST_LIMIT } from '#src/platform/http/lists.ts'
import type { DeploymentRun, ServiceProgress } from '../../queue/deployment-progress.ts'
import type { DeploymentStatuses, EnvironmentStatusRecord, StatusRecord } from './deployment-statuses.ts'
import type { DeploymentTriggersDeps, Target } from './trigger-deps.ts'

// What requests read of deployments under way: an environment's and a service's statuses, and their queues.

export type StatusReadsDeps = Pick<
  DeploymentTriggersDeps,
  'statuses' | 'history' | 'environments' | 'requireService' | 'listServiceSummaries' | 'listStages' | 'listLimit'
>

export async function environmentStatusOf(
  deps: Pick<DeploymentTriggersDeps, 'statuses' | 'listServiceSummaries'>,
  environment: Target,
): Promise<EnvironmentStatusRecord> {
  return deps.statuses.environmentStatus(environment.id, await deps.listServiceSummaries(environment.organizationId, environment.id))
}

/** The environment's status and each of its services'. */
async function statusesOf(statuses: DeploymentStatuses, environmentId: string, services: ServiceSummary[]) {
  const [environment, serviceStatuses] = await Promise.all([
    statuses.environmentStatus(environmentId, services),
    statuses.serviceStatuses(environmentId, services),
  ])
  return { environment, services: services.map((service, i) => ({ service, status: serviceStatuses[i]! })) }
}

export function createStatusReads(deps: StatusReadsDeps) {
  const { statuses, listLimit = DEFAULT_LIST_LIMIT } = deps

  return {
    async getEnvironmentStatus(principal: Principal, environmentId: string): Promise<EnvironmentStatusRecord> {
      const { environment } = await deps.environments.requireEnvironment(principal, environmentId, 'READ')
      return environmentStatusOf(deps, environment)
    },

    /** The status of each environment of the project the principal sees (getProjectEnvironmentsStatus). */
    async getProjectEnvironmentsStatus(principal: Principal, projectId: string): Promise<EnvironmentStatusRecord[]> {
      const { rows } = await deps.environments.list(principal, projectId)
      return Promise.all(rows.map((environment) => environmentStatusOf(deps, environment)))
    },

    /** The environment's status and each service's, with the services' kinds and stages. */
    async getEnvironmentStatuses(principal: Principal, environmentId: string) {
      const { environment } = await deps.environments.requireEnvironment(principal, environmentId, 'READ')
      return statusesOf(statuses, environment.id, await deps.listServiceSummaries(environment.organizationId, environment.id))
    },

    /**
     * The environment's status and its stages in deploy order, each with its services' statuses
     * and its status in the deployment the environment is busy with, else its newest.
     */
    async getEnvironmentStatusesWithStages(principal: Principal, environmentId: string) {
      const { environment } = await deps.environments.requireEnvironment(principal, environmentId, 'READ')
      const [services, stages, { latest, current }] = await Promise.all([
        deps.listServiceSummaries(environment.organizationId, environment.id),
        deps.listStages(environment.id),
        deps.history.environmentRuns(environment.id),
      ])
      const run = current ?? latest
      const { environment: environmentStatus, services: serviceStatuses } = await statusesOf(statuses, environment.id, services)
      return {
        environment: environmentStatus,
        stages: stages.map((stage) => ({
          stage,
          status: run?.progress.stages.find((planned) => planned.name === stage.name)?.status,
          services: serviceStatuses.filter(({ service }) => service.deploymentStageId === stage.id),
        })),
      }
    },

    async getServiceStatus(principal: Principal, type: ServiceType, serviceId: string): Promise<StatusRecord> {
      const { service } = await deps.requireService(principal, serviceId, 'READ', type)
      return statuses.serviceStatus(service)
    },

    /** The environment's deployment queue: its runs queued or running, oldest first, the first BERTH_LIST_LIMIT of them. */
    async environmentQueue(principal: Principal, environmentId: string): Promise<CappedList<DeploymentRun>> {
      const { environment } = await deps.environments.requireEnvironment(principal, environmentId, 'READ')
      return capped(listLimit, (limit) => deps.history.unfinishedRuns(environment.id, limit))
    },

    /** A service's part of its environment's queue, the first BERTH_LIST_LIMIT runs of it. */
    async serviceQueue(principal: Principal, serviceId: string): Promise<CappedList<{ run: DeploymentRun; service: ServiceProgress }>> {
      const { service } = await deps.requireService(principal, serviceId, 'READ')
      const unfinished = await capped(listLimit, (limit) => deps.history.unfinishedRuns(service.environmentId, limit, service.id))
      const rows = unfinished.rows.flatMap((run) => {
        const progress = run.progress.stages.flatMap((stage) => stage.services).find((candidate) => candidate.id === service.id)
        return progress ? [{ run, service: progress }] : []
      })
      return { rows, hasMore: unfinished.hasMore }
    },
  }
}
