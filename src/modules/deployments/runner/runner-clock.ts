import type { DeploymentRunsRepository } from './deployment-runs.repository.ts'

// The clock a runner stamps steps with: the local one, corrected when it is far from the
// database's (which stamps creation times). Stamps never go back.

/**
 * How far this host's clock may drift from the database's before steps are stamped with a
 * correction. Below it, the local clock is closer than an estimate made over a round trip.
 */
const CLOCK_TOLERANCE_MS = 1_000
/** How often the offset is measured again, and the longest round trip a measurement may take. */
const CLOCK_CHECK_MS = 60_000
const CLOCK_MAX_ROUND_TRIP_MS = 100

export type RunnerClock = ReturnType<typeof createRunnerClock>

export function createRunnerClock(runs: Pick<DeploymentRunsRepository, 'clockOffset'>) {
  let clockOffsetMs = 0
  let clockCheckedAt = Number.NEGATIVE_INFINITY
  let lastStampMs = 0

  return {
    /** A step's stamp, as an ISO date. */
    now(): string {
      lastStampMs = Math.max(lastStampMs, Date.now() + clockOffsetMs)
      return new Date(lastStampMs).toISOString()
    },
    /** The database's time now, in milliseconds, as this host estimates it. */
    nowMs(): number {
      return Date.now() + clockOffsetMs
    },
    /** Measures the offset again when the last measure is old. */
    async check(): Promise<void> {
      if (Date.now() - clockCheckedAt < CLOCK_CHECK_MS) return
      const offset = await runs.clockOffset(CLOCK_MAX_ROUND_TRIP_MS)
      if (offset === undefined) return // a slow answer: try again next time
      clockCheckedAt = Date.now()
      clockOffsetMs = Math.abs(offset) > CLOCK_TOLERANCE_MS ? offset : 0
    },
  }
}
