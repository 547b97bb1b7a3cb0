import { sql, type Transaction } from 'kysely'
import type { ServiceSnapshot } from '#src/modules/services/service-kinds.ts'
import type { SnapshotVariable } from '#src/modules/variables/resolved-variables.ts'
import type { Db } from '#src/platform/db/database.ts'
import { localChange } from '#src/platform/db/notifications.ts'
import type { Database } from '#src/platform/db/schema.ts'
import { createKeyedTurns } from '#src/platform/keyed-turns.ts'
import { HISTORY_CHANNEL } from '../api/history/history-versions.ts'
import { FAMILIES, type ServiceType, type State, UNFINISHED } from '../deployment-states.ts'
import { recordFinishedRun } from '../queue/cron-schedules.repository.ts'
import { type DeploymentRun, isFinished, SERVICE_GONE, skipServices, withPreviousStates } from '../queue/deployment-progress.ts'
import { databaseNow, finishedStates, latestServiceEntry, runColumns, serviceIdsOf, toRun, writeEntries } from '../queue/deployment-rows.ts'
import { type FiringLog, fireDueSchedules } from './cron-firing.ts'

// The deployment queue: claiming, holding and writing runs, and an environment's triggers under its lock.

/** A run as stored, with what only the queue needs. */
export interface StoredRun {
  run: DeploymentRun
  cancelRequested: boolean
  leaseOwner: string | null
  /** Whether a runner holds the run now (its lease has not expired). */
  leased: boolean
}

const leaseInterval = (leaseMs: number) => sql<Date>`now() + make_interval(secs => ${leaseMs / 1000})`

/** Queries on one environment's queue inside the transaction that locked it. */
function lockedQueue(trx: Transaction<Database>, environmentId: string) {
  return {
    /** The database's clock now. */
    now: () => databaseNow(trx),

    /** The environment's unfinished runs, oldest first, locked. */
    async unfinished(): Promise<StoredRun[]> {
      const rows = await trx
        .selectFrom('deploymentRequests')
        .selectAll()
        .select(sql<boolean>`lease_owner is not null and lease_expires_at > now()`.as('leased'))
        .where('environmentId', '=', environmentId)
        .where('actionStatus', 'in', UNFINISHED)
        .orderBy('seq')
        .forUpdate()
        .execute()
      return rows.map((row) => ({
        run: toRun(row),
        cancelRequested: row.cancelRequested,
        leaseOwner: row.leaseOwner,
        leased: row.leased,
      }))
    },

    /** Adds a run at the end of the queue with what it deploys; `seq` is the one `lockEnvironment` handed out. */
    async insert(run: DeploymentRun, seq: string, snapshots: ServiceSnapshot[]): Promise<void> {
      await trx
        .insertInto('deploymentRequests')
        .values({
          id: run.id,
          organizationId: run.organizationId,
          environmentId: run.environmentId,
          seq,
          serviceId: run.serviceId,
          triggerAction: run.triggerAction,
          origin: run.origin,
          triggeredBy: run.triggeredBy,
          createdAt: new Date(run.createdAt),
          ...runColumns(run),
        })
        .execute()
      if (snapshots.length > 0) {
        await trx
          .insertInto('deploymentSnapshots')
          .values(
            snapshots.map((snapshot) => ({
              executionId: run.id,
              serviceId: snapshot.serviceId,
              kind: snapshot.kind,
              name: snapshot.name,
              version: snapshot.version,
              configuration: JSON.stringify(snapshot.configuration),
              overrides: JSON.stringify(snapshot.overrides),
              variables: JSON.stringify(snapshot.variables),
              variablesFingerprint: snapshot.variablesFingerprint,
              advancedSettings: JSON.stringify(snapshot.advancedSettings),
              labels: JSON.stringify(snapshot.labels ?? {}),
            })),
          )
          .execute()
      }
      await writeEntries(trx, run)
    },

    /** The run that is to delete the environment once its services are gone (see `save`). */
    async markDeletion(executionId: string): Promise<void> {
      await trx
        .insertInto('environmentDeletions')
        .values({ environmentId, executionId })
        .onConflict((oc) => oc.column('environmentId').doUpdateSet({ executionId }))
        .execute()
    },

    /** The run marked to delete the environment, if any: it deletes it only while unfinished. */
    async deletionRun(): Promise<string | undefined> {
      const row = await trx.selectFrom('environmentDeletions').select('executionId').where('environmentId', '=', environmentId).executeTakeFirst()
      return row?.executionId
    },

    /** The status of the environment's newest run; undefined before its first. */
    async latestStatus(): Promise<State | undefined> {
      const row = await trx
        .selectFrom('deploymentRequests')
        .select('status')
        .where('environmentId', '=', environmentId)
        .orderBy('seq', 'desc')
        .limit(1)
        .executeTakeFirst()
      return row?.status as State | undefined
    },

    /** Each service's state now, from the deployments that reached it (services none reached are absent). */
    finishedStates: (serviceIds: string[]) => finishedStates(trx, serviceIds),

    /** The status of the service's latest entry that tells its state; undefined when it has none. */
    latestServiceStatus: async (serviceId: string) => (await latestServiceEntry(trx, serviceId))?.status,

    /**
     * Asks the runner holding a run to cancel it, and shows it CANCELING from now on: the runner's
     * next write, made before it knew, is refused (see `save`).
     */
    async requestCancel(canceling: DeploymentRun): Promise<void> {
      await trx
        .updateTable('deploymentRequests')
        .set({ ...runColumns(canceling), cancelRequested: true })
        .where('id', '=', canceling.id)
        .execute()
      await writeEntries(trx, canceling)
    },

    /** Ends a run no runner holds; whoever held it before can no longer write to it. */
    async end(run: DeploymentRun): Promise<void> {
      await trx
        .updateTable('deploymentRequests')
        .set({ ...runColumns(run), leaseOwner: null, leaseExpiresAt: null })
        .where('id', '=', run.id)
        .execute()
      await writeEntries(trx, run)
    },
  }
}

