import { setTimeout as sleep } from 'node:timers/promises'

export const GRACE_EXCEEDED = Symbol('grace exceeded')

/** Resolves to GRACE_EXCEEDED once BERTH_SHUTDOWN_GRACE_MS is over; it does not keep the process alive. */
export const graceTimer = (graceMs: number): Promise<typeof GRACE_EXCEEDED> => sleep(graceMs, GRACE_EXCEEDED, { ref: false })

/**
 * Waits for a runner's hand-back until the grace period is over: a cancel winding down, or a
 * database that does not answer, must not hold the exit. What it still holds then is another
 * runner's once its lease expires. True when it stopped in time.
 */
export async function runnerStoppedInTime(
  stopped: Promise<void>,
  graceOver: Promise<typeof GRACE_EXCEEDED>,
  graceMs: number,
  logger: { warn(fields: object, message: string): void },
): Promise<boolean> {
  if ((await Promise.race([stopped, graceOver])) !== GRACE_EXCEEDED) return true
  logger.warn({ graceMs }, 'deployments still winding down after the grace period; leaving them to their leases')
  return false
}
