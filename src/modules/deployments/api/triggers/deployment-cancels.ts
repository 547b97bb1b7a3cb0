import type { Principal } from '#src/platform/auth/principal.ts'
import { AppError, notFound } from '#src/platform/http/errors.ts'
import { asNotFound } from '#src/platform/http/not-found.ts'
import { cancelingRun, cancelRun, INTERRUPTED, interruptRun, withPreviousStates } from '../../queue/deployment-progress.ts'
import { serviceIdsOf } from '../../queue/deployment-rows.ts'
import type { LockedQueue, StoredRun } from '../../queue/environment-queue.ts'
import type { EnvironmentStatusRecord } from './deployment-statuses.ts'
import { environmentStatusOf } from './status-reads.ts'
import type { DeploymentTriggersDeps } from './trigger-deps.ts'

// Cancels: of every unfinished run of an environment, or of one deployment request.

export type DeploymentCancelsDeps = Pick<
  DeploymentTriggersDeps,
  'queues' | 'history' | 'statuses' | 'environments' | 'organizations' | 'listServiceSummaries' | 'onQueued'
>

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

export function createDeploymentCancels(deps: DeploymentCancelsDeps) {
  const { queues } = deps

  return {
    /** Cancels every unfinished run of the environment. 409 when there is nothing left to cancel. */
    async cancelEnvironment(principal: Principal, environmentId: string): Promise<EnvironmentStatusRecord> {
      const { environment } = await deps.environments.requireEnvironment(principal, environmentId, 'DEPLOY')
      const outcome = await queues.withEnvironmentLocked(environment.id, async (queue) => {
        const unfinished = await queue.unfinished()
        if (unfinished.length === 0) return new AppError('conflict', 'no deployment of this environment is queued or running')
        let acted = false
        for (const stored of unfinished) acted = (await cancelOne(queue, stored)) || acted
        return acted ? undefined : new AppError('conflict', 'the deployment of this environment is already being canceled')
      })
      if (outcome) throw outcome
      deps.onQueued()
      return environmentStatusOf(deps, environment)
    },

    /** Cancels one deployment request of the queue (cancelDeploymentRequest). */
    async cancelRequest(principal: Principal, executionId: string): Promise<void> {
      const found = await deps.history.findRun(executionId)
      if (!found) throw notFound('deployment request')
      const scope = { kind: 'environmentId', environmentId: found.environmentId } as const
      await deps.organizations.requireScoped(principal, found.organizationId, scope, 'DEPLOY').catch(asNotFound('deployment request'))
      const outcome = await queues.withEnvironmentLocked(found.environmentId, async (queue) => {
        const stored = (await queue.unfinished()).find((candidate) => candidate.run.id === executionId)
        if (!stored) return new AppError('conflict', 'the deployment request is no longer queued or running')
        return (await cancelOne(queue, stored)) ? undefined : new AppError('conflict', 'the deployment request is already being canceled')
      })
      if (outcome) throw outcome
      deps.onQueued()
    },
  }
}