export type LockedQueue = ReturnType<typeof lockedQueue>

/**
 * Runs `work` in `trx` with the environment's row locked (after a key share lock on its
 * organization, in the order deletes take them). Resolves undefined when the environment is gone.
 */
export async function lockEnvironmentIn<T>(
  trx: Transaction<Database>,
  environmentId: string,
  work: (queue: LockedQueue, next: () => Promise<{ seq: string; createdAt: string }>) => Promise<T>,
): Promise<T | undefined> {
  // Its organization first, as deletes lock an organization before its projects and
  // environments: a trigger waits for a delete under way rather than holding the
  // environment that delete wants next (the run's rows lock the organization too).
  const organization = await trx
    .selectFrom('organizations')
    .select('id')
    .where(sql<boolean>`id = (select organization_id from environments where id = ${environmentId})`)
    .forKeyShare()
    .executeTakeFirst()
  if (!organization) return undefined
  const locked = await trx.selectFrom('environments').select('deploymentSeq').where('id', '=', environmentId).forNoKeyUpdate().executeTakeFirst()
  if (!locked) return undefined
  const next = async () => {
    const { seq, createdAt } = await trx
      .updateTable('environments')
      .set((eb) => ({ deploymentSeq: sql<string>`${eb.ref('deploymentSeq')} + 1` }))
      .where('id', '=', environmentId)
      .returning((eb) => [
        'deploymentSeq as seq',
        sql<Date>`greatest(clock_timestamp(), (${eb
          .selectFrom('deploymentRequests')
          .select(sql`created_at + interval '1 millisecond'`.as('after'))
          .where('environmentId', '=', environmentId)
          // RETURNING sees the row as updated: the previous run is the one numbered one less.
          .where('seq', '=', sql<string>`environments.deployment_seq - 1`)}))`.as('createdAt'),
      ])
      .executeTakeFirstOrThrow()
    return { seq, createdAt: createdAt.toISOString() }
  }
  return work(lockedQueue(trx, environmentId), next)
}

export type ClaimOutcome =
  | { kind: 'none' }
  | { kind: 'claimed'; stored: StoredRun }
  /** A run whose runner was lost, ended instead of run; `lostRunner` is the id it was held by. */
  | { kind: 'interrupted'; run: DeploymentRun; lostRunner: string }

