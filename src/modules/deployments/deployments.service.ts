import { randomUUID } from 'node:crypto'
import type { HelmServiceRecord } from '#src/modules/helm-services/helm-services.types.ts'
import type { Principal } from '#src/platform/auth/principal.ts'
import type { Role } from '#src/platform/auth/roles.ts'
import { AppError, notFound, validationFailed } from '#src/platform/http/errors.ts'
import { asNotFound } from '#src/platform/http/not-found.ts'
import type { DeploymentHistoryRepository, HistoryPageQuery, StoredPage } from './deployment-history.repository.ts'
import { type HelmDeployOverrides, helmOverrideErrors, type PlannedService, plannedHelm, planStages } from './deployment-plan.ts'
import { cancelingRun, cancelRun, type DeploymentRun, familyOf, INTERRUPTED, interruptRun, withPreviousStates } from './deployment-progress.ts'
import { serviceIdsOf } from './deployment-rows.ts'
import type { DeploymentRunsRepository, LockedQueue } from './deployment-runs.repository.ts'
import {
  FAMILIES,
  NEVER_DEPLOYED_STATE,
  type Origin,
  type RunnableTrigger,
  type ServiceAction,
  type ServiceActionStatus,
  type State,
} from './deployment-states.ts'
import { elapsedMs } from './iso-duration.ts'

export interface DeploymentsDeps {
  runs: DeploymentRunsRepository
  history: DeploymentHistoryRepository
  requireEnvironment(principal: Principal, environmentId: string, needed: Role): Promise<{ environment: { id: string; organizationId: string } }>
  requireHelm(principal: Principal, helmId: string, needed: Role): Promise<{ helm: HelmServiceRecord }>
  requireOrganizationRole(principal: Principal, organizationId: string, needed: Role): Promise<unknown>
  listHelms(organizationId: string, environmentId: string): Promise<HelmServiceRecord[]>
  /** How history names who triggered (`triggered_by`). */
  actorName(principal: Principal): Promise<string>
  /** Told when a run was queued, so that a runner of this process looks at once. */
  onQueued(): void
}

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

export interface HistoryPage extends StoredPage {
  page: number
  pageSize: number
}

const unknownStartId = () =>
  validationFailed([{ path: '/startId', message: 'is not the execution id of an entry of this history', location: 'query' }])

/** The environment a run is queued in. */
type Target = { id: string; organizationId: string }
/** What a run will do: to the whole environment (serviceId null) or to one service of it. */
type RunTarget = { serviceId: string | null; trigger: RunnableTrigger; services: PlannedService[] }
/** Why a trigger cannot queue (a 409), or that it has nothing to do; undefined to queue. */
type Refusal<Nothing> = (queue: LockedQueue, unfinished: DeploymentRun[]) => Promise<AppError | Nothing | undefined>
type Queued = { run: DeploymentRun; unfinished: DeploymentRun[] }

const alreadyStopped = () => new AppError('conflict', 'the environment is already stopped')

/** Whether every service of the environment is stopped; one without services, whether its newest deployment stopped it. */
async function isStopped(queue: LockedQueue, helms: { id: string }[]): Promise<boolean> {
  if (helms.length === 0) return (await queue.latestStatus()) === 'STOPPED'
  const states = await queue.finishedStates(helms.map((helm) => helm.id))
  return helms.every((helm) => states.get(helm.id) === 'STOPPED')
}

const includes = (run: DeploymentRun, serviceId: string) => serviceIdsOf(run).includes(serviceId)

