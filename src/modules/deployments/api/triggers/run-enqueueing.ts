import { randomUUID } from 'node:crypto'
import type { ServiceRecord } from '#src/modules/services/service-kinds.ts'
import type { RunnableTrigger, ServiceType } from '#src/platform/deployment-states.ts'
import { AppError, notFound, validationFailed } from '#src/platform/http/errors.ts'
import { plannedService } from '../../queue/deployment-plan.ts'
import type { DeploymentRun } from '../../queue/deployment-progress.ts'
import type { LockedQueue } from '../../queue/environment-queue.ts'
import { queuedRun, snapshotOf, stageOfService } from '../../queue/queued-runs.ts'
import type { DeploymentTriggersDeps, RunTarget, Selected, Target } from './trigger-deps.ts'

// How every trigger queues its run: overrides resolved, services planned and snapshotted, then the
// run inserted at the end of the environment's queue under its lock (with the refusals triggers
// share). Nothing here names a kind.

/** Why a trigger cannot queue (a 409), or that it has nothing to do; undefined to queue. */
export type Refusal<Nothing> = (queue: LockedQueue, unfinished: DeploymentRun[]) => Promise<AppError | Nothing | undefined>
export type Queued = { run: DeploymentRun; unfinished: DeploymentRun[] }

export type RunEnqueueingDeps = Pick<
  DeploymentTriggersDeps,
  'queues' | 'kinds' | 'lockRefusal' | 'listStages' | 'variables' | 'advancedSettings' | 'onQueued' | 'deploymentLookups'
>

/** The 400 of a rollback to an execution it cannot restore. */
export const notRestorable = (message: string) => validationFailed([{ path: '/execution_id', message, location: 'body' }])

export const alreadyStopped = () => new AppError('conflict', 'the environment is already stopped')

/** Whether a run queued or running is to delete the environment. */
export async function beingDeleted(queue: LockedQueue, unfinished: DeploymentRun[]): Promise<boolean> {
  const deletion = await queue.deletionRun()
  return deletion !== undefined && unfinished.some((run) => run.id === deletion)
}

export const whole = (services: ServiceRecord[]): Selected[] => services.map((service) => ({ service, overrides: {}, path: null }))

/** Whether every service is stopped; an environment without services, whether its newest deployment stopped it. */
export async function isStopped(queue: LockedQueue, services: { id: string }[]): Promise<boolean> {
  if (services.length === 0) return (await queue.latestStatus()) === 'STOPPED'
  const states = await queue.finishedStates(services.map((service) => service.id))
  return services.every((service) => states.get(service.id) === 'STOPPED')
}

export type RunEnqueueing = ReturnType<typeof createRunEnqueueing>

