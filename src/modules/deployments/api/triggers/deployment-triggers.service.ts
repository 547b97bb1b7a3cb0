import { randomUUID } from 'node:crypto'
import type { CheckedScope } from '#src/modules/organizations/organizations.service.ts'
import type { RequireService } from '#src/modules/services/require-service.ts'
import type { DeploymentLookups, ServiceKinds, ServiceRecord, ServiceSnapshot, ServiceSummary } from '#src/modules/services/service-kinds.ts'
import type { ResolvedVariables } from '#src/modules/variables/resolved-variables.ts'
import type { Principal } from '#src/platform/auth/principal.ts'
import type { Role } from '#src/platform/auth/roles.ts'
import { NEVER_DEPLOYED_STATE, type Origin, type RunnableTrigger, type ServiceType } from '#src/platform/deployment-states.ts'
import { AppError, type FieldError, notFound, validationFailed } from '#src/platform/http/errors.ts'
import { type CappedList, capped, DEFAULT_LIST_LIMIT } from '#src/platform/http/lists.ts'
import { asNotFound } from '#src/platform/http/not-found.ts'
import { plannedService } from '../../queue/deployment-plan.ts'
import {
  cancelingRun,
  cancelRun,
  type DeploymentRun,
  INTERRUPTED,
  interruptRun,
  type ServiceProgress,
  withPreviousStates,
} from '../../queue/deployment-progress.ts'
import { includes, serviceIdsOf } from '../../queue/deployment-rows.ts'
import type { EnvironmentQueue, LockedQueue, StoredRun } from '../../queue/environment-queue.ts'
import { queuedRun, snapshotOf, stageOfService } from '../../queue/queued-runs.ts'
import type { DeploymentHistoryRepository } from '../history/deployment-history.repository.ts'
import type { DeploymentStatuses, EnvironmentStatusRecord, StatusRecord } from './deployment-statuses.ts'
import type { RestorableSnapshotsRepository } from './restorable-snapshots.repository.ts'

// Triggers: what queues a deployment of an environment, of one service, or of a selection of
// services, with a snapshot of each service as of the trigger; and cancels. Nothing here names a
// kind: a service's kind plans its part through the registry.

export interface DeploymentTriggersDeps {
  queues: EnvironmentQueue
  history: DeploymentHistoryRepository
  /** The snapshots of earlier successful deployments, which a rollback deploys again. */
  restorable: RestorableSnapshotsRepository
  statuses: DeploymentStatuses
  kinds: ServiceKinds
  requireEnvironment(principal: Principal, environmentId: string, needed: Role): Promise<{ environment: { id: string; organizationId: string } }>
  requireService: RequireService
  /** The organizations service's `requireScoped`: the role held where the resource lies (a custom role grants per environment). */
  requireScopedRole(principal: Principal, organizationId: string, scope: CheckedScope, needed: Role): Promise<Role>
  /** The project's environments the principal sees (`environments.list`: a custom role's holder, those of its modes). */
  listEnvironments(principal: Principal, projectId: string): Promise<{ rows: { id: string; organizationId: string }[] }>
  /** The environment's services with their configurations: for triggers, which snapshot them. */
  listServices(organizationId: string, environmentId: string): Promise<ServiceRecord[]>
  /** The environment's services without their configurations: for statuses. */
  listServiceSummaries(organizationId: string, environmentId: string): Promise<ServiceSummary[]>
  /** The environment's deployment stages, in deploy order. */
  listStages(environmentId: string): Promise<{ id: string; name: string; description: string | null; position: number }[]>
  /** What each service deploys with, resolved now: the variables it sees. */
  resolveVariables(environmentId: string, serviceIds: string[]): Promise<Map<string, ResolvedVariables>>
  /** What each service deploys with: every advanced setting, as of now. */
  advancedSettings(services: { id: string; kind: string }[]): Promise<Map<string, Record<string, unknown>>>
  /** How history names who triggered (`triggered_by`). */
  actorName(principal: Principal): Promise<string>
  /** Deletes an environment, without services, at once, for no principal (a preview's). */
  deleteEnvironmentRecord?(environmentId: string): Promise<void>
  /** Deletes an environment without services at once (`environments.delete`). */
  deleteEmptyEnvironment(principal: Principal, environmentId: string): Promise<void>
  /** Told when a run was queued, so that a runner of this process looks at once. */
  onQueued(): void
  /** BERTH_LIST_LIMIT: the most runs a deployment queue lists. */
  listLimit?: number
  /** What kinds consult to resolve what a deployment builds (a commit at a git provider). */
  deploymentLookups?: DeploymentLookups
  /** Why nothing may be queued in the environment now (its cluster is locked: docs/clusters.md), or undefined. */
  lockRefusal?(environmentId: string): Promise<AppError | undefined>
}

