import {
  type ActionStatus,
  FAMILIES,
  NEVER_DEPLOYED_STATE,
  type Origin,
  type RunnableTrigger,
  type ServiceActionStatus,
  type ServiceSubAction,
  type ServiceType,
  type StageStatus,
  type State,
} from '#src/platform/deployment-states.ts'

// A deployment as the runner works on it, and every step it can take. Steps are pure: they return
// the next run and leave the one given alone, so a write that fails changes nothing in memory.

/** Where a service is in this deployment. */
export type ServicePhase = 'QUEUED' | 'ONGOING' | 'SUCCESS' | 'ERROR' | 'CANCELING' | 'CANCELED' | 'SKIPPED'

export interface ServiceProgress {
  id: string
  name: string
  type: ServiceType
  iconUri: string
  /** The history entry's `details`, in the shape of the service's kind (contract 2.7), fixed at trigger time; what the executor learnt (a commit fetched) is added when the service ends. */
  details: Record<string, unknown>
  /** What an IAC service's part runs (set at trigger time by its kind); absent: NONE. */
  subAction?: ServiceSubAction
  /** The service's configuration version this deployment applies (helm: its version). */
  version: number | null
  /** The service's state before this deployment: what it stays in when the deployment never reaches it. */
  previousState: State
  /** Set at trigger time from the service's configuration: the simulated executor fails it (docs/deployments.md, "Simulated deployments"). */
  simulateFailure: boolean
  phase: ServicePhase
  startedAt: string | null
  endedAt: string | null
  updatedAt: string
  message: string | null
}

export interface StageProgress {
  name: string
  status: StageStatus
  startedAt: string | null
  endedAt: string | null
  services: ServiceProgress[]
}

export interface Progress {
  stages: StageProgress[]
}

export interface DeploymentRun {
  id: string
  organizationId: string
  environmentId: string
  /** The one service a service-level trigger names; null for the whole environment. */
  serviceId: string | null
  triggerAction: RunnableTrigger
  origin: Origin
  triggeredBy: string
  status: State
  actionStatus: ActionStatus
  message: string | null
  createdAt: string
  updatedAt: string
  startedAt: string | null
  endedAt: string | null
  progress: Progress
}

type Now = string

const mapServices = (
  run: DeploymentRun,
  now: Now,
  change: (service: ServiceProgress, stage: StageProgress, stageIndex: number) => Partial<ServiceProgress> | undefined,
): DeploymentRun => ({
  ...run,
  updatedAt: now,
  progress: {
    stages: run.progress.stages.map((stage, stageIndex) => ({
      ...stage,
      services: stage.services.map((service) => {
        const changed = change(service, stage, stageIndex)
        return changed ? { ...service, ...changed, updatedAt: now } : service
      }),
    })),
  },
})

const mapStage = (run: DeploymentRun, index: number, change: Partial<StageProgress>): DeploymentRun => ({
  ...run,
  progress: { stages: run.progress.stages.map((stage, i) => (i === index ? { ...stage, ...change } : stage)) },
})

/** The family of state words the run goes through. */
export const familyOf = (run: Pick<DeploymentRun, 'triggerAction'>) => FAMILIES[run.triggerAction]

/** A service's `status` and `status_details.status` in this deployment. */
export function serviceStatus(run: DeploymentRun, service: ServiceProgress): { status: State; actionStatus: ServiceActionStatus } {
  const family = familyOf(run)
  switch (service.phase) {
    case 'QUEUED':
      return { status: family.queued, actionStatus: 'QUEUED' }
    case 'ONGOING':
      return { status: family.running, actionStatus: 'ONGOING' }
    case 'SUCCESS':
      return { status: family.done, actionStatus: 'SUCCESS' }
    case 'ERROR':
      return { status: family.failed, actionStatus: 'ERROR' }
    case 'CANCELING':
      return { status: 'CANCELING', actionStatus: 'CANCELING' }
    case 'CANCELED':
      // A service the deployment never reached stays what it was.
      return { status: service.startedAt ? 'CANCELED' : service.previousState, actionStatus: 'CANCELED' }
    case 'SKIPPED':
      return { status: service.previousState, actionStatus: 'NEVER' }
  }
}

/** The services' states before the run, read again: what a service the run never reaches stays in. */
export function withPreviousStates(run: DeploymentRun, states: Map<string, State>): DeploymentRun {
  return {
    ...run,
    progress: {
      stages: run.progress.stages.map((stage) => ({
        ...stage,
        services: stage.services.map((service) => ({ ...service, previousState: states.get(service.id) ?? NEVER_DEPLOYED_STATE })),
      })),
    },
  }
}

/** What an entry says of a service deleted after the deployment was queued and before it started. */
export const SERVICE_GONE = 'deleted before this deployment started; not deployed'

/**
 * The services are left out before the run starts (they were deleted meanwhile): SKIPPED with a
 * message, and so is a stage left with nothing to run.
 */
export function skipServices(run: DeploymentRun, serviceIds: string[], message: string, now: Now): DeploymentRun {
  if (serviceIds.length === 0) return run
  const skipped = mapServices(run, now, (service) => (serviceIds.includes(service.id) ? { phase: 'SKIPPED', message } : undefined))
  return {
    ...skipped,
    progress: {
      stages: skipped.progress.stages.map((stage) =>
        stage.services.every((service) => service.phase === 'SKIPPED') ? { ...stage, status: 'SKIPPED' } : stage,
      ),
    },
  }
}

export function startRun(run: DeploymentRun, now: Now): DeploymentRun {
  return { ...run, status: familyOf(run).running, actionStatus: 'ONGOING', startedAt: run.startedAt ?? now, updatedAt: now }
}

