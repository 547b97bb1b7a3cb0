import type { DatabaseConfig } from '#src/modules/services/kinds/database/database.types.ts'
import { cronExpressionProblem, DEFAULT_TIMEZONE, nextFireAfter, timezoneProblem } from '#src/modules/services/kinds/job/cron-expressions.ts'
import type { RequireService } from '#src/modules/services/require-service.ts'
import type { ServiceRecord } from '#src/modules/services/service-kinds.ts'
import type { Principal } from '#src/platform/auth/principal.ts'
import type { Role } from '#src/platform/auth/roles.ts'
import { AppError, type FieldError, notFound, validationFailed } from '#src/platform/http/errors.ts'
import { secretMask } from '#src/platform/secrets/secret-masking.ts'
import { objectKeyOf, type StoreSettings, storeOf } from './backup-objects.ts'
import type { BackupRow, BackupsRepository, RestoreRow, ScheduleRow } from './backups.repository.ts'
import { executorOf, SIMULATED_DATABASE } from './database-reach.ts'

// The rules of backups (docs/backups.md): who may take, list, delete and restore them, which
// databases can be dumped at all, where each goes, and each database's schedule. The work itself
// is the backup runner's (backup-worker.ts); a request only queues it.

interface Deps {
  repo: BackupsRepository
  /** The services core's access check: the service, when the principal holds `needed` on its environment (404 otherwise). */
  requireService: RequireService
  actorName(principal: Principal): Promise<string>
  /** BERTH_EXECUTOR: what default clusters run with. */
  defaultExecutor: 'SIMULATED' | 'DOCKER'
  /** To delete a backup's object. */
  stores: StoreSettings
  /** Told when a backup or a restore was queued: a runner in this process may start it at once. */
  onQueued?: () => void
}

export const DEFAULT_PAGE_SIZE = 20

export interface BackupInput {
  name: string
  message: string
  destinationId: string | null
}

export interface ScheduleInput {
  cron: string
  timezone: string | undefined
  destinationId: string | null
  keepCount: number | null
  keepDays: number | null
}