/** A service a trigger deploys, with what its request asks beyond its configuration. */
export interface Selected {
  service: ServiceRecord
  overrides: object
  /**
   * Where a bulk request named it, for errors about its overrides (`/helms/0`); absent for the one
   * service of a service action; null when the request did not name it (an environment's deployment).
   */
  path?: string | null
  /**
   * A rollback: the snapshot of the earlier deployment `executionId` to deploy again, as it was
   * (configuration, overrides, variables, settings, labels), instead of the service as of now.
   */
  restored?: { executionId: string; snapshot: ServiceSnapshot }
}

/** A service a bulk request names: its kind, its id, and where the request named it (for errors). */
export interface SelectionItem {
  type: ServiceType
  id: string
  overrides: object
  path: string
}

/** The environment a run is queued in. */
type Target = { id: string; organizationId: string }
/**
 * What a run will do: to the whole environment or a selection (serviceId: the one service it names,
 * else null); `origin` says what started it (API when absent).
 */
type RunTarget = { serviceId: string | null; trigger: RunnableTrigger; selected: Selected[]; origin?: Origin; deletesEnvironment?: boolean }
/** Why a trigger cannot queue (a 409), or that it has nothing to do; undefined to queue. */
type Refusal<Nothing> = (queue: LockedQueue, unfinished: DeploymentRun[]) => Promise<AppError | Nothing | undefined>
type Queued = { run: DeploymentRun; unfinished: DeploymentRun[] }

/** The 400 of a rollback to an execution it cannot restore. */
const notRestorable = (message: string) => validationFailed([{ path: '/execution_id', message, location: 'body' }])

const alreadyStopped = () => new AppError('conflict', 'the environment is already stopped')

/** Whether a run queued or running is to delete the environment. */
async function beingDeleted(queue: LockedQueue, unfinished: DeploymentRun[]): Promise<boolean> {
  const deletion = await queue.deletionRun()
  return deletion !== undefined && unfinished.some((run) => run.id === deletion)
}

/** "a helm", "an application". */
const article = (noun: string) => `${/^[aeiou]/.test(noun) ? 'an' : 'a'} ${noun}`

const whole = (services: ServiceRecord[]): Selected[] => services.map((service) => ({ service, overrides: {}, path: null }))

/** Whether every service is stopped; an environment without services, whether its newest deployment stopped it. */
async function isStopped(queue: LockedQueue, services: { id: string }[]): Promise<boolean> {
  if (services.length === 0) return (await queue.latestStatus()) === 'STOPPED'
  const states = await queue.finishedStates(services.map((service) => service.id))
  return services.every((service) => states.get(service.id) === 'STOPPED')
}

