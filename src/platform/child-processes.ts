import type { ChildProcess } from 'node:child_process'

// What the programs `berth serve` runs and keeps running (Caddy, Prometheus, Alertmanager) share:
// watching one start or fail to, stopping it without cutting its writes short, and not leaving
// one running when its first start fails.

/** How one spawn ends: `exited` settles when it exits or could not be run; `spawnError()` says why it could not. */
export function watchExit(child: ChildProcess): { exited: Promise<void>; spawnError(): Error | undefined } {
  let spawnError: Error | undefined
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => resolve())
    child.once('error', (error) => {
      spawnError = error
      resolve()
    })
  })
  return { exited, spawnError: () => spawnError }
}

/**
 * Stops a running child with SIGTERM, and with SIGKILL only when it has not exited after
 * `timeoutMs` (`beforeKill` is told first); resolves once it has exited.
 */
export async function terminate(child: ChildProcess | undefined, timeoutMs: number, beforeKill?: () => void): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  child.kill('SIGTERM')
  const timer = setTimeout(() => {
    beforeKill?.()
    child.kill('SIGKILL')
  }, timeoutMs)
  await exited
  clearTimeout(timer)
}

/** Runs the first start; when it fails, stops what it left (files, a half-started child) and rethrows. */
export async function startOrStop(start: () => Promise<void>, stop: () => Promise<void>): Promise<{ stop(): Promise<void> }> {
  try {
    await start()
  } catch (error) {
    await stop()
    throw error
  }
  return { stop }
}
