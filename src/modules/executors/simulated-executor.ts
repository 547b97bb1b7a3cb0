import { setTimeout as sleep } from 'node:timers/promises'
import type { DeploymentExecutor } from './executor.ts'

/**
 * Simulates services without a cluster: each takes `stepMs` (BERTH_SIMULATED_STEP_MS), spread
 * over the steps its kind plans, writing what a real executor would do, and succeeds unless its
 * configuration asks for a failure (docs/deployments.md, "Simulated deployments").
 */
export function createSimulatedExecutor({ stepMs }: { stepMs: number }): DeploymentExecutor {
  return {
    async run(service, action, signal, context) {
      const plan = context?.plan ?? []
      const pause = stepMs / Math.max(plan.length, 1)
      for (const { step, lines, failure } of plan) {
        for (const line of lines) context.log(step, `[simulated] ${line}`)
        await sleep(pause, undefined, { signal })
        if (failure) return { ok: false, message: failure }
      }
      if (plan.length === 0) await sleep(stepMs, undefined, { signal })
      if (!service.simulateFailure) return { ok: true }
      return { ok: false, message: `simulated ${action.toLowerCase()} failure (values override berth.simulate.fail)` }
    },
  }
}
