// Undo steps (stop a process, drop the database), run once in reverse order: at the end, on failure, or on Ctrl-C.

export interface Cleanup {
  push(what: string, step: () => Promise<unknown> | unknown): void
  /** Runs every step, newest first; a failing step is reported and the others still run. */
  run(): Promise<void>
}

export function createCleanup(report: (message: string) => void): Cleanup {
  const steps: { what: string; step: () => Promise<unknown> | unknown }[] = []
  let running: Promise<void> | undefined
  return {
    push: (what, step) => steps.push({ what, step }),
    run() {
      running ??= (async () => {
        for (let next = steps.pop(); next; next = steps.pop()) {
          try {
            await next.step()
          } catch (error) {
            report(`cleanup: could not ${next.what}: ${error instanceof Error ? error.message : String(error)}`)
          }
        }
      })()
      return running
    },
  }
}
