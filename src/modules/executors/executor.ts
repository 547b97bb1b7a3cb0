// Where deployments really happen (docs/executors.md): an executor does one service's part of a
// deployment, reports what it does as log lines, and stops when told to. The runner chooses one per
// environment, by its cluster's `executor`. What an executor takes is said here:
// it imports nothing of the runner, the queue or the kinds.

import type { SnapshotVariable as SnapshotRecordVariable } from '#src/platform/snapshot-variable.ts'

/** What a deployment does to a service. */
export type ExecutorAction = 'DEPLOY' | 'DEPLOY_DRY_RUN' | 'RESTART' | 'STOP' | 'UNINSTALL' | 'DELETE'

/** A variable as a deployment's snapshot keeps it, secrets still sealed: what an executor delivers of it. */
export type SnapshotVariable = Pick<SnapshotRecordVariable, 'key' | 'value' | 'sealed' | 'isSecret' | 'mountPath'>

/** A service as a deployment deploys it: fixed at the trigger, whatever is edited after. */
export interface ServiceSnapshot<Config = unknown, Kind extends string = string, Variable extends SnapshotVariable = SnapshotVariable> {
  serviceId: string
  kind: Kind
  name: string
  version: number
  configuration: Config
  /** What the trigger asked for beyond the configuration (a chart version, a commit). */
  overrides: Record<string, unknown>
  /** The variables it deploys with, resolved as of the trigger; secrets still sealed. */
  variables: Variable[]
  /** Names the variable rows they came from (berth_service_variables_fingerprint). */
  variablesFingerprint: string
  /** Every advanced setting of the service as of the trigger (keys as on the wire); {} for a kind without them. */
  advancedSettings: Record<string, unknown>
  /** The labels of its labels groups as of the trigger (groupLabels); absent in runs queued before Berth kept them. */
  labels?: Record<string, string>
}

/** A step of what an executor does to a service, with the lines it reports. */
export interface PlannedStep {
  step: string
  lines: string[]
  /** Why the service cannot be deployed, found while planning: the executor reports the lines, then fails with this. */
  failure?: string
}

/**
 * How a service's part ended. `details`, when given, is merged into its history entry's `details`
 * (what only the run knows, such as the commit a chart was fetched at).
 */
export type ServiceOutcome = ({ ok: true } | { ok: false; message: string }) & {
  details?: Record<string, unknown>
  /** What the run leaves for the service's own routes (an IAC apply's resources): kept, replacing the last, until a later run leaves one. */
  output?: Record<string, unknown>
}

/** The service an executor acts on. */
export interface ExecutedService {
  id: string
  /** Set at trigger time from its configuration: the simulated executor fails it. */
  simulateFailure: boolean
}

/** What an executor is given besides the service. */
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
  run(service: ExecutedService, action: ExecutorAction, signal: AbortSignal, context: ExecutionContext): Promise<ServiceOutcome>
  /**
   * Tidies what a run whose runner was lost left half-made (the next runner calls it once it ended
   * the run as interrupted); says what it did. Executors that make nothing lasting have none.
   */
  abandoned?(run: { id: string; environmentId: string }, say: (message: string) => void): Promise<void>
}
