import type { LiveState } from '#src/modules/executors/service-runtime.ts'
import type { ServiceKinds } from '#src/modules/services/service-kinds.ts'
import {
  FAMILIES,
  NEVER_DEPLOYED_STATE,
  type Origin,
  type ServiceAction,
  type ServiceActionStatus,
  type ServiceType,
  type State,
} from '#src/platform/deployment-states.ts'
import { elapsedMs } from '../../iso-duration.ts'
import { type DeploymentRun, familyOf } from '../../queue/deployment-progress.ts'
import { includes } from '../../queue/deployment-rows.ts'
import type { DeploymentHistoryRepository } from '../history/deployment-history.repository.ts'

// What environments and services are, as their deployments left them (contract section 3): the
// reference's EnvironmentStatus and Status.

export type DeploymentStatusWord = 'NEVER_DEPLOYED' | 'UP_TO_DATE' | 'OUT_OF_DATE'

/** The reference's EnvironmentStatus. */
export interface EnvironmentStatusRecord {
  id: string
  state: State
  lastDeploymentDate: string | null
  lastDeploymentState: State
  lastDeploymentId: string | null
  totalDeploymentDurationInSeconds: number | null
  origin: Origin | null
  triggeredBy: string | null
  deploymentStatus: DeploymentStatusWord
  deploymentRequestId: string | null
}

/** The reference's Status, of an environment or a service. */
export interface StatusRecord {
  id: string
  state: State
  serviceDeploymentStatus: DeploymentStatusWord
  lastDeploymentDate: string | undefined
  isPartLastDeployment: boolean
  executionId: string | undefined
  statusDetails: { action: ServiceAction; status: ServiceActionStatus; subAction: 'NONE' }
  deploymentRequestId: string | null
  deploymentRequestsCount: number
}

/** A service as statuses need it. */
export interface StatusTarget {
  id: string
  kind: ServiceType
  environmentId: string
}

/** The states a service's last deployment leaves it running in: what the engine may contradict. */
const RUNNING_STATES: ReadonlySet<State> = new Set(['DEPLOYED', 'RESTARTED'])

/**
 * `kinds`: the kinds served; only the long-running ones (`longRunning`) are asked about.
 * `liveStates`: what a real engine says of services recorded as running (service-runtime.ts); a
 * service it says stopped or unavailable shows that state instead of its last deployment's.
 */
