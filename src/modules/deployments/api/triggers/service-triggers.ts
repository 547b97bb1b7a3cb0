import type { ServiceRecord } from '#src/modules/services/service-kinds.ts'
import type { Principal } from '#src/platform/auth/principal.ts'
import { NEVER_DEPLOYED_STATE, type RunnableTrigger, type ServiceType } from '#src/platform/deployment-states.ts'
import { AppError, validationFailed } from '#src/platform/http/errors.ts'
import { includes } from '../../queue/deployment-rows.ts'
import type { StatusRecord } from './deployment-statuses.ts'
import { notRestorable, type RunEnqueueing } from './run-enqueueing.ts'
import type { DeploymentTriggersDeps, Selected } from './trigger-deps.ts'

// Triggers of one service: deploy, redeploy, stop, uninstall, delete and rollback.

export type ServiceTriggersDeps = Pick<DeploymentTriggersDeps, 'statuses' | 'restorable' | 'requireService' | 'users'>

export function createServiceTriggers(deps: ServiceTriggersDeps, { enqueue, kindOf }: RunEnqueueing) {
  const { statuses } = deps

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
    const triggeredBy = await deps.users.actorName(principal)
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

  return {
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
  }
}
