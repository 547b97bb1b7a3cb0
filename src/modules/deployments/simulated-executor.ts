import { setTimeout as sleep } from 'node:timers/promises'
import { SIMULATE_FAILURE_KEY } from './deployment-plan.ts'
import type { ServiceProgress } from './deployment-progress.ts'
import type { RunnableTrigger } from './deployment-states.ts'

export type ServiceOutcome = { ok: true } | { ok: false; message: string }

/** Does the work of one service in a deployment. Berth ships the simulated one; a real one would talk to a cluster. */
export interface DeploymentExecutor {
  /** Does `action` to the service; rejects once `signal` aborts (a cancel, a runner stopping). */
  run(service: ServiceProgress, action: RunnableTrigger, signal: AbortSignal): Promise<ServiceOutcome>
}

/**
 * Simulates services without a cluster: each takes `stepMs` (BERTH_SIMULATED_STEP_MS) and
 * succeeds, unless its configuration asks for a failure (the values override SIMULATE_FAILURE_KEY).
 */
export function createSimulatedExecutor({ stepMs }: { stepMs: number }): DeploymentExecutor {
  return {
    async run(service, action, signal) {
      await sleep(stepMs, undefined, { signal })
      if (!service.simulateFailure) return { ok: true }
      return { ok: false, message: `simulated ${action.toLowerCase()} failure (values override ${SIMULATE_FAILURE_KEY})` }
    },
  }
}