export function createRunEnqueueing(deps: RunEnqueueingDeps) {
  const { queues, kinds } = deps

  const kindOf = (type: ServiceType) => {
    const kind = kinds.get(type)
    if (!kind) throw new Error(`no service kind ${type} is registered`)
    return kind
  }

  /**
   * Each selected service's overrides as its kind resolves them for this trigger (a commit looked
   * up at its git provider), all at once; an error about a bulk item's field names it at its path.
   */
  async function resolveOverrides(environment: Target, trigger: RunnableTrigger, selected: Selected[]): Promise<Selected[]> {
    const lookups = deps.deploymentLookups
    return Promise.all(
      selected.map(async (item) => {
        const kind = kindOf(item.service.kind)
        // A restored snapshot's overrides were resolved when it first deployed.
        if (!kind.resolveOverrides || !lookups || item.restored) return item
        try {
          const context = { organizationId: environment.organizationId, serviceId: item.service.id, trigger, lookups }
          return { ...item, overrides: await kind.resolveOverrides(item.service.configuration, item.overrides, context) }
        } catch (error) {
          if (error instanceof AppError && error.errors && item.path !== undefined) {
            // A service the request did not name: no field of the request is wrong; say which service failed.
            if (item.path === null) {
              throw new AppError(
                'bad_request',
                `${kind.noun} "${item.service.name}": ${error.errors.map((fieldError) => fieldError.message).join('; ')}`,
              )
            }
            throw validationFailed(error.errors.map((fieldError) => ({ ...fieldError, path: `${item.path}${fieldError.path}` })))
          }
          throw error
        }
      }),
    )
  }

  /**
   * Queues a run at the end of the environment's queue. `refuse` looks at the locked queue and
   * says why the trigger cannot queue (a 409), or that it has 'nothing' to do, or nothing.
   * `unfinished` lists the environment's runs not finished, the new one last.
   */
  function enqueue(environment: Target, target: RunTarget, triggeredBy: string, refuse: Refusal<never>): Promise<Queued>
  function enqueue(environment: Target, target: RunTarget, triggeredBy: string, refuse: Refusal<'nothing'>): Promise<Queued | 'nothing'>
  async function enqueue(environment: Target, unresolved: RunTarget, triggeredBy: string, refuse: Refusal<'nothing'>): Promise<Queued | 'nothing'> {
    const locked = await deps.lockRefusal?.(environment.id)
    if (locked) throw locked
    // The id is fixed first: a kind's history details may name it (an application's build pod).
    const id = randomUUID()
    const target = { ...unresolved, selected: await resolveOverrides(environment, unresolved.trigger, unresolved.selected) }
    const stageOf = stageOfService(
      target.selected.map(({ service }) => service),
      await deps.listStages(environment.id),
    )
    const planned = target.selected.map(({ service, overrides, restored }) =>
      restored ? restoredPlan(service, target.trigger, restored, id) : plannedService(kindOf(service.kind), service, target.trigger, overrides, id),
    )
    const current = target.selected.filter(({ restored }) => !restored).map(({ service }) => service)
    const resolved = await deps.variables.resolveForDeployment(
      environment.id,
      current.map((service) => service.id),
    )
    const settings = await deps.advancedSettings.forDeployment(current)
    const snapshots = target.selected.map(({ service, overrides, restored }) =>
      // The service keeps its name of now (what its instances are called); the rest is as it was.
      restored ? { ...restored.snapshot, name: service.name } : snapshotOf(service, overrides, resolved.get(service.id), settings.get(service.id)),
    )
    const queued = await queues.withEnvironmentLocked(environment.id, async (queue, next) => {
      const unfinished = (await queue.unfinished()).map((stored) => stored.run)
      // Nothing queues behind the run that deletes the environment: it would have nothing left to act on.
      if (!target.deletesEnvironment && (await beingDeleted(queue, unfinished))) throw new AppError('conflict', 'the environment is being deleted')
      const refusal = await refuse(queue, unfinished)
      if (refusal instanceof AppError) throw refusal
      if (refusal === 'nothing') return refusal
      const { seq, createdAt } = await next()
      const states = await queue.finishedStates(planned.map((service) => service.id))
      const run = queuedRun({
        id,
        environment,
        serviceId: target.serviceId,
        trigger: target.trigger,
        origin: target.origin ?? 'API',
        triggeredBy,
        planned,
        states,
        createdAt,
        stageOf,
      })
      await queue.insert(run, seq, snapshots)
      if (target.deletesEnvironment) await queue.markDeletion(run.id)
      return { run, unfinished: [...unfinished, run] }
    })
    if (queued === undefined) throw notFound('environment')
    if (queued !== 'nothing') deps.onQueued()
    return queued
  }

  /** A restored service's plan: its history details as the earlier deployment's, naming the execution restored. */
  function restoredPlan(service: ServiceRecord, trigger: RunnableTrigger, restored: NonNullable<Selected['restored']>, id: string) {
    const { snapshot } = restored
    const kind = kindOf(service.kind)
    const planned = plannedService(
      kind,
      { ...service, version: snapshot.version, configuration: snapshot.configuration },
      trigger,
      snapshot.overrides,
      id,
    )
    return { ...planned, details: { ...planned.details, restores_execution_id: restored.executionId } }
  }

  return { kindOf, enqueue }
}