export function createDeploymentsService(deps: DeploymentsDeps) {
  const { runs, history } = deps

  /**
   * Compares what each service is configured as with what was last deployed. An environment
   * without services is up to date once a deploy of it succeeded.
   */
  async function deploymentStatus(services: { id: string; version: number }[], environmentId: string | undefined): Promise<DeploymentStatusWord> {
    if (services.length === 0 && environmentId !== undefined) {
      return (await history.hasDeployed(environmentId)) ? 'UP_TO_DATE' : 'NEVER_DEPLOYED'
    }
    const deployed = await history.deployedVersions(services.map((service) => service.id))
    if (deployed.size === 0) return 'NEVER_DEPLOYED'
    return services.every((service) => deployed.get(service.id) === service.version) ? 'UP_TO_DATE' : 'OUT_OF_DATE'
  }

  /**
   * Queues a run at the end of the environment's queue. `refuse` looks at the locked queue and
   * says why the trigger cannot queue (a 409), or that it has 'nothing' to do, or nothing.
   * `unfinished` lists the environment's runs not finished, the new one last.
   */
  function enqueue(environment: Target, target: RunTarget, triggeredBy: string, refuse: Refusal<never>): Promise<Queued>
  function enqueue(environment: Target, target: RunTarget, triggeredBy: string, refuse: Refusal<'nothing'>): Promise<Queued | 'nothing'>
  async function enqueue(environment: Target, target: RunTarget, triggeredBy: string, refuse: Refusal<'nothing'>): Promise<Queued | 'nothing'> {
    const queued = await runs.withEnvironmentLocked(environment.id, async (queue, next) => {
      const unfinished = (await queue.unfinished()).map((stored) => stored.run)
      const refusal = await refuse(queue, unfinished)
      if (refusal instanceof AppError) throw refusal
      if (refusal === 'nothing') return refusal
      const { seq, createdAt } = await next()
      const { services } = target
      const states = await queue.finishedStates(services.map((service) => service.id))
      const run: DeploymentRun = {
        id: randomUUID(),
        organizationId: environment.organizationId,
        environmentId: environment.id,
        serviceId: target.serviceId,
        triggerAction: target.trigger,
        origin: 'API',
        triggeredBy,
        status: FAMILIES[target.trigger].queued,
        actionStatus: 'QUEUED',
        message: null,
        createdAt,
        updatedAt: createdAt,
        startedAt: null,
        endedAt: null,
        progress: { stages: planStages(target.trigger, services, states, createdAt) },
      }
      await queue.insert(run, seq)
      return { run, unfinished: [...unfinished, run] }
    })
    if (queued === undefined) throw notFound('environment')
    if (queued !== 'nothing') deps.onQueued()
    return queued
  }

  /**
   * What an idle environment is: what its newest deployment made it, except that it is STOPPED
   * only while every service is (stopping one service leaves it DEPLOYED while another runs).
   */
  async function idleState(latest: DeploymentRun | undefined, helms: { id: string }[]): Promise<State> {
    if (!latest) return NEVER_DEPLOYED_STATE
    if (latest.status !== 'STOPPED' || helms.length === 0) return latest.status
    const states = [...(await history.serviceStates(helms.map((helm) => helm.id))).values()]
    return states.some((state) => state === 'DEPLOYED' || state === 'RESTARTED') ? 'DEPLOYED' : latest.status
  }

  async function environmentStatus(environmentId: string, organizationId: string): Promise<EnvironmentStatusRecord> {
    const [{ latest, current }, helms] = await Promise.all([history.environmentRuns(environmentId), deps.listHelms(organizationId, environmentId)])
    return {
      id: environmentId,
      state: current?.status ?? (await idleState(latest, helms)),
      lastDeploymentDate: latest?.createdAt ?? null,
      lastDeploymentState: latest?.status ?? NEVER_DEPLOYED_STATE,
      lastDeploymentId: latest?.id ?? null,
      totalDeploymentDurationInSeconds: latest ? Math.round(elapsedMs(latest.startedAt, latest.endedAt, latest.updatedAt) / 1000) : null,
      origin: latest?.origin ?? null,
      triggeredBy: latest?.triggeredBy ?? null,
      deploymentStatus: await deploymentStatus(helms, environmentId),
      deploymentRequestId: current?.id ?? null,
    }
  }

  /** The Status a trigger answers with: what it queued; `unfinished` counts the runs queued or running for the same target. */
  const queuedStatus = (id: string, run: DeploymentRun, unfinished: number, deployment: DeploymentStatusWord): StatusRecord => ({
    id,
    state: run.status,
    serviceDeploymentStatus: deployment,
    lastDeploymentDate: run.createdAt,
    isPartLastDeployment: true,
    executionId: run.id,
    statusDetails: { action: familyOf(run).action, status: 'QUEUED', subAction: 'NONE' },
    deploymentRequestId: run.id,
    deploymentRequestsCount: unfinished,
  })

  async function triggerEnvironment(principal: Principal, environmentId: string, trigger: 'DEPLOY' | 'RESTART' | 'STOP') {
    const { environment } = await deps.requireEnvironment(principal, environmentId, 'DEPLOY')
    const [helms, triggeredBy] = await Promise.all([deps.listHelms(environment.organizationId, environment.id), deps.actorName(principal)])
    const queued = await enqueue(
      environment,
      { serviceId: null, trigger, services: helms.map((helm) => plannedHelm(helm, trigger, {})) },
      triggeredBy,
      async (queue, unfinished) => (trigger === 'STOP' && unfinished.length === 0 && (await isStopped(queue, helms)) ? alreadyStopped() : undefined),
    )
    return { environment, helms, ...queued }
  }

  /**
   * Queues a run of one helm service. Stop and uninstall look at the service's state unless a run
   * queued or running includes it: 409 for a stop of a stopped service, 'nothing' for an
   * uninstall of a chart that is not installed.
   */
  async function triggerHelm(principal: Principal, helmId: string, trigger: RunnableTrigger, overrides: HelmDeployOverrides = {}) {
    const { helm } = await deps.requireHelm(principal, helmId, 'DEPLOY')
    const errors = helmOverrideErrors(helm, overrides)
    if (errors.length > 0) throw validationFailed(errors)
    const triggeredBy = await deps.actorName(principal)
    const queued = await enqueue(
      { id: helm.environmentId, organizationId: helm.organizationId },
      { serviceId: helm.id, trigger, services: [plannedHelm(helm, trigger, overrides)] },
      triggeredBy,
      async (queue, unfinished) => {
        if (trigger !== 'STOP' && trigger !== 'UNINSTALL') return undefined
        if (unfinished.some((run) => includes(run, helm.id))) return undefined
        const state = await queue.latestServiceStatus(helm.id)
        if (trigger === 'STOP') return state === 'STOPPED' ? new AppError('conflict', 'the helm service is already stopped') : undefined
        return state === undefined || state === 'DELETED' || state === NEVER_DEPLOYED_STATE ? ('nothing' as const) : undefined
      },
    )
    if (queued === 'nothing') return 'nothing' as const
    const forHelm = queued.unfinished.filter((run) => includes(run, helm.id)).length
    return queuedStatus(helm.id, queued.run, forHelm, await deploymentStatus([helm], undefined))
  }

  /** The helm triggers that queue or refuse, never find nothing to do. */
  async function queuedHelm(principal: Principal, helmId: string, trigger: 'DEPLOY' | 'RESTART' | 'STOP', overrides?: HelmDeployOverrides) {
    const status = await triggerHelm(principal, helmId, trigger, overrides)
    if (status === 'nothing') throw new Error(`a helm ${trigger} found nothing to do`)
    return status
  }

  return {
    async deployEnvironment(principal: Principal, environmentId: string): Promise<StatusRecord> {
      const { environment, helms, run, unfinished } = await triggerEnvironment(principal, environmentId, 'DEPLOY')
      return queuedStatus(environment.id, run, unfinished.length, await deploymentStatus(helms, environment.id))
    },

    async redeployEnvironment(principal: Principal, environmentId: string): Promise<EnvironmentStatusRecord> {
      const { environment } = await triggerEnvironment(principal, environmentId, 'RESTART')
      return environmentStatus(environment.id, environment.organizationId)
    },

    async stopEnvironment(principal: Principal, environmentId: string): Promise<EnvironmentStatusRecord> {
      const { environment } = await triggerEnvironment(principal, environmentId, 'STOP')
      return environmentStatus(environment.id, environment.organizationId)
    },

    /**
     * Cancels every unfinished run of the environment: a queued one at once, a running one through
     * its runner (CANCELING, then CANCELED). 409 when there is nothing left to cancel.
     */
    async cancelEnvironment(principal: Principal, environmentId: string): Promise<EnvironmentStatusRecord> {
      const { environment } = await deps.requireEnvironment(principal, environmentId, 'DEPLOY')
      const outcome = await runs.withEnvironmentLocked(environment.id, async (queue) => {
        const unfinished = await queue.unfinished()
        if (unfinished.length === 0) return new AppError('conflict', 'no deployment of this environment is queued or running')
        let acted = false
        for (const stored of unfinished) {
          const now = await queue.now()
          if (stored.leased) {
            if (stored.cancelRequested) continue
            await queue.requestCancel(cancelingRun(stored.run, now))
          } else {
            // No runner holds it: never started, handed back, or held by a runner that was lost.
            const lost = stored.leaseOwner !== null
            const run = withPreviousStates(stored.run, await queue.finishedStates(serviceIdsOf(stored.run)))
            await queue.end(lost ? interruptRun(run, true, INTERRUPTED, now) : cancelRun(run, now))
          }
          acted = true
        }
        return acted ? undefined : new AppError('conflict', 'the deployment of this environment is already being canceled')
      })
      if (outcome) throw outcome
      deps.onQueued()
      return environmentStatus(environment.id, environment.organizationId)
    },

    async getEnvironmentStatus(principal: Principal, environmentId: string): Promise<EnvironmentStatusRecord> {
      const { environment } = await deps.requireEnvironment(principal, environmentId, 'READ')
      return environmentStatus(environment.id, environment.organizationId)
    },

    deployHelm: (principal: Principal, helmId: string, overrides: HelmDeployOverrides) => queuedHelm(principal, helmId, 'DEPLOY', overrides),
    redeployHelm: (principal: Principal, helmId: string) => queuedHelm(principal, helmId, 'RESTART'),
    stopHelm: (principal: Principal, helmId: string) => queuedHelm(principal, helmId, 'STOP'),
    /** 'nothing' when the chart is not installed and nothing queued would install it. */
    uninstallHelm: (principal: Principal, helmId: string) => triggerHelm(principal, helmId, 'UNINSTALL'),

    async getHelmStatus(principal: Principal, helmId: string): Promise<StatusRecord> {
      const { helm } = await deps.requireHelm(principal, helmId, 'READ')
      const [latest, { latest: latestRun }, unfinished, deployment] = await Promise.all([
        history.latestServiceEntry(helm.id),
        history.environmentRuns(helm.environmentId),
        history.unfinishedWithService(helm.environmentId, helm.id),
        deploymentStatus([helm], undefined),
      ])
      return {
        id: helm.id,
        state: latest?.status ?? NEVER_DEPLOYED_STATE,
        serviceDeploymentStatus: deployment,
        lastDeploymentDate: latest?.createdAt.toISOString(),
        isPartLastDeployment: latestRun !== undefined && includes(latestRun, helm.id),
        executionId: latest?.executionId,
        statusDetails: {
          action: latest ? FAMILIES[latest.triggerAction].action : 'DEPLOY',
          status: latest?.actionStatus ?? 'NEVER',
          subAction: 'NONE',
        },
        deploymentRequestId: unfinished[0] ?? null,
        deploymentRequestsCount: unfinished.length,
      }
    },

    /**
     * The environment's history as of `version`, which changes whenever anything in it does: a
     * caller that kept the page of an unchanged version may serve it without calling `load`.
     */
    async environmentHistory(
      principal: Principal,
      environmentId: string,
      query: HistoryPageQuery,
    ): Promise<{ version: string; load: () => Promise<HistoryPage> }> {
      const found = await history.environmentVersion(environmentId)
      if (!found) throw notFound('environment')
      await deps.requireOrganizationRole(principal, found.organizationId, 'READ').catch(asNotFound('environment'))
      const { version } = found
      const load = async () => {
        const page = await history.environmentPage(environmentId, query)
        if (!page) throw unknownStartId()
        return { ...page, page: Math.floor(page.before / query.pageSize) + 1, pageSize: query.pageSize }
      }
      return { version, load }
    },

    async helmHistory(principal: Principal, helmId: string, query: HistoryPageQuery): Promise<HistoryPage> {
      const { helm } = await deps.requireHelm(principal, helmId, 'READ')
      const page = await history.servicePage(helm.id, query)
      if (!page) throw unknownStartId()
      return { ...page, page: Math.floor(page.before / query.pageSize) + 1, pageSize: query.pageSize }
    },
  }
}

export type DeploymentsService = ReturnType<typeof createDeploymentsService>