/**
 * The stage begins with its services that have not ended: all of them, or in a resumed run those
 * its previous runner left unfinished (they keep their first start; what ended stays as it ended).
 */
export function startStage(run: DeploymentRun, index: number, now: Now): DeploymentRun {
  const stage = run.progress.stages[index]!
  const started = mapStage(run, index, { status: 'ONGOING', startedAt: stage.startedAt ?? now, endedAt: null })
  return mapServices(started, now, (service, _, stageIndex) =>
    stageIndex === index && (service.phase === 'QUEUED' || service.phase === 'ONGOING')
      ? { phase: 'ONGOING', startedAt: service.startedAt ?? now, endedAt: null, message: null }
      : undefined,
  )
}

export function finishService(
  run: DeploymentRun,
  serviceId: string,
  outcome: ({ ok: true } | { ok: false; message: string }) & { details?: Record<string, unknown> },
  now: Now,
): DeploymentRun {
  return mapServices(run, now, (service) =>
    service.id === serviceId && service.phase === 'ONGOING'
      ? {
          phase: outcome.ok ? 'SUCCESS' : 'ERROR',
          endedAt: now,
          message: outcome.ok ? null : outcome.message,
          ...(outcome.details ? { details: { ...service.details, ...outcome.details } } : {}),
        }
      : undefined,
  )
}

/** The stage ends DONE, or ERROR when a service of it failed; after an error the later stages are SKIPPED and the run fails. */
export function finishStage(run: DeploymentRun, index: number, now: Now): DeploymentRun {
  const failed = run.progress.stages[index]!.services.filter((service) => service.phase === 'ERROR')
  const ended = mapStage({ ...run, updatedAt: now }, index, { status: failed.length ? 'ERROR' : 'DONE', endedAt: now })
  if (failed.length === 0) return ended
  const skipped: DeploymentRun = {
    ...ended,
    progress: { stages: ended.progress.stages.map((stage, i) => (i > index ? { ...stage, status: 'SKIPPED' } : stage)) },
  }
  const names = failed.map((service) => `${service.name}: ${service.message}`).join('; ')
  return endRun(
    mapServices(skipped, now, (_service, stage) => (stage.status === 'SKIPPED' ? { phase: 'SKIPPED' } : undefined)),
    familyOf(run).failed,
    'ERROR',
    `stage ${run.progress.stages[index]!.name} failed: ${names}`,
    now,
  )
}

export function succeedRun(run: DeploymentRun, now: Now): DeploymentRun {
  return endRun(run, familyOf(run).done, 'SUCCESS', null, now)
}

/** Asked to cancel while running: what runs is being stopped. */
export function cancelingRun(run: DeploymentRun, now: Now): DeploymentRun {
  const canceling = mapServices(run, now, (service) => (service.phase === 'ONGOING' ? { phase: 'CANCELING' } : undefined))
  return { ...canceling, status: 'CANCELING', actionStatus: 'CANCELING', message: 'cancel requested' }
}

/** Canceled: what ran is stopped, what never ran stays as it was; unfinished stages are CANCELED. */
export function cancelRun(run: DeploymentRun, now: Now, message = 'canceled'): DeploymentRun {
  const services = mapServices(run, now, (service) =>
    service.phase === 'QUEUED' || service.phase === 'ONGOING' || service.phase === 'CANCELING'
      ? { phase: 'CANCELED', endedAt: service.startedAt ? now : null }
      : undefined,
  )
  const stages: DeploymentRun = {
    ...services,
    progress: {
      stages: services.progress.stages.map((stage) =>
        stage.status === 'QUEUED' || stage.status === 'ONGOING' ? { ...stage, status: 'CANCELED', endedAt: stage.startedAt ? now : null } : stage,
      ),
    },
  }
  return endRun(stages, 'CANCELED', 'CANCELED', message, now)
}

/** What an entry says of a deployment whose runner stopped renewing its lease before the end. */
export const INTERRUPTED = 'interrupted: its runner stopped responding before the end'

/**
 * Its runner was lost (its lease expired) before the end: what was running failed, the rest never
 * ran. A run asked to cancel meanwhile is simply canceled.
 */
export function interruptRun(run: DeploymentRun, cancelRequested: boolean, message: string, now: Now): DeploymentRun {
  if (cancelRequested) return cancelRun(run, now, `canceled; ${message}`)
  const failed = mapServices(run, now, (service) =>
    service.phase === 'ONGOING' || service.phase === 'CANCELING'
      ? { phase: 'ERROR', endedAt: now, message }
      : service.phase === 'QUEUED'
        ? { phase: 'SKIPPED' }
        : undefined,
  )
  const stages: DeploymentRun = {
    ...failed,
    progress: {
      stages: failed.progress.stages.map((stage) =>
        stage.status === 'ONGOING'
          ? { ...stage, status: 'ERROR', endedAt: now }
          : stage.status === 'QUEUED'
            ? { ...stage, status: 'SKIPPED' }
            : stage,
      ),
    },
  }
  return endRun(stages, familyOf(run).failed, 'ERROR', message, now)
}

function endRun(run: DeploymentRun, status: State, actionStatus: ActionStatus, message: string | null, now: Now): DeploymentRun {
  return { ...run, status, actionStatus, message, endedAt: now, updatedAt: now }
}

export const isFinished = (run: Pick<DeploymentRun, 'actionStatus'>) =>
  run.actionStatus !== 'QUEUED' && run.actionStatus !== 'ONGOING' && run.actionStatus !== 'CANCELING'
