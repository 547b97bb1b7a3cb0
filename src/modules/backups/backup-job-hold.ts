// A claimed backup or restore held while it runs: its lease renewed, its log written with each renewal, aborted when lost or too long.
import { secretMask } from '#src/platform/secrets/secret-masking.ts'
import type { BackupRunsRepository } from './backup-runs.repository.ts'
import type { BackupWorkerSettings } from './backup-worker-settings.ts'

/** How much of a job's log is kept. */
const MAX_LOG_BYTES = 64 * 1024

export interface JobHoldingDeps {
  runs: BackupRunsRepository
  settings: Pick<BackupWorkerSettings, 'leaseMs' | 'log'>
  /** The worker's name on the leases it holds. */
  owner: string
  timeoutMs: number
  /** The controllers of the jobs under way, which the worker aborts when it stops. */
  controllers: Set<AbortController>
}

export function createJobHolding({ runs, settings, owner, timeoutMs, controllers }: JobHoldingDeps) {
  /** Holds a job: its lease renewed, its log written with each renewal, an abort when it is lost or too long. */
  function hold(table: 'databaseBackups' | 'databaseRestores', id: string) {
    const controller = new AbortController()
    controllers.add(controller)
    const timeout = setTimeout(() => controller.abort(new Error(`timed out after ${Math.round(timeoutMs / 1000)} s`)), timeoutMs)
    let pending = ''
    let logged = 0
    let mask = (text: string) => text
    // One write of the log at a time, in order: the last lines are written before the job ends.
    let writes: Promise<void> = Promise.resolve()
    const flush = () => {
      writes = writes
        .then(async () => {
          if (!pending) return
          const lines = pending
          pending = ''
          await runs.appendLog(table, id, owner, lines)
        })
        .catch((error) => settings.log.warn({ err: error, id }, 'could not write a backup job’s log; will retry'))
      return writes
    }
    const renewal = setInterval(
      () => {
        void (async () => {
          if (!(await runs.renew(table, id, owner, settings.leaseMs)))
            controller.abort(new Error('the job was taken from this runner (its lease ran out)'))
          await flush()
        })().catch((error) => settings.log.warn({ err: error, id }, 'could not renew a backup job; will retry'))
      },
      Math.max(50, Math.floor(settings.leaseMs / 3)),
    )
    return {
      signal: controller.signal,
      controller,
      masked: (secrets: string[]) => {
        mask = secretMask(secrets)
      },
      mask: (text: string) => mask(text),
      log(line: string) {
        const text = `${new Date().toISOString()} ${mask(line)}\n`
        if (logged + text.length > MAX_LOG_BYTES) return
        logged += text.length
        pending += text
      },
      async end(outcome: Parameters<BackupRunsRepository['finish']>[3]) {
        clearInterval(renewal)
        clearTimeout(timeout)
        controllers.delete(controller)
        await flush()
        const error = outcome.error === undefined ? undefined : mask(outcome.error)
        await runs.finish(table, id, owner, { ...outcome, ...(error === undefined ? {} : { error }) })
      },
    }
  }

  return hold
}

export type HeldJob = ReturnType<ReturnType<typeof createJobHolding>>