export function createBackupsService(deps: Deps) {
  const { repo } = deps

  async function database(principal: Principal, databaseId: string, needed: Role) {
    const { service } = await deps.requireService(principal, databaseId, needed, 'DATABASE')
    return service as ServiceRecord<DatabaseConfig>
  }

  /** A 400 at `field` (the route's database by default) unless the database runs in a container Berth can reach. */
  async function requireDumpable(service: ServiceRecord<DatabaseConfig>, field: FieldError = { path: '/databaseId', message: '', location: 'path' }) {
    const refuse = (message: string) => validationFailed([{ ...field, message }])
    if (service.configuration.mode !== 'CONTAINER') {
      throw refuse(`is a ${service.configuration.mode} database: it runs in no container Berth runs, so its provider backs it up, not Berth`)
    }
    if (executorOf(await repo.clusterOf(service.environmentId), deps.defaultExecutor) === 'SIMULATED') {
      throw refuse(`is a database that ${SIMULATED_DATABASE.replace(/^the database /, '')}`)
    }
  }

  async function destinationId(organizationId: string, id: string | null, errors: FieldError[]) {
    if (id !== null && !(await repo.findDestination(organizationId, id))) {
      errors.push({ path: '/destination_id', message: 'is not a backup destination of the organization', location: 'body' })
    }
    return id
  }

  async function backupOf(service: ServiceRecord, backupId: string): Promise<BackupRow> {
    const backup = await repo.findBackup(service.organizationId, backupId)
    if (!backup || backup.serviceId !== service.id) throw notFound('backup')
    return backup
  }

  return {
    /** addBackupDatabase: queues a backup (DEPLOY). */
    async take(principal: Principal, databaseId: string, input: BackupInput): Promise<BackupRow> {
      const service = await database(principal, databaseId, 'DEPLOY')
      const errors: FieldError[] = []
      await destinationId(service.organizationId, input.destinationId, errors)
      if (errors.length > 0) throw validationFailed(errors)
      await requireDumpable(service)
      const row = await repo.insertBackup({
        organizationId: service.organizationId,
        serviceId: service.id,
        destinationId: input.destinationId,
        engine: service.configuration.type,
        name: input.name,
        message: input.message,
        origin: 'MANUAL',
        objectKey: (id) => objectKeyOf(service.organizationId, service.id, id, service.configuration.type),
        createdBy: await deps.actorName(principal),
      })
      deps.onQueued?.()
      return row
    },

    /** listDatabaseBackup: newest first, a page from `startId` (READ); with when the last one ended DONE. */
    async list(principal: Principal, databaseId: string, query: { startId?: string; pageSize?: number }) {
      const service = await database(principal, databaseId, 'READ')
      const pageSize = query.pageSize ?? DEFAULT_PAGE_SIZE
      const rows = await repo.listBackups(service.id, pageSize + 1, query.startId)
      if (!rows) throw new AppError('bad_request', 'startId is not a backup of this database')
      const lastSuccess = (await repo.lastSuccess([service.id])).get(service.id) ?? null
      return { rows: rows.slice(0, pageSize), next: rows[pageSize]?.id ?? null, pageSize, lastSuccess }
    },

    /**
     * When the database's last backup ended DONE (null: never), for its status answer; the caller
     * has already checked that the principal may read the database.
     */
    async lastSuccessfulBackupAt(databaseId: string): Promise<Date | null> {
      return (await repo.lastSuccess([databaseId])).get(databaseId) ?? null
    },

    async get(principal: Principal, databaseId: string, backupId: string): Promise<BackupRow> {
      return backupOf(await database(principal, databaseId, 'READ'), backupId)
    },

    /** removeDatabaseBackup (DEPLOY): its object first, then its record; 409 while it runs or a restore of it waits. */
    async remove(principal: Principal, databaseId: string, backupId: string): Promise<void> {
      const service = await database(principal, databaseId, 'DEPLOY')
      const backup = await backupOf(service, backupId)
      if (backup.status === 'RUNNING') throw new AppError('conflict', 'the backup is running: delete it once it has ended')
      if (backup.status !== 'QUEUED') {
        const destination = backup.destinationId ? await repo.findDestination(service.organizationId, backup.destinationId) : undefined
        const { store, secrets } = await storeOf(deps.stores, destination)
        try {
          await store.delete(backup.objectKey)
        } catch (error) {
          throw new AppError('bad_gateway', `the backup's object could not be deleted: ${secretMask(secrets)((error as Error).message)}`)
        }
      }
      if (!(await repo.deleteFinishedBackup(backup.id))) {
        throw new AppError('conflict', 'the backup started, or a restore of it is queued or running: delete it once that has ended')
      }
    },

    /** Queues a restore of a DONE backup into its database or another of the same type (DEPLOY on both); 409 while either is deployed. */
    async restore(principal: Principal, databaseId: string, backupId: string, targetId: string | null): Promise<RestoreRow> {
      const source = await database(principal, databaseId, 'DEPLOY')
      const backup = await backupOf(source, backupId)
      let target = source
      if (targetId !== null && targetId !== source.id) {
        target = await database(principal, targetId, 'DEPLOY').catch((error) => {
          if (error instanceof AppError && error.code === 'not_found') {
            throw validationFailed([{ path: '/target_database_id', message: 'is not a database you may deploy', location: 'body' }])
          }
          throw error
        })
        if (target.configuration.type !== source.configuration.type) {
          throw validationFailed([
            {
              path: '/target_database_id',
              message: `is a ${target.configuration.type} database: a ${source.configuration.type} backup restores into a ${source.configuration.type} database only`,
              location: 'body',
            },
          ])
        }
        await requireDumpable(target, { path: '/target_database_id', message: '', location: 'body' })
      }
      if (backup.status !== 'DONE') throw new AppError('conflict', `the backup is ${backup.status}: only a DONE backup can be restored`)
      await requireDumpable(target)
      if (await repo.deploymentRunning(target.id))
        throw new AppError('conflict', 'a deployment of the database is queued or running: restore once it has ended')
      const row = await repo.insertRestore({
        organizationId: target.organizationId,
        serviceId: target.id,
        backupId: backup.id,
        backupName: backup.name,
        sourceServiceId: source.id,
        createdBy: await deps.actorName(principal),
      })
      deps.onQueued?.()
      return row
    },

    async listRestores(principal: Principal, databaseId: string): Promise<RestoreRow[]> {
      const service = await database(principal, databaseId, 'READ')
      return repo.listRestores(service.id, 100)
    },

    async getRestore(principal: Principal, databaseId: string, restoreId: string): Promise<RestoreRow> {
      const service = await database(principal, databaseId, 'READ')
      const row = await repo.findRestore(service.id, restoreId)
      if (!row) throw notFound('restore')
      return row
    },

    /** The database's schedule, or undefined when it has none (a setting not set is not a missing resource). */
    async findSchedule(principal: Principal, databaseId: string): Promise<ScheduleRow | undefined> {
      const service = await database(principal, databaseId, 'READ')
      return repo.findSchedule(service.id)
    },

    /** Sets the database's schedule (WRITE): the next backup at the expression's next time from now. */
    async putSchedule(principal: Principal, databaseId: string, input: ScheduleInput): Promise<ScheduleRow> {
      const service = await database(principal, databaseId, 'WRITE')
      const timezone = input.timezone ?? DEFAULT_TIMEZONE
      const errors: FieldError[] = []
      const zone = timezoneProblem(timezone)
      if (zone) errors.push({ path: '/timezone', message: zone, location: 'body' })
      const cron = zone ? undefined : cronExpressionProblem(input.cron, timezone)
      if (cron) errors.push({ path: '/cron', message: cron, location: 'body' })
      if (input.keepCount === null && input.keepDays === null) {
        errors.push({
          path: '/keep_count',
          message: 'keep_count or keep_days must be set: a schedule keeps a bounded number of backups',
          location: 'body',
        })
      }
      await destinationId(service.organizationId, input.destinationId, errors)
      if (errors.length > 0) throw validationFailed(errors)
      await requireDumpable(service)
      const next = nextFireAfter(input.cron, timezone, new Date())!
      return repo.upsertSchedule({
        serviceId: service.id,
        organizationId: service.organizationId,
        cron: input.cron.trim(),
        timezone,
        destinationId: input.destinationId,
        keepCount: input.keepCount,
        keepDays: input.keepDays,
        nextFireAt: next,
      })
    },

    async deleteSchedule(principal: Principal, databaseId: string): Promise<void> {
      const service = await database(principal, databaseId, 'WRITE')
      if (!(await repo.deleteSchedule(service.id))) throw notFound('backup schedule')
    },
  }
}

export type BackupsService = ReturnType<typeof createBackupsService>
