import { createHash, randomUUID } from 'node:crypto'
import { Transform } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { createGunzip, createGzip } from 'node:zlib'
import type { Db } from '#src/platform/db/database.ts'
import { repeatedFailure } from '#src/platform/repeated-failure.ts'
import type { SecretBox } from '#src/platform/secrets/secret-box.ts'
import { secretMask } from '#src/platform/secrets/secret-masking.ts'
import { loginOf, objectKeyOf, type StoreSettings, storeOf } from './backup-objects.ts'
import { type BackupRunsRepository, createBackupRunsRepository } from './backup-runs.repository.ts'
import type { BackupStore } from './backup-stores.ts'
import type { BackupRow, RestoreRow } from './backups.repository.ts'
import { createDatabaseReach, type DatabaseReachSettings } from './database-reach.ts'
import { ShellCommandFailed } from './database-shell.ts'
import { ENGINE_TOOLS } from './engine-tools.ts'

// The runner of backups and restores, in every process that runs deployments (`berth serve` with
// its runner, `berth worker`): at each poll it ends the jobs whose runner died, queues the backups
// of the schedules due, and claims queued jobs up to its concurrency (docs/backups.md, "How backups
// run"). A backup streams the engine's dump through gzip and a SHA-256 into its store; a restore
// checks the stored object's SHA-256 first, then streams it back into the engine.

export interface BackupWorkerSettings extends DatabaseReachSettings, StoreSettings {
  db: Db
  secrets: SecretBox
  leaseMs: number
  pollMs: number
  /** How many backups and restores one process runs at once. */
  concurrency?: number
  /** The longest a backup or a restore may run. */
  timeoutMs?: number
  log: { info(fields: object, message: string): void; warn(fields: object, message: string): void }
}

export const DEFAULT_BACKUP_TIMEOUT_MS = 6 * 3_600_000
const SCHEDULES_PER_POLL = 20
/** How much of a job's log is kept. */
const MAX_LOG_BYTES = 64 * 1024

/** Counts bytes and hashes them on their way through. */
function measuring() {
  const hash = createHash('sha256')
  let size = 0
  const stream = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk)
      size += chunk.length
      done(null, chunk)
    },
  })
  return { stream, size: () => size, sha256: () => hash.digest('hex') }
}

/** Waits for every step; on the first failure, `stop` is called so that the others end too; rethrows that first failure. */
async function allOrFirstFailure(steps: Promise<unknown>[], stop: (error: unknown) => void): Promise<void> {
  let first: { error: unknown } | undefined
  await Promise.allSettled(
    steps.map((step) =>
      step.catch((error) => {
        if (!first) {
          first = { error }
          stop(error)
        }
      }),
    ),
  )
  if (first) throw first.error
}

