import type { Principal } from '#src/platform/auth/principal.ts'
import type { EnvironmentStatusRecord, StatusRecord } from './deployment-statuses.ts'
import { alreadyStopped, beingDeleted, isStopped, notRestorable, type RunEnqueueing, whole } from './run-enqueueing.ts'
import type { DeploymentTriggersDeps, RunTarget, Selected } from './trigger-deps.ts'

// Triggers of a whole environment a principal asks for: deploy, redeploy, stop, delete and rollback.

export type EnvironmentTriggersDeps = Pick<DeploymentTriggersDeps, 'statuses' | 'restorable' | 'environments' | 'listServices' | 'users'>

export function createEnvironmentTriggers(deps: EnvironmentTriggersDeps, { enqueue }: RunEnqueueing) {
  const { statuses } = deps

  async function triggerEnvironment(principal: Principal, environmentId: string, trigger: 'DEPLOY' | 'DEPLOY_DRY_RUN' | 'RESTART' | 'STOP') {
    const { environment } = await deps.environments.requireEnvironment(principal, environmentId, 'DEPLOY')
    const [services, triggeredBy] = await Promise.all([
      deps.listServices(environment.organizationId, environment.id),
      deps.users.actorName(principal),
    ])
    // A service its stage marks skipped is left out of what the environment deploys.
    const included = services.filter((service) => !service.deploymentSkipped)
    const queued = await enqueue(environment, { serviceId: null, trigger, selected: whole(included) }, triggeredBy, async (queue, unfinished) =>
      trigger === 'STOP' && unfinished.length === 0 && (await isStopped(queue, included)) ? alreadyStopped() : undefined,
    )
    return { environment, services, ...queued }
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

    /**
     * deleteEnvironment: at once when it has no service; else a run that deletes its services (their
     * uninstall, a lifecycle job's on_delete), whose end deletes the environment when every service
     * went (the runs repository's `save`). A delete while one is under way does nothing more.
     */
    async deleteEnvironment(principal: Principal, environmentId: string): Promise<void> {
      const { environment } = await deps.environments.requireEnvironment(principal, environmentId, 'WRITE')
      const services = await deps.listServices(environment.organizationId, environment.id)
      if (services.length === 0) return deps.environments.delete(principal, environmentId)
      const triggeredBy = await deps.users.actorName(principal)
      const target: RunTarget = { serviceId: null, trigger: 'DELETE', selected: whole(services), deletesEnvironment: true }
      await enqueue(environment, target, triggeredBy, async (queue, unfinished) => ((await beingDeleted(queue, unfinished)) ? 'nothing' : undefined))
    },

    /**
     * Deploys again, as execution `executionId` deployed them, the services of the environment that
     * execution deployed successfully (when it succeeded as a whole) and that are still there and
     * not skipped; the others are left as they are.
     */
    async rollbackEnvironment(principal: Principal, environmentId: string, executionId: string): Promise<StatusRecord> {
      const { environment } = await deps.environments.requireEnvironment(principal, environmentId, 'DEPLOY')
      const found = await deps.restorable.successfulSnapshots(environment.id, executionId)
      if (!found?.succeeded) throw notRestorable('is not a successful deployment of this environment')
      const [services, triggeredBy] = await Promise.all([
        deps.listServices(environment.organizationId, environment.id),
        deps.users.actorName(principal),
      ])
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
  }
}
