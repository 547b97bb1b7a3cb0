import { randomUUID } from 'node:crypto'
import { repeatedFailure } from '#src/platform/repeated-failure.ts'
import { createJobHolding } from './backup-job-hold.ts'
import { createBackupJobs } from './backup-jobs.ts'
import { objectKeyOf } from './backup-objects.ts'
import { type BackupRunsRepository, createBackupRunsRepository } from './backup-runs.repository.ts'
import type { BackupWorkerSettings } from './backup-worker-settings.ts'
import { createDatabaseReach } from './database-reach.ts'

// The runner of backups and restores, in every process that runs deployments (`berth serve` with
// its runner, `berth worker`): at each poll it ends the jobs whose runner died, queues the backups
// of the schedules due, and claims queued jobs up to its concurrency (docs/backups.md, "How backups
// run"). A backup streams the engine's dump through gzip and a SHA-256 into its store; a restore
// checks the stored object's SHA-256 first, then streams it back into the engine.

export type { BackupWorkerSettings } from './backup-worker-settings.ts'

export const DEFAULT_BACKUP_TIMEOUT_MS = 6 * 3_600_000
const SCHEDULES_PER_POLL = 20

export function createBackupWorker(settings: BackupWorkerSettings) {
  const runs: BackupRunsRepository = createBackupRunsRepository(settings.db)
  const reach = createDatabaseReach(settings)
  const owner = `backups-${randomUUID()}`
  const concurrency = settings.concurrency ?? 2
  const timeoutMs = settings.timeoutMs ?? DEFAULT_BACKUP_TIMEOUT_MS
  const running = new Map<string, Promise<void>>()
  const controllers = new Set<AbortController>()
  let timer: NodeJS.Timeout | undefined
  let stopped = true
  let polling: Promise<void> | undefined
  const hold = createJobHolding({ runs, settings, owner, timeoutMs, controllers })
  const { runBackup, runRestore } = createBackupJobs({ settings, runs, reach, hold })

  function track(id: string, work: Promise<void>) {
    const done = work
      .catch((error) => settings.log.warn({ err: error, id }, 'a backup job could not be recorded'))
      .finally(() => {
        running.delete(id)
        if (!stopped) wake()
      })
    running.set(id, done)
  }

  async function poll(): Promise<void> {
    await runs.endAbandoned('databaseBackups')
    await runs.endAbandoned('databaseRestores')
    await runs.fireDueSchedules(SCHEDULES_PER_POLL, objectKeyOf)
    while (!stopped && running.size < concurrency) {
      const restore = await runs.claimRestore(owner, settings.leaseMs)
      if (restore) {
        track(restore.id, runRestore(restore))
        continue
      }
      const backup = await runs.claimBackup(owner, settings.leaseMs)
      if (!backup) break
      track(backup.id, runBackup(backup))
    }
  }

  const polls = repeatedFailure((error) => settings.log.warn({ err: error }, 'the backup runner could not poll; will retry'))
  function schedule(delayMs: number) {
    if (stopped) return
    clearTimeout(timer)
    timer = setTimeout(() => {
      polling ??= poll()
        .then(polls.succeeded, polls.failed)
        .finally(() => {
          polling = undefined
          schedule(settings.pollMs)
        })
    }, delayMs)
  }

  function wake() {
    if (!polling) schedule(0)
  }

  return {
    owner,
    start() {
      if (!stopped) return
      stopped = false
      schedule(0)
    },
    /** Told when a job was queued in this process: it may start at once. */
    wake,
    /** Stops claiming; the jobs under way are stopped and end ERROR (a dump cannot be handed back half-way). */
    async stop(): Promise<void> {
      stopped = true
      clearTimeout(timer)
      await polling
      for (const controller of controllers) controller.abort(new Error('the Berth process running it is stopping'))
      await Promise.all(running.values())
    },
  }
}

export type BackupWorker = ReturnType<typeof createBackupWorker>
