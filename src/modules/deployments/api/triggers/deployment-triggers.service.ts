import { createAutomaticTriggers } from './automatic-triggers.ts'
import { createDeploymentCancels } from './deployment-cancels.ts'
import { createEnvironmentTriggers } from './environment-triggers.ts'
import { createProjectTriggers } from './project-triggers.ts'
import { createRunEnqueueing } from './run-enqueueing.ts'
import { createSelectionTriggers } from './selection-triggers.ts'
import { createServiceTriggers } from './service-triggers.ts'
import { createStatusReads } from './status-reads.ts'
import type { DeploymentTriggersDeps } from './trigger-deps.ts'

// The deployment triggers, the module's one service object: what queues a deployment of an
// environment, of one service or of a selection, what deletes a project through its environments,
// what cancels, and what reads statuses and queues.
// Each part lives in its own file; every trigger queues through run-enqueueing.ts. Nothing here
// names a kind: a service's kind plans its part through the registry.

export type { DeploymentTriggersDeps, Selected, SelectionItem } from './trigger-deps.ts'

export function createDeploymentTriggersService(deps: DeploymentTriggersDeps) {
  const enqueueing = createRunEnqueueing(deps)
  const environmentTriggers = createEnvironmentTriggers(deps, enqueueing)
  return {
    ...environmentTriggers,
    ...createProjectTriggers(deps, environmentTriggers),
    ...createServiceTriggers(deps, enqueueing),
    ...createSelectionTriggers(deps, enqueueing),
    ...createAutomaticTriggers(deps, enqueueing),
    ...createDeploymentCancels(deps),
    ...createStatusReads(deps),
  }
}

/** What the deployment triggers' dependants receive; each member is declared in the part that does it. */
export type DeploymentTriggers = ReturnType<typeof createDeploymentTriggersService>
