import type { Origin } from '#src/platform/deployment-states.ts'
import { AppError } from '#src/platform/http/errors.ts'
import type { DeploymentRun } from '../../queue/deployment-progress.ts'
import { beingDeleted, isStopped, type RunEnqueueing, whole } from './run-enqueueing.ts'
import type { DeploymentTriggersDeps, RunTarget, Selected, Target } from './trigger-deps.ts'

// Triggers no principal asks for: a git push, a preview environment's deploy and delete, a
// deployment rule's schedule. `triggeredBy` names what asked.

export type AutomaticTriggersDeps = Pick<DeploymentTriggersDeps, 'listServices' | 'environments'>

export function createAutomaticTriggers(deps: AutomaticTriggersDeps, { enqueue, kindOf }: RunEnqueueing) {
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

  return {
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
      if (services.length === 0) return deps.environments.deleteUnchecked(environment.id)
      const target: RunTarget = {
        serviceId: null,
        trigger: 'DELETE',
        selected: whole(services),
        deletesEnvironment: true,
        origin: 'PLATFORM_INTERNAL',
      }
      await enqueue(environment, target, triggeredBy, async (queue, unfinished) => ((await beingDeleted(queue, unfinished)) ? 'nothing' : undefined))
    },
  }
}