export function createDeploymentStatuses(
  history: DeploymentHistoryRepository,
  kinds: ServiceKinds,
  liveStates?: (environmentId: string, serviceIds: string[]) => Promise<Map<string, LiveState>>,
) {
  /**
   * Compares what each service is configured as with what its last deploy deployed. An
   * environment without services is up to date once a deploy of it succeeded.
   */
  async function deploymentStatus(services: { id: string }[], environmentId: string | undefined): Promise<DeploymentStatusWord> {
    if (services.length === 0 && environmentId !== undefined) {
      return (await history.hasDeployed(environmentId)) ? 'UP_TO_DATE' : 'NEVER_DEPLOYED'
    }
    const deployed = await history.deployedAsConfigured(services.map((service) => service.id))
    if (deployed.size === 0) return 'NEVER_DEPLOYED'
    return services.every((service) => deployed.get(service.id) === true) ? 'UP_TO_DATE' : 'OUT_OF_DATE'
  }

  /**
   * What an idle environment is: what its newest deployment made it, except that it is STOPPED
   * only while every service is (stopping one service leaves it DEPLOYED while another runs).
   */
  async function idleState(latest: DeploymentRun | undefined, services: { id: string }[]): Promise<State> {
    if (!latest) return NEVER_DEPLOYED_STATE
    if (latest.status !== 'STOPPED' || services.length === 0) return latest.status
    const states = [...(await history.serviceStates(services.map((service) => service.id))).values()]
    return states.some((state) => state === 'DEPLOYED' || state === 'RESTARTED') ? 'DEPLOYED' : latest.status
  }

  /**
   * The Status of each service of one environment, in the order given, in four queries whatever
   * their number (an environment may hold hundreds).
   */
  async function serviceStatuses(environmentId: string, services: StatusTarget[]): Promise<StatusRecord[]> {
    const ids = services.map((service) => service.id)
    const [latestEntries, { latest: latestRun }, unfinishedRuns, deployed] = await Promise.all([
      history.latestServiceEntries(ids),
      history.environmentRuns(environmentId),
      history.unfinishedWithServices(environmentId, ids),
      history.deployedAsConfigured(ids),
    ])
    // Only services left running with nothing queued are asked about, and only where an engine runs them.
    const asked = services.filter((service) => {
      const latest = latestEntries.get(service.id)
      return kinds.get(service.kind)?.longRunning === true && latest && RUNNING_STATES.has(latest.status) && !unfinishedRuns.get(service.id)?.length
    })
    const live =
      liveStates && asked.length > 0
        ? await liveStates(
            environmentId,
            asked.map((service) => service.id),
          )
        : undefined
    return services.map((service) => {
      const latest = latestEntries.get(service.id)
      const unfinished = unfinishedRuns.get(service.id) ?? []
      const current = deployed.get(service.id)
      return {
        id: service.id,
        state: live?.get(service.id)?.state ?? latest?.status ?? NEVER_DEPLOYED_STATE,
        serviceDeploymentStatus: current === undefined ? 'NEVER_DEPLOYED' : current ? 'UP_TO_DATE' : 'OUT_OF_DATE',
        lastDeploymentDate: latest?.createdAt.toISOString(),
        isPartLastDeployment: latestRun !== undefined && includes(latestRun, service.id),
        executionId: latest?.executionId,
        statusDetails: {
          action: latest ? FAMILIES[latest.triggerAction].action : 'DEPLOY',
          status: latest?.actionStatus ?? 'NEVER',
          subAction: 'NONE',
        },
        deploymentRequestId: unfinished[0] ?? null,
        deploymentRequestsCount: unfinished.length,
      }
    })
  }

  return {
    deploymentStatus,

    async environmentStatus(environmentId: string, services: { id: string }[]): Promise<EnvironmentStatusRecord> {
      const { latest, current } = await history.environmentRuns(environmentId)
      return {
        id: environmentId,
        state: current?.status ?? (await idleState(latest, services)),
        lastDeploymentDate: latest?.createdAt ?? null,
        lastDeploymentState: latest?.status ?? NEVER_DEPLOYED_STATE,
        lastDeploymentId: latest?.id ?? null,
        totalDeploymentDurationInSeconds: latest ? Math.round(elapsedMs(latest.startedAt, latest.endedAt, latest.updatedAt) / 1000) : null,
        origin: latest?.origin ?? null,
        triggeredBy: latest?.triggeredBy ?? null,
        deploymentStatus: await deploymentStatus(services, environmentId),
        deploymentRequestId: current?.id ?? null,
      }
    },

    serviceStatuses,

    async serviceStatus(service: StatusTarget): Promise<StatusRecord> {
      return (await serviceStatuses(service.environmentId, [service]))[0]!
    },

    /** The Status a trigger answers with: what it queued; `unfinished` counts the runs queued or running for the same target. */
    queuedStatus: (id: string, run: DeploymentRun, unfinished: number, deployment: DeploymentStatusWord): StatusRecord => ({
      id,
      state: run.status,
      serviceDeploymentStatus: deployment,
      lastDeploymentDate: run.createdAt,
      isPartLastDeployment: true,
      executionId: run.id,
      statusDetails: { action: familyOf(run).action, status: 'QUEUED', subAction: 'NONE' },
      deploymentRequestId: run.id,
      deploymentRequestsCount: unfinished,
    }),
  }
}

export type DeploymentStatuses = ReturnType<typeof createDeploymentStatuses>
