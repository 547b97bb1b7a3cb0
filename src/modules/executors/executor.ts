import type { RunnableTrigger } from '#src/modules/deployments/deployment-states.ts'
import type { ServiceProgress } from '#src/modules/deployments/queue/deployment-progress.ts'
import type { PlannedStep, ServiceSnapshot } from '#src/modules/services/service-kinds.ts'

// Where deployments really happen (docs/architecture.md): an executor does one service's part of a deployment,
// reports what it does as log lines, and stops when told to. The runner chooses one per
// environment, by its cluster's `executor`.

/**
 * How a service's part ended. `details`, when given, is merged into its history entry's `details`
 * (what only the run knows, such as the commit a chart was fetched at).
 */
export type ServiceOutcome = ({ ok: true } | { ok: false; message: string }) & {
  details?: Record<string, unknown>
  /** What the run leaves for the service's own routes (an IAC apply's resources): kept, replacing the last, until a later run leaves one. */
  output?: Record<string, unknown>
}

/** What an executor is given besides the service's progress. */
export interface ExecutionContext {
  /** The service as the deployment deploys it, fixed at the trigger. */
  snapshot: ServiceSnapshot | undefined
  /** What its kind says the action takes, step by step. */
  plan: PlannedStep[]
  /** The deployment this is part of: what the objects an executor makes are labelled with. */
  run?: { id: string; organizationId: string; environmentId: string }
  /** Reports a line of a step (`at`: when it was printed, if not now); never give it a secret value. */
  log(step: string, message: string, level?: 'INFO' | 'WARNING' | 'ERROR', at?: Date): void
}

export interface DeploymentExecutor {
  /** Does `action` to the service; rejects once `signal` aborts (a cancel, a runner stopping). */
  run(service: ServiceProgress, action: RunnableTrigger, signal: AbortSignal, context: ExecutionContext): Promise<ServiceOutcome>
  /**
   * Tidies what a run whose runner was lost left half-made (the next runner calls it once it ended
   * the run as interrupted); says what it did. Executors that make nothing lasting have none.
   */
  abandoned?(run: { id: string; environmentId: string }, say: (message: string) => void): Promise<void>
}
