// What one claimed job does: a backup streams the engine's dump through gzip into its store; a restore checks the object's SHA-256, then streams it back.
import { pipeline } from 'node:stream/promises'
import { createGunzip, createGzip } from 'node:zlib'
import type { createJobHolding } from './backup-job-hold.ts'
import { loginOf, storeOf } from './backup-objects.ts'
import type { BackupRunsRepository } from './backup-runs.repository.ts'
import type { BackupStore } from './backup-stores.ts'
import { allOrFirstFailure, measuring, storedSha256 } from './backup-streams.ts'
import type { BackupWorkerSettings } from './backup-worker-settings.ts'
import type { BackupRow, RestoreRow } from './backups.repository.ts'
import type { createDatabaseReach } from './database-reach.ts'
import { ShellCommandFailed } from './database-shell.ts'
import { ENGINE_TOOLS } from './engine-tools.ts'

export interface BackupJobsDeps {
  settings: BackupWorkerSettings
  runs: BackupRunsRepository
  reach: ReturnType<typeof createDatabaseReach>
  hold: ReturnType<typeof createJobHolding>
}

export function createBackupJobs({ settings, runs, reach, hold }: BackupJobsDeps) {
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

  return { runBackup, runRestore }
}

const dumpProgram = (type: string) => ({ POSTGRESQL: 'pg_dump', MYSQL: 'mysqldump', MONGODB: 'mongodump', REDIS: 'redis-cli' })[type] ?? 'the dump'