export function createDeploymentTriggersService(deps: DeploymentTriggersDeps) {
  const { queues, statuses, kinds, listLimit = DEFAULT_LIST_LIMIT } = deps

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
    const resolved = await deps.resolveVariables(
      environment.id,
      current.map((service) => service.id),
    )
    const settings = await deps.advancedSettings(current)
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

  async function environmentStatusOf(environment: Target): Promise<EnvironmentStatusRecord> {
    return statuses.environmentStatus(environment.id, await deps.listServiceSummaries(environment.organizationId, environment.id))
  }

  async function triggerEnvironment(principal: Principal, environmentId: string, trigger: 'DEPLOY' | 'DEPLOY_DRY_RUN' | 'RESTART' | 'STOP') {
    const { environment } = await deps.requireEnvironment(principal, environmentId, 'DEPLOY')
    const [services, triggeredBy] = await Promise.all([deps.listServices(environment.organizationId, environment.id), deps.actorName(principal)])
    // A service its stage marks skipped is left out of what the environment deploys.
    const included = services.filter((service) => !service.deploymentSkipped)
    const queued = await enqueue(environment, { serviceId: null, trigger, selected: whole(included) }, triggeredBy, async (queue, unfinished) =>
      trigger === 'STOP' && unfinished.length === 0 && (await isStopped(queue, included)) ? alreadyStopped() : undefined,
    )
    return { environment, services, ...queued }
  }

  /**
   * Queues a run of one service. Stop and uninstall look at the service's state unless a run
   * queued or running includes it: 409 for a stop of a stopped service, 'nothing' for an
   * uninstall of what is not installed.
   */
  async function triggerService(principal: Principal, type: ServiceType, serviceId: string, trigger: RunnableTrigger, overrides: object = {}) {
    const { service } = await deps.requireService(principal, serviceId, 'DEPLOY', type)
    return triggerFor(principal, service, trigger, overrides)
  }

  /** A service trigger once the caller's access to `service`, as read, was checked; `restored` for a rollback. */
  async function triggerFor(
    principal: Principal,
    service: ServiceRecord,
    trigger: RunnableTrigger,
    overrides: object = {},
    restored?: Selected['restored'],
  ) {
    const kind = kindOf(service.kind)
    // A restored snapshot's overrides are those its configuration of then accepted.
    const errors = restored ? [] : kind.overrideErrors(service.configuration, overrides)
    if (errors.length > 0) throw validationFailed(errors)
    const triggeredBy = await deps.actorName(principal)
    const queued = await enqueue(
      { id: service.environmentId, organizationId: service.organizationId },
      { serviceId: service.id, trigger, selected: [{ service, overrides, ...(restored ? { restored } : {}) }] },
      triggeredBy,
      async (queue, unfinished) => {
        if (trigger !== 'STOP' && trigger !== 'UNINSTALL' && trigger !== 'DELETE') return undefined
        if (unfinished.some((run) => includes(run, service.id))) return undefined
        const state = await queue.latestServiceStatus(service.id)
        if (trigger === 'STOP') return state === 'STOPPED' ? new AppError('conflict', `the ${kind.noun} service is already stopped`) : undefined
        return state === undefined || state === 'DELETED' || state === NEVER_DEPLOYED_STATE ? ('nothing' as const) : undefined
      },
    )
    if (queued === 'nothing') return 'nothing' as const
    const forService = queued.unfinished.filter((run) => includes(run, service.id)).length
    return statuses.queuedStatus(service.id, queued.run, forService, await statuses.deploymentStatus([service], undefined))
  }

  /** The service triggers that queue or refuse, never find nothing to do. */
  async function queuedService(
    principal: Principal,
    type: ServiceType,
    serviceId: string,
    trigger: 'DEPLOY' | 'DEPLOY_DRY_RUN' | 'RESTART' | 'STOP',
    overrides?: object,
  ) {
    const status = await triggerService(principal, type, serviceId, trigger, overrides)
    if (status === 'nothing') throw new Error(`a ${trigger} of a service found nothing to do`)
    return status
  }

  /**
   * The services a bulk request names, each a service of the environment of the kind it is named
   * as, with its overrides checked: every error of the request at once.
   */
  async function selection(environment: Target, items: SelectionItem[]): Promise<Selected[]> {
    if (items.length === 0) throw validationFailed([{ path: '', message: 'names no service', location: 'body' }])
    const byId = new Map((await deps.listServices(environment.organizationId, environment.id)).map((service) => [service.id, service]))
    const errors: FieldError[] = []
    const selected = new Map<string, Selected>()
    for (const item of items) {
      const service = byId.get(item.id)
      if (!service || service.kind !== item.type) {
        errors.push({
          path: item.path,
          message: `is not ${article(kinds.get(item.type)?.noun ?? item.type.toLowerCase())} service of this environment`,
          location: 'body',
        })
        continue
      }
      const overrideErrors = kindOf(service.kind).overrideErrors(service.configuration, item.overrides)
      const itemPath = item.path.replace(/\/(id|application_id)$/, '')
      errors.push(...overrideErrors.map((error) => ({ ...error, path: `${itemPath}${error.path}` })))
      selected.set(service.id, { service, overrides: item.overrides, path: itemPath })
    }
    if (errors.length > 0) throw validationFailed(errors)
    return [...selected.values()]
  }

  /** Queues one run of the selected services of the environment. */
  async function triggerSelection(principal: Principal, environmentId: string, trigger: RunnableTrigger, items: SelectionItem[]) {
    // Deleting services takes them away for good: the role that may delete them (WRITE), not only deploy them.
    const { environment } = await deps.requireEnvironment(principal, environmentId, trigger === 'DELETE' ? 'WRITE' : 'DEPLOY')
    const selected = await selection(environment, items)
    const triggeredBy = await deps.actorName(principal)
    const serviceId = selected.length === 1 ? selected[0]!.service.id : null
    const queued = await enqueue(environment, { serviceId, trigger, selected }, triggeredBy, async (queue, unfinished) => {
      if (trigger !== 'STOP') return undefined
      const services = selected.map(({ service }) => service)
      const pending = unfinished.some((run) => services.some((service) => includes(run, service.id)))
      return !pending && (await isStopped(queue, services)) ? new AppError('conflict', 'every selected service is already stopped') : undefined
    })
    return { environment, ...queued }
  }

  /**
   * Cancels an unfinished run: a queued one (or one no runner holds) at once, a running one
   * through its runner (CANCELING, then CANCELED). False when it is already being canceled.
   */
  async function cancelOne(queue: LockedQueue, stored: StoredRun): Promise<boolean> {
    const now = await queue.now()
    if (stored.leased) {
      if (stored.cancelRequested) return false
      await queue.requestCancel(cancelingRun(stored.run, now))
      return true
    }
    // No runner holds it: never started, handed back, or held by a runner that was lost.
    const lost = stored.leaseOwner !== null
    const run = withPreviousStates(stored.run, await queue.finishedStates(serviceIdsOf(stored.run)))
    await queue.end(lost ? interruptRun(run, true, INTERRUPTED, now) : cancelRun(run, now))
    return true
  }

  /** The environment's status and each of its services'. */
  /** deployPushed's work, with the origin given: one run per environment of the selected services. */
  async function deployAs(organizationId: string, selected: Selected[], pusher: string, origin: Origin): Promise<DeploymentRun[]> {
    const byEnvironment = new Map<string, Selected[]>()
    for (const { service, overrides } of selected) {
      const accepted = kindOf(service.kind).overrideErrors(service.configuration, overrides).length === 0 ? overrides : {}
      byEnvironment.set(service.environmentId, [...(byEnvironment.get(service.environmentId) ?? []), { service, overrides: accepted }])
    }
    const runs: DeploymentRun[] = []
    for (const [environmentId, services] of byEnvironment) {
      const serviceId = services.length === 1 ? services[0]!.service.id : null
      const target: RunTarget = { serviceId, trigger: 'DEPLOY', selected: services, origin }
      try {
        runs.push((await enqueue({ id: environmentId, organizationId }, target, pusher, async () => undefined)).run)
      } catch (error) {
        // An environment deleted, or being deleted, since the push's services were found.
        if (!(error instanceof AppError && (error.code === 'not_found' || error.code === 'conflict'))) throw error
      }
    }
    return runs
  }

  async function statusesOf(environmentId: string, services: ServiceSummary[]) {
    const [environment, serviceStatuses] = await Promise.all([
      statuses.environmentStatus(environmentId, services),
      statuses.serviceStatuses(environmentId, services),
    ])
    return { environment, services: services.map((service, i) => ({ service, status: serviceStatuses[i]! })) }
  }

  return {
    /** `dryRun`: a DEPLOY_DRY_RUN, which does what a deploy does up to changing what runs. */
    async deployEnvironment(principal: Principal, environmentId: string, dryRun = false): Promise<StatusRecord> {
      const { environment, services, run, unfinished } = await triggerEnvironment(principal, environmentId, dryRun ? 'DEPLOY_DRY_RUN' : 'DEPLOY')
      return statuses.queuedStatus(environment.id, run, unfinished.length, await statuses.deploymentStatus(services, environment.id))
    },

    async redeployEnvironment(principal: Principal, environmentId: string): Promise<EnvironmentStatusRecord> {
      const { environment, services } = await triggerEnvironment(principal, environmentId, 'RESTART')
      return statuses.environmentStatus(environment.id, services)
    },

    async stopEnvironment(principal: Principal, environmentId: string): Promise<EnvironmentStatusRecord> {
      const { environment, services } = await triggerEnvironment(principal, environmentId, 'STOP')
      return statuses.environmentStatus(environment.id, services)
    },

    /** Cancels every unfinished run of the environment. 409 when there is nothing left to cancel. */
    async cancelEnvironment(principal: Principal, environmentId: string): Promise<EnvironmentStatusRecord> {
      const { environment } = await deps.requireEnvironment(principal, environmentId, 'DEPLOY')
      const outcome = await queues.withEnvironmentLocked(environment.id, async (queue) => {
        const unfinished = await queue.unfinished()
        if (unfinished.length === 0) return new AppError('conflict', 'no deployment of this environment is queued or running')
        let acted = false
        for (const stored of unfinished) acted = (await cancelOne(queue, stored)) || acted
        return acted ? undefined : new AppError('conflict', 'the deployment of this environment is already being canceled')
      })
      if (outcome) throw outcome
      deps.onQueued()
      return environmentStatusOf(environment)
    },

    /** Cancels one deployment request of the queue (cancelDeploymentRequest). */
    async cancelRequest(principal: Principal, executionId: string): Promise<void> {
      const found = await deps.history.findRun(executionId)
      if (!found) throw notFound('deployment request')
      const scope = { kind: 'environmentId', environmentId: found.environmentId } as const
      await deps.requireScopedRole(principal, found.organizationId, scope, 'DEPLOY').catch(asNotFound('deployment request'))
      const outcome = await queues.withEnvironmentLocked(found.environmentId, async (queue) => {
        const stored = (await queue.unfinished()).find((candidate) => candidate.run.id === executionId)
        if (!stored) return new AppError('conflict', 'the deployment request is no longer queued or running')
        return (await cancelOne(queue, stored)) ? undefined : new AppError('conflict', 'the deployment request is already being canceled')
      })
      if (outcome) throw outcome
      deps.onQueued()
    },

    async getEnvironmentStatus(principal: Principal, environmentId: string): Promise<EnvironmentStatusRecord> {
      const { environment } = await deps.requireEnvironment(principal, environmentId, 'READ')
      return environmentStatusOf(environment)
    },

    /** The status of each environment of the project the principal sees (getProjectEnvironmentsStatus). */
    async getProjectEnvironmentsStatus(principal: Principal, projectId: string): Promise<EnvironmentStatusRecord[]> {
      const { rows } = await deps.listEnvironments(principal, projectId)
      return Promise.all(rows.map(environmentStatusOf))
    },

    /** The environment's status and each service's, with the services' kinds and stages. */
    async getEnvironmentStatuses(principal: Principal, environmentId: string) {
      const { environment } = await deps.requireEnvironment(principal, environmentId, 'READ')
      return statusesOf(environment.id, await deps.listServiceSummaries(environment.organizationId, environment.id))
    },

    /**
     * The environment's status and its stages in deploy order, each with its services' statuses
     * and its status in the deployment the environment is busy with, else its newest.
     */
    async getEnvironmentStatusesWithStages(principal: Principal, environmentId: string) {
      const { environment } = await deps.requireEnvironment(principal, environmentId, 'READ')
      const [services, stages, { latest, current }] = await Promise.all([
        deps.listServiceSummaries(environment.organizationId, environment.id),
        deps.listStages(environment.id),
        deps.history.environmentRuns(environment.id),
      ])
      const run = current ?? latest
      const { environment: environmentStatus, services: serviceStatuses } = await statusesOf(environment.id, services)
      return {
        environment: environmentStatus,
        stages: stages.map((stage) => ({
          stage,
          status: run?.progress.stages.find((planned) => planned.name === stage.name)?.status,
          services: serviceStatuses.filter(({ service }) => service.deploymentStageId === stage.id),
        })),
      }
    },

    /**
     * Queues, in each environment, one deployment of the services a git push deploys, with origin
     * GIT and `pusher` as `triggered_by`. Each service gets its overrides (the pushed commit) when
     * its kind accepts them, else deploys as configured. An environment deleted meanwhile is skipped.
     */
    async deployPushed(organizationId: string, selected: Selected[], pusher: string): Promise<DeploymentRun[]> {
      return deployAs(organizationId, selected, pusher, 'GIT')
    },

    /**
     * Queues a preview environment's deployment (docs/previews.md): as deployPushed, with `origin`
     * (GIT for a pull request, API for previewContainerEnvironments) and `triggeredBy` naming
     * what asked for it.
     */
    deployPreview: deployAs,

    /**
     * Stops, or deploys again, a whole environment for what no principal asked (a deployment
     * rule's schedule, docs/deployment-rules.md): origin PLATFORM_INTERNAL, `triggeredBy` naming
     * why. 'nothing' when it has no services, or a stop finds them stopped.
     */
    async runScheduled(environment: Target, trigger: 'STOP' | 'DEPLOY', triggeredBy: string): Promise<'queued' | 'nothing'> {
      const services = (await deps.listServices(environment.organizationId, environment.id)).filter((service) => !service.deploymentSkipped)
      if (services.length === 0) return 'nothing'
      const target: RunTarget = { serviceId: null, trigger, selected: whole(services), origin: 'PLATFORM_INTERNAL' }
      const queued = await enqueue(environment, target, triggeredBy, async (queue, unfinished) =>
        trigger === 'STOP' && unfinished.length === 0 && (await isStopped(queue, services)) ? 'nothing' : undefined,
      )
      return queued === 'nothing' ? 'nothing' : 'queued'
    },

    /**
     * Deletes a preview environment for what no principal asked (a closed pull request, an idle
     * preview): as deleteEnvironment, with origin PLATFORM_INTERNAL and `triggeredBy` naming why.
     */
    async deletePreviewEnvironment(environment: Target, triggeredBy: string): Promise<void> {
      const services = await deps.listServices(environment.organizationId, environment.id)
      if (services.length === 0) return deps.deleteEnvironmentRecord?.(environment.id)
      const target: RunTarget = {
        serviceId: null,
        trigger: 'DELETE',
        selected: whole(services),
        deletesEnvironment: true,
        origin: 'PLATFORM_INTERNAL',
      }
      await enqueue(environment, target, triggeredBy, async (queue, unfinished) => ((await beingDeleted(queue, unfinished)) ? 'nothing' : undefined))
    },

    /**
     * deleteEnvironment: at once when it has no service; else a run that deletes its services (their
     * uninstall, a lifecycle job's on_delete), whose end deletes the environment when every service
     * went (the runs repository's `save`). A delete while one is under way does nothing more.
     */
    async deleteEnvironment(principal: Principal, environmentId: string): Promise<void> {
      const { environment } = await deps.requireEnvironment(principal, environmentId, 'WRITE')
      const services = await deps.listServices(environment.organizationId, environment.id)
      if (services.length === 0) return deps.deleteEmptyEnvironment(principal, environmentId)
      const triggeredBy = await deps.actorName(principal)
      const target: RunTarget = { serviceId: null, trigger: 'DELETE', selected: whole(services), deletesEnvironment: true }
      await enqueue(environment, target, triggeredBy, async (queue, unfinished) => ((await beingDeleted(queue, unfinished)) ? 'nothing' : undefined))
    },

    /**
     * Deploys the service again as execution `executionId` deployed it (its snapshot), when that
     * execution deployed it successfully (a deploy or a redeploy); else a 400 at `/execution_id`.
     * The service's stored configuration stays as it is.
     */
    async rollbackService(principal: Principal, type: ServiceType, serviceId: string, executionId: string): Promise<StatusRecord> {
      const { service } = await deps.requireService(principal, serviceId, 'DEPLOY', type)
      const found = await deps.restorable.successfulSnapshots(service.environmentId, executionId, service.id)
      const snapshot = found?.snapshots[0]
      if (!snapshot) throw notRestorable(`is not a successful deployment of this ${kindOf(service.kind).noun} service`)
      const status = await triggerFor(principal, service, 'DEPLOY', snapshot.overrides, { executionId, snapshot })
      if (status === 'nothing') throw new Error('a rollback of a service found nothing to do')
      return status
    },

    /**
     * Deploys again, as execution `executionId` deployed them, the services of the environment that
     * execution deployed successfully (when it succeeded as a whole) and that are still there and
     * not skipped; the others are left as they are.
     */
    async rollbackEnvironment(principal: Principal, environmentId: string, executionId: string): Promise<StatusRecord> {
      const { environment } = await deps.requireEnvironment(principal, environmentId, 'DEPLOY')
      const found = await deps.restorable.successfulSnapshots(environment.id, executionId)
      if (!found?.succeeded) throw notRestorable('is not a successful deployment of this environment')
      const [services, triggeredBy] = await Promise.all([deps.listServices(environment.organizationId, environment.id), deps.actorName(principal)])
      const byService = new Map(found.snapshots.map((snapshot) => [snapshot.serviceId, snapshot]))
      const selected = services.flatMap((service): Selected[] => {
        const snapshot = byService.get(service.id)
        if (!snapshot || service.deploymentSkipped) return []
        return [{ service, overrides: snapshot.overrides, path: null, restored: { executionId, snapshot } }]
      })
      if (selected.length === 0) throw notRestorable('deployed no service that is still in this environment and not skipped')
      const { run, unfinished } = await enqueue(environment, { serviceId: null, trigger: 'DEPLOY', selected }, triggeredBy, async () => undefined)
      return statuses.queuedStatus(environment.id, run, unfinished.length, await statuses.deploymentStatus(services, environment.id))
    },

    /** `dryRun`: a DEPLOY_DRY_RUN, which does what a deploy does up to changing what runs. */
    deployService: (principal: Principal, type: ServiceType, serviceId: string, overrides: object, dryRun = false) =>
      queuedService(principal, type, serviceId, dryRun ? 'DEPLOY_DRY_RUN' : 'DEPLOY', overrides),
    redeployService: (principal: Principal, type: ServiceType, serviceId: string, overrides?: object) =>
      queuedService(principal, type, serviceId, 'RESTART', overrides),
    stopService: (principal: Principal, type: ServiceType, serviceId: string) => queuedService(principal, type, serviceId, 'STOP'),
    /**
     * A service delete: a deployment that deletes it when it is installed (or a run queued would
     * install it); 'nothing' when it is not, for the core to delete it at once.
     */
    deleteInstalledService: (principal: Principal, service: ServiceRecord, overrides?: object) => triggerFor(principal, service, 'DELETE', overrides),
    /** 'nothing' when the service is not installed and nothing queued would install it. */
    uninstallService: (principal: Principal, type: ServiceType, serviceId: string, overrides?: object) =>
      triggerService(principal, type, serviceId, 'UNINSTALL', overrides),

    async getServiceStatus(principal: Principal, type: ServiceType, serviceId: string): Promise<StatusRecord> {
      const { service } = await deps.requireService(principal, serviceId, 'READ', type)
      return statuses.serviceStatus(service)
    },

    /** deployAllServices: deploys the selection, each service with its overrides. */
    async deploySelected(principal: Principal, environmentId: string, items: SelectionItem[]): Promise<EnvironmentStatusRecord> {
      const { environment } = await triggerSelection(principal, environmentId, 'DEPLOY', items)
      return environmentStatusOf(environment)
    },

    /** rebootServices: restarts the selection; answers the environment's Status as of the trigger. */
    async restartSelected(principal: Principal, environmentId: string, items: SelectionItem[]): Promise<StatusRecord> {
      const { environment, run, unfinished } = await triggerSelection(principal, environmentId, 'RESTART', items)
      const services = await deps.listServiceSummaries(environment.organizationId, environment.id)
      return statuses.queuedStatus(environment.id, run, unfinished.length, await statuses.deploymentStatus(services, environment.id))
    },

    /** stopSelectedServices, uninstallSelectedServices, deleteSelectedServices. */
    async triggerSelected(
      principal: Principal,
      environmentId: string,
      trigger: 'STOP' | 'UNINSTALL' | 'DELETE',
      items: SelectionItem[],
    ): Promise<EnvironmentStatusRecord> {
      const { environment } = await triggerSelection(principal, environmentId, trigger, items)
      return environmentStatusOf(environment)
    },

    /** The environment's deployment queue: its runs queued or running, oldest first, the first BERTH_LIST_LIMIT of them. */
    async environmentQueue(principal: Principal, environmentId: string): Promise<CappedList<DeploymentRun>> {
      const { environment } = await deps.requireEnvironment(principal, environmentId, 'READ')
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

export type DeploymentTriggersService = ReturnType<typeof createDeploymentTriggersService>
