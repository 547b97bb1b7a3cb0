// What an executor that really runs services knows of them now (docs/docker.md, "Deploying with Docker"):
// where their running instances are reached, and whether they still run as their last deployment
// left them. Links and statuses ask this port; the simulator has none, and what they answer for
// its environments stays what the records say.

/** A published port of a running instance: `host:hostPort` reaches its `internalPort`. */
export interface ServiceAddress {
  internalPort: number
  protocol: 'TCP' | 'UDP'
  host: string
  hostPort: number
}

/**
 * What the engine says of a service its last deployment left running: STOPPED when no instance
 * runs (they exited, were killed or were removed outside Berth), UNAVAILABLE when some do and
 * some do not. `message` says which, for the logs of the process.
 */
export interface LiveState {
  state: 'STOPPED' | 'UNAVAILABLE'
  message: string
}

export interface ServiceRuntime {
  /**
   * The addresses the service's running instances are reached at; undefined when its environment
   * does not run in a real engine (or the engine did not answer in time).
   */
  addresses(service: { id: string; environmentId: string }): Promise<ServiceAddress[] | undefined>
  /**
   * What the engine says of these long-running services of one environment (containers,
   * applications, databases), by id; a service absent from the answer runs as recorded. Empty
   * when the environment does not run in a real engine or the engine did not answer in time.
   */
  liveStates(environmentId: string, serviceIds: string[]): Promise<Map<string, LiveState>>
  /**
   * Removes what the job's failed runs left for inspection (on Docker: its stopped run containers):
   * the names of what was removed; undefined when its environment does not run in a real engine.
   */
  cleanFailedRuns?(service: { id: string; environmentId: string }): Promise<string[] | undefined>
}
