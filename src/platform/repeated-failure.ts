/**
 * Says a repeated task's failure once, until the task succeeds again: a database outage fails
 * every poll until it ends, and one line says so better than one per retry.
 */
export function repeatedFailure(warn: (error: unknown) => void) {
  let failing = false
  return {
    failed(error: unknown): void {
      if (!failing) warn(error)
      failing = true
    },
    succeeded(): void {
      failing = false
    },
  }
}