/**
 * Before the last save of a run that deletes its environment, when every service went: the locks an
 * environment delete takes, in its order (organization and project key shares, then the
 * environment), so that the save cannot deadlock with another delete. True when the environment is
 * to go with this save.
 */
async function lockForEnvironmentDeletion(trx: Transaction<Database>, run: DeploymentRun): Promise<boolean> {
  if (run.triggerAction !== 'DELETE' || run.status !== FAMILIES.DELETE.done) return false
  const marked = await trx
    .selectFrom('environmentDeletions')
    .select('environmentId')
    .where('environmentId', '=', run.environmentId)
    .where('executionId', '=', run.id)
    .executeTakeFirst()
  if (!marked) return false
  await trx.selectFrom('organizations').select('id').where('id', '=', run.organizationId).forKeyShare().execute()
  await trx
    .selectFrom('projects')
    .select('id')
    .where(sql<boolean>`id = (select project_id from environments where id = ${run.environmentId})`)
    .forKeyShare()
    .execute()
  const environment = await trx.selectFrom('environments').select('id').where('id', '=', run.environmentId).forUpdate().executeTakeFirst()
  return environment !== undefined
}

/** A deletion that succeeded for a service takes the service away; its history stays. */
async function deleteRemovedServices(trx: Transaction<Database>, run: DeploymentRun): Promise<void> {
  const removed = run.progress.stages.flatMap((stage) => stage.services.filter((service) => service.phase === 'SUCCESS').map((service) => service.id))
  if (removed.length > 0) await trx.deleteFrom('services').where('id', 'in', removed).where('environmentId', '=', run.environmentId).execute()
}

/** A line a deployment's step wrote, as the runner hands it over. */
export interface NewLogLine {
  executionId: string
  organizationId: string
  environmentId: string
  serviceId: string | null
  stageName: string | null
  step: string
  level: 'INFO' | 'WARNING' | 'ERROR'
  message: string
}

