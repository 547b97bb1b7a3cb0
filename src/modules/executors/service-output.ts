// What a service's running instances print, as an executor that really runs them keeps it
// (docs/service-logs.md): the port the service logs routes read, so that they never talk to an
// engine themselves. The simulator has none: its services print nothing.

/** One line an instance printed, as the engine timed it. */
export interface OutputLine {
  /** The instance's own id in the engine (12 hex digits of a container's id): what a follower's position is kept by. */
  source: string
  /** Which instance printed it (`0`, `1`, … ; `run-1`, … for a job's runs). */
  instance: string
  /** The engine's name of the instance (a container's name). */
  instanceName: string
  /** The deployment (execution id) that started the instance: whose variables mask the line. */
  executionId: string
  /** Null where the engine keeps them merged (the kubelet's pod logs). */
  stream: 'stdout' | 'stderr' | null
  /** When it was printed: the engine's RFC 3339 timestamp, to the nanosecond. */
  timestamp: string
  message: string
}

/**
 * Where a follower is: by source, the timestamp of the last line it was given; `since`, the time
 * it started following (a source it has no position for is read from after it).
 */
export interface OutputCursor {
  since: string
  positions: Record<string, string>
}

/** The service whose output is asked for. */
export interface OutputService {
  id: string
  environmentId: string
  /**
   * A helm service's own chart as its last deploy installed it: the service's name then (which
   * names the release) and that deployment, whose secrets mask its pods' lines. Its pods carry the
   * chart's labels, not Berth's.
   */
  release?: { serviceName: string; executionId: string }
}

export interface ServiceOutput {
  /** Whether the environment's services run in this engine (a job's runs logged by its deployments are read then). */
  runsHere(environmentId: string): Promise<boolean>
  /**
   * Whether a job's finished runs can still be read from this engine for the environment (a
   * Kubernetes Job's pods stay once complete); when not, they are read from the deployments' logs.
   */
  keepsJobRuns?(environmentId: string): Promise<boolean>
  /**
   * The last `count` lines of the service's instances, oldest first; undefined when its
   * environment does not run in this engine.
   */
  last(service: OutputService, count: number): Promise<OutputLine[] | undefined>
  /**
   * The lines of the service's instances as they are printed: the last `count` first when there
   * is no cursor, else those after it. Ends once no instance runs (and every line was given) and
   * `deploying` says no deployment may start one, or when `signal` aborts; undefined when the
   * environment does not run in this engine.
   */
  follow(
    service: OutputService,
    from: { cursor: OutputCursor } | { last: number },
    signal: AbortSignal,
    deploying: () => Promise<boolean>,
  ): Promise<AsyncIterable<OutputLine> | undefined>
}
