import type { DeploymentExecutor } from '#src/modules/executors/executor.ts'
import type { ServiceKinds } from '#src/modules/services/service-kinds.ts'
import type { SpanLog } from '#src/platform/spans.ts'
import type { DeploymentRunsRepository } from './deployment-runs.repository.ts'

// What a deployment runner is handed by the wiring: its repository, executors, kinds, options and log.

export interface RunnerOptions {
  /** How long a claim lasts without renewal; a runner silent for longer is taken for lost. */
  leaseMs: number
  /** How often an idle runner looks for work, and a busy one renews its leases and looks for cancels. */
  pollMs: number
  /** How many runs (of different environments) one runner works on at once. */
  concurrency: number
  /**
   * How many of them one organization's runs may take (default: half, at least one): another
   * organization's run always finds a slot promptly, on every runner sharing the queue.
   */
  slotsPerOrganization?: number
  /** The longest a run may take from its start; it then fails with what was running stopped. Absent: no bound. */
  maxRunMs?: number
  /** How long stopping what runs takes when a run is canceled. */
  cancelMs: number
  /** How long deployment log lines are kept; a runner deletes older ones now and then. */
  logRetentionMs?: number
}

export interface RunnerLog {
  info(fields: object, message: string): void
  warn(fields: object, message: string): void
  /** Debug lines: the time each step of a deployment took (docs/performance.md, "Where a deploy's time goes"). */
  debug?: SpanLog['debug']
  isLevelEnabled?: SpanLog['isLevelEnabled']
}

/** Executors by the name a cluster gives (`clusters.executor`). */
export type Executors = Readonly<Record<string, DeploymentExecutor>>

export interface DeploymentRunnerDeps {
  runs: DeploymentRunsRepository
  /** One executor for every environment, or executors by their clusters' `executor`. */
  executor: DeploymentExecutor | Executors
  options: RunnerOptions
  log: RunnerLog
  /** The kinds whose plans executors follow and whose jobs cron fires: the runner names none itself. */
  kinds: ServiceKinds
  /** The executor the organizations' default clusters deploy with (BERTH_EXECUTOR); SIMULATED by default. */
  defaultExecutor?: string
}