export function createDeploymentRunsRepository(db: Db) {
  const environmentTurns = createKeyedTurns()
  /**
   * A transaction that may write histories: `changes(environmentId)` before writing one (see
   * `localChange`), so that this process never serves a page its commit made stale.
   */
  async function historyTransaction<T>(work: (trx: Transaction<Database>, changes: (environmentId: string) => void) => Promise<T>): Promise<T> {
    const change = localChange(db, HISTORY_CHANNEL)
    try {
      return await db.transaction().execute((trx) => work(trx, change.touch))
    } finally {
      change.end()
    }
  }

  /** Extends the lease of a run `runnerId` holds; as `save`, without changing the run. */
  async function renew(runId: string, runnerId: string, leaseMs: number): Promise<'lost' | { cancelRequested: boolean }> {
    const updated = await db
      .updateTable('deploymentRequests')
      .set({ leaseExpiresAt: leaseInterval(leaseMs) })
      .where('id', '=', runId)
      .where('leaseOwner', '=', runnerId)
      .where('leaseExpiresAt', '>', sql<Date>`now()`)
      .returning('cancelRequested')
      .executeTakeFirst()
    return updated ? { cancelRequested: updated.cancelRequested } : 'lost'
  }

  return {
    /**
     * Runs `work` with the environment's row locked (after a key share lock on its organization,
     * in the order deletes take them), so that its triggers and cancels happen one at a time.
     * `next` is the seq and the creation time the environment's next run gets: the database's
     * clock, and strictly later than the previous run's, so that history order (by creation time)
     * is queue order. Resolves undefined when the environment is gone.
     */
    withEnvironmentLocked<T>(
      environmentId: string,
      work: (queue: LockedQueue, next: () => Promise<{ seq: string; createdAt: string }>) => Promise<T>,
    ): Promise<T | undefined> {
      // A burst of triggers on one environment would otherwise fill the pool with transactions
      // waiting on its row lock, starving requests for other environments.
      return environmentTurns.run(environmentId, () =>
        historyTransaction(async (trx, changes) => {
          changes(environmentId)
          return lockEnvironmentIn(trx, environmentId, work)
        }),
      )
    },

    /**
     * Fires the cron schedules that are due, each tick once across every runner (cron-firing.ts):
     * how many ticks it fired.
     */
    fireDueSchedules: (limit: number, log?: FiringLog): Promise<number> =>
      historyTransaction((trx, changes) => fireDueSchedules(trx, changes, lockEnvironmentIn, limit, log)),

    /**
     * Takes the oldest run that may run now: the first unfinished run of its environment, that no
     * runner holds. One a lost runner held (its lease expired) is not run again: `interrupt` turns
     * it into the terminal run that is written instead. Concurrent runners skip each other's rows.
     */
    async claim(runnerId: string, leaseMs: number, interrupt: (stored: StoredRun, now: string) => DeploymentRun): Promise<ClaimOutcome> {
      return historyTransaction(async (trx, changes): Promise<ClaimOutcome> => {
        const row = await trx
          .selectFrom('deploymentRequests as r')
          .selectAll('r')
          .where('r.actionStatus', 'in', UNFINISHED)
          .where((eb) => eb.or([eb('r.leaseExpiresAt', 'is', null), eb('r.leaseExpiresAt', '<', sql<Date>`now()`)]))
          .where(({ not, exists, selectFrom }) =>
            not(
              exists(
                selectFrom('deploymentRequests as earlier')
                  .select('earlier.id')
                  .whereRef('earlier.environmentId', '=', 'r.environmentId')
                  .whereRef('earlier.seq', '<', 'r.seq')
                  .where('earlier.actionStatus', 'in', UNFINISHED),
              ),
            ),
          )
          .orderBy('r.createdAt')
          .limit(1)
          .forUpdate('r')
          .skipLocked()
          .executeTakeFirst()
        if (!row) return { kind: 'none' }
        changes(row.environmentId)
        const stored: StoredRun = { run: toRun(row), cancelRequested: row.cancelRequested, leaseOwner: row.leaseOwner, leased: false }
        if (row.leaseOwner !== null) {
          const run = interrupt(stored, await databaseNow(trx))
          await trx
            .updateTable('deploymentRequests')
            .set({ ...runColumns(run), leaseExpiresAt: null, claims: sql`claims + 1` })
            .where('id', '=', run.id)
            .execute()
          await writeEntries(trx, run)
          return { kind: 'interrupted', run, lostRunner: row.leaseOwner }
        }
        // Every earlier run of the environment has ended: the services' states before this one are
        // known now, and so are the services an earlier deletion took away, which it must not deploy again.
        let run = stored.run
        if (run.actionStatus === 'QUEUED') {
          const serviceIds = serviceIdsOf(run)
          const existing = serviceIds.length === 0 ? [] : await trx.selectFrom('services').select('id').where('id', 'in', serviceIds).execute()
          const gone = serviceIds.filter((id) => !existing.some((service) => service.id === id))
          run = skipServices(withPreviousStates(run, await finishedStates(trx, serviceIds)), gone, SERVICE_GONE, await databaseNow(trx))
        }
        await trx
          .updateTable('deploymentRequests')
          .set({ ...runColumns(run), leaseOwner: runnerId, leaseExpiresAt: leaseInterval(leaseMs), claims: sql`claims + 1` })
          .where('id', '=', row.id)
          .execute()
        await writeEntries(trx, run)
        return { kind: 'claimed', stored: { ...stored, run, leaseOwner: runnerId, leased: true } }
      })
    },

    /**
     * Writes the run's new state while `runnerId` still holds it, and extends the lease. Once a
     * cancel was asked for, only the steps of canceling are written ('canceled': the runner must
     * cancel). 'lost' when the run is no longer this runner's: its lease expired and another
     * runner took it, it was canceled for good, or its environment is gone.
     */
    async save(run: DeploymentRun, runnerId: string, leaseMs: number): Promise<'saved' | 'canceled' | 'lost'> {
      const canceling = run.actionStatus === 'CANCELING' || run.actionStatus === 'CANCELED'
      const saved = await historyTransaction(async (trx, changes) => {
        changes(run.environmentId)
        const deletesEnvironment = isFinished(run) && (await lockForEnvironmentDeletion(trx, run))
        let update = trx
          .updateTable('deploymentRequests')
          .set({ ...runColumns(run), leaseExpiresAt: isFinished(run) ? null : leaseInterval(leaseMs) })
          .where('id', '=', run.id)
          .where('leaseOwner', '=', runnerId)
          .where('leaseExpiresAt', '>', sql<Date>`now()`)
        if (!canceling) update = update.where('cancelRequested', '=', false)
        const updated = await update.returning('id').executeTakeFirst()
        if (!updated) return false
        await writeEntries(trx, run)
        if (isFinished(run)) await recordFinishedRun(trx, run)
        if (run.triggerAction === 'DELETE' && isFinished(run)) await deleteRemovedServices(trx, run)
        // Its history goes with it, as with an environment deleted at once.
        if (deletesEnvironment) await trx.deleteFrom('environments').where('id', '=', run.environmentId).execute()
        return true
      })
      if (saved) return 'saved'
      const held = await renew(run.id, runnerId, leaseMs)
      return held === 'lost' ? 'lost' : 'canceled'
    },

    renew,

    /** What the run deploys, by service, as of its trigger. */
    async snapshots(executionId: string): Promise<Map<string, ServiceSnapshot>> {
      const rows = await db.selectFrom('deploymentSnapshots').selectAll().where('executionId', '=', executionId).execute()
      return new Map(
        rows.map((row) => [
          row.serviceId,
          {
            serviceId: row.serviceId,
            kind: row.kind as ServiceType,
            name: row.name,
            version: row.version,
            configuration: row.configuration,
            overrides: row.overrides,
            variables: row.variables as SnapshotVariable[],
            variablesFingerprint: row.variablesFingerprint,
            advancedSettings: row.advancedSettings,
            labels: row.labels,
          },
        ]),
      )
    },

    /** The executor of the environment's cluster; undefined for a default cluster (the runner's default) or an environment gone. */
    async executorOf(environmentId: string): Promise<string | undefined> {
      const row = await db
        .selectFrom('environments as e')
        .innerJoin('clusters as c', 'c.id', 'e.clusterId')
        .select(['c.executor', 'c.isDefault'])
        .where('e.id', '=', environmentId)
        .executeTakeFirst()
      // A default cluster deploys with the engine the runners were told to use (BERTH_EXECUTOR).
      return row && !row.isDefault ? row.executor : undefined
    },

    /** Appends log lines, in the order given. */
    async appendLogs(lines: NewLogLine[]): Promise<void> {
      if (lines.length > 0) await db.insertInto('deploymentLogs').values(lines).execute()
    },

    /** Deletes the log lines older than `retentionMs`; returns how many went. */
    async pruneLogs(retentionMs: number): Promise<number> {
      const result = await db
        .deleteFrom('deploymentLogs')
        .where('createdAt', '<', sql<Date>`now() - make_interval(secs => ${retentionMs / 1000})`)
        .executeTakeFirst()
      return Number(result.numDeletedRows)
    },

    /**
     * How far the database's clock is ahead of this process's, in milliseconds; undefined when the
     * round trip took longer than `maxRoundTripMs`, too long for the answer to mean much.
     */
    async clockOffset(maxRoundTripMs: number): Promise<number | undefined> {
      const asked = Date.now()
      const now = Date.parse(await databaseNow(db))
      const answered = Date.now()
      return answered - asked > maxRoundTripMs ? undefined : now - (asked + answered) / 2
    },

    /** Gives a run back unfinished, for another runner to resume (a runner shutting down). */
    async release(runId: string, runnerId: string): Promise<void> {
      await db
        .updateTable('deploymentRequests')
        .set({ leaseOwner: null, leaseExpiresAt: null })
        .where('id', '=', runId)
        .where('leaseOwner', '=', runnerId)
        .where('leaseExpiresAt', '>', sql<Date>`now()`)
        .where('actionStatus', 'in', UNFINISHED)
        .execute()
    },
  }
}

export type DeploymentRunsRepository = ReturnType<typeof createDeploymentRunsRepository>
