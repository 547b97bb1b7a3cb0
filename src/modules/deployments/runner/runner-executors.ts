import type { DeploymentExecutor } from '#src/modules/executors/executor.ts'
import type { DeploymentRunnerDeps, Executors } from './runner-deps.ts'

// Which executor runs an environment's deployments: the runner's only one, or its cluster's.

export type RunnerExecutors = ReturnType<typeof createRunnerExecutors>

export function createRunnerExecutors(deps: Pick<DeploymentRunnerDeps, 'runs' | 'executor' | 'defaultExecutor'>) {
  const fixedExecutor = typeof deps.executor.run === 'function' ? (deps.executor as DeploymentExecutor) : undefined
  const executors = (fixedExecutor ? {} : deps.executor) as Executors

  return {
    /** The executor of the run's environment, by its cluster; the one given when the runner has one. Else why none runs it. */
    async executorFor(environmentId: string): Promise<DeploymentExecutor | string> {
      if (fixedExecutor) return fixedExecutor
      const name = (await deps.runs.executorOf(environmentId)) ?? deps.defaultExecutor ?? 'SIMULATED'
      return executors[name] ?? `no ${name} executor runs in this Berth process`
    },
  }
}