/** The SHA-256 of what a store holds under `key`, read as a stream. */
async function storedSha256(store: BackupStore, key: string, signal: AbortSignal): Promise<string> {
  const meter = measuring()
  await pipeline(await store.get(key, signal), meter.stream, async (source) => {
    for await (const _ of source) {
      // Read to the end: the hash is made on the way.
    }
  })
  return meter.sha256()
}

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

  async function destinationOf(organizationId: string, destinationId: string | null) {
    const destination = destinationId ? await runs.findDestination(organizationId, destinationId) : undefined
    if (destinationId && !destination) throw new Error('the backup destination is gone')
    return storeOf(settings, destination)
  }

  /** Why a job failed, in the tool's or the store's words. */
  const reasonOf = (error: unknown, signal: AbortSignal): string => {
    if (signal.aborted) return `stopped: ${(signal.reason as Error)?.message ?? 'aborted'}`
    if (error instanceof ShellCommandFailed) return error.message
    return (error as Error)?.message ?? String(error)
  }

  async function runBackup(row: BackupRow): Promise<void> {
    const job = hold('databaseBackups', row.id)
    let store: BackupStore | undefined
    try {
      const service = await runs.findService(row.serviceId)
      if (!service) throw new Error('the database is gone')
      const login = loginOf(service.configuration, settings.secrets)
      const destination = await destinationOf(row.organizationId, row.destinationId)
      job.masked([login.password, ...destination.secrets])
      store = destination.store
      const shell = await reach.shellOf(service, await runs.clusterOf(service.environmentId))
      const tools = ENGINE_TOOLS[login.type]
      job.log(`backing up ${service.name} (${login.type}) to ${store.describe(row.objectKey)}`)
      const dump = await tools.dump(shell, login, job.log, job.signal)
      const meter = measuring()
      const compressed = pipeline(dump.stdout, createGzip(), meter.stream)
      const stored = store.put(row.objectKey, meter.stream, job.signal)
      const stop = (error: unknown) => {
        dump.stdout.destroy(error as Error)
        meter.stream.destroy(error as Error)
      }
      await allOrFirstFailure([stored, compressed, dump.finished], stop)
      const outcome = await dump.finished
      if (outcome.exitCode !== 0) throw new ShellCommandFailed(dumpProgram(login.type), outcome)
      const sha256 = meter.sha256()
      job.log(`done: ${meter.size()} bytes (gzip), SHA-256 ${sha256}`)
      await job.end({ status: 'DONE', sizeBytes: meter.size(), sha256 })
      if (row.origin === 'SCHEDULED') await prune(row)
    } catch (error) {
      const reason = reasonOf(error, job.signal)
      job.log(`failed: ${reason}`)
      // Nothing half-written is left behind.
      await store?.delete(row.objectKey).catch(() => undefined)
      await job.end({ status: 'ERROR', error: reason })
      settings.log.warn({ backupId: row.id, serviceId: row.serviceId, reason: job.mask(reason) }, 'a database backup failed')
    }
  }

  /** After a scheduled backup succeeded: the older scheduled ones its retention no longer keeps go, objects first. */
  async function prune(row: BackupRow): Promise<void> {
    const schedule = await runs.findSchedule(row.serviceId)
    if (!schedule || (schedule.keepCount === null && schedule.keepDays === null)) return
    for (const old of await runs.prunable(row.serviceId, row.id, schedule.keepCount, schedule.keepDays)) {
      try {
        const { store } = await destinationOf(old.organizationId, old.destinationId)
        await store.delete(old.objectKey)
        await runs.deleteBackupRow(old.id)
      } catch (error) {
        settings.log.warn({ backupId: old.id, err: error }, 'could not prune an old scheduled backup; the next success tries again')
      }
    }
  }

  async function runRestore(row: RestoreRow): Promise<void> {
    const job = hold('databaseRestores', row.id)
    try {
      const backup = row.backupId ? await runs.findBackup(row.backupId) : undefined
      if (backup?.status !== 'DONE' || !backup.sha256) throw new Error('the backup is gone, or did not end DONE')
      const target = await runs.findService(row.serviceId)
      if (!target) throw new Error('the database is gone')
      const login = loginOf(target.configuration, settings.secrets)
      const { store, secrets } = await destinationOf(backup.organizationId, backup.destinationId)
      job.masked([login.password, ...secrets])
      if (await runs.deploymentRunning(target.id)) throw new Error('a deployment of the database is queued or running: nothing was restored')
      const shell = await reach.shellOf(target, await runs.clusterOf(target.environmentId))
      job.log(`checking the SHA-256 of ${store.describe(backup.objectKey)} before anything is touched`)
      const found = await storedSha256(store, backup.objectKey, job.signal)
      if (found !== backup.sha256) {
        throw new Error(`checksum mismatch: the stored object's SHA-256 is ${found}, the backup recorded ${backup.sha256}; nothing was restored`)
      }
      job.log(`checksum verified; restoring "${backup.name}" into ${target.name}`)
      const meter = measuring()
      const gunzip = createGunzip()
      const read = pipeline(await store.get(backup.objectKey, job.signal), meter.stream, gunzip)
      const restored = ENGINE_TOOLS[login.type].restore(shell, login, gunzip, job.log, job.signal)
      await allOrFirstFailure([read, restored], (error) => gunzip.destroy(error as Error))
      if (meter.sha256() !== backup.sha256) throw new Error('the object changed while it was read back (its SHA-256 differs now)')
      job.log('done')
      await job.end({ status: 'DONE' })
    } catch (error) {
      const reason = reasonOf(error, job.signal)
      job.log(`failed: ${reason}`)
      await job.end({ status: 'ERROR', error: reason })
      settings.log.warn({ restoreId: row.id, serviceId: row.serviceId, reason: job.mask(reason) }, 'a database restore failed')
    }
  }

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

const dumpProgram = (type: string) => ({ POSTGRESQL: 'pg_dump', MYSQL: 'mysqldump', MONGODB: 'mongodump', REDIS: 'redis-cli' })[type] ?? 'the dump'
