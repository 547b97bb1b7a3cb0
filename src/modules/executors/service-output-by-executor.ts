import type { ServiceOutput } from './service-output.ts'

// The service logs' one ServiceOutput when services may run in more than one engine: each
// environment's question goes to the output of its cluster's executor (DOCKER, KUBERNETES), a
// default cluster's to the runners' default executor's; an executor without one (SIMULATED) runs
// nothing that prints.

export function serviceOutputByExecutor(
  /** The executor of the environment's cluster; undefined for a default cluster's. */
  executorOf: (environmentId: string) => Promise<string | undefined>,
  defaultExecutor: string,
  outputs: Partial<Record<string, ServiceOutput>>,
): ServiceOutput {
  const outputOf = async (environmentId: string) => outputs[(await executorOf(environmentId)) ?? defaultExecutor]
  return {
    async runsHere(environmentId) {
      return (await (await outputOf(environmentId))?.runsHere(environmentId)) ?? false
    },
    async keepsJobRuns(environmentId) {
      return (await (await outputOf(environmentId))?.keepsJobRuns?.(environmentId)) ?? false
    },
    async last(service, count) {
      return (await outputOf(service.environmentId))?.last(service, count)
    },
    async follow(service, from, signal, deploying) {
      return (await outputOf(service.environmentId))?.follow(service, from, signal, deploying)
    },
  }
}
