import { sql, type Transaction } from 'kysely'
import type { ServiceKinds, ServiceSnapshot } from '#src/modules/services/service-kinds.ts'
import type { Db } from '#src/platform/db/database.ts'
import type { Database } from '#src/platform/db/schema.ts'
import { FAMILIES, type ServiceType, UNFINISHED } from '#src/platform/deployment-states.ts'
import type { SnapshotVariable } from '#src/platform/snapshot-variable.ts'
import { recordFinishedRun } from '../queue/cron-schedules.repository.ts'
import { type DeploymentRun, isFinished, SERVICE_GONE, skipServices, withPreviousStates } from '../queue/deployment-progress.ts'
import { databaseNow, finishedStates, runColumns, serviceIdsOf, toRun, writeEntries } from '../queue/deployment-rows.ts'
import { historyTransaction, type StoredRun } from '../queue/environment-queue.ts'
import { type FiringLog, fireDueSchedules } from './cron-firing.ts'

// What runners do with the queue: claim a run, hold it with a lease, write its steps and its end,
// and the logs, clocks and snapshots they run with. Triggers queue runs through environment-queue.ts.

const leaseInterval = (leaseMs: number) => sql<Date>`now() + make_interval(secs => ${leaseMs / 1000})`

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
  /** When it was said or printed; the time it is written when not given. */
  createdAt?: Date
}

export function createDeploymentRunsRepository(db: Db) {
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
     * Fires the cron schedules that are due, each tick once across every runner (cron-firing.ts):
     * how many ticks it fired.
     */
    fireDueSchedules: (limit: number, kinds: ServiceKinds, log?: FiringLog): Promise<number> =>
      historyTransaction(db, (trx, changes) => fireDueSchedules(trx, changes, limit, kinds, log)),

    /**
     * Takes the oldest run that may run now: the first unfinished run of its environment, that no
     * runner holds, of the organization holding fewest runs (none of `organizationsAtShare`, whose
     * runs hold their share of the claiming runner's slots). One a lost runner held (its lease expired) is not run again: `interrupt` turns
     * it into the terminal run that is written instead. Concurrent runners skip each other's rows.
     */
    async claim(
      runnerId: string,
      leaseMs: number,
      interrupt: (stored: StoredRun, now: string) => DeploymentRun,
      organizationsAtShare: readonly string[] = [],
    ): Promise<ClaimOutcome> {
      return historyTransaction(db, async (trx, changes): Promise<ClaimOutcome> => {
        const row = await trx
          .selectFrom('deploymentRequests as r')
          .selectAll('r')
          .where('r.actionStatus', 'in', UNFINISHED)
          .where((eb) => eb.or([eb('r.leaseExpiresAt', 'is', null), eb('r.leaseExpiresAt', '<', sql<Date>`now()`)]))
          // Fair share: the runs of an organization holding its share of this runner's slots wait
          // (a lost runner's run is still ended: that takes no slot).
          .$if(organizationsAtShare.length > 0, (query) =>
            query.where((eb) => eb.or([eb('r.leaseOwner', 'is not', null), eb('r.organizationId', 'not in', organizationsAtShare)])),
          )
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
          // The organizations running least, on every runner sharing the queue, go first; then the oldest run.
          .orderBy((eb) =>
            eb
              .selectFrom('deploymentRequests as held')
              .select((held) => held.fn.countAll<string>().as('held'))
              .whereRef('held.organizationId', '=', 'r.organizationId')
              .where('held.leaseOwner', 'is not', null)
              .where('held.leaseExpiresAt', '>', sql<Date>`now()`)
              .where('held.actionStatus', 'in', UNFINISHED),
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
     * runner took it, it was canceled for good, or its environment is gone. A finished run
     * schedules or unschedules the services of `kinds` that run on a schedule (a cron job).
     */
    async save(run: DeploymentRun, runnerId: string, leaseMs: number, kinds: ServiceKinds): Promise<'saved' | 'canceled' | 'lost'> {
      const canceling = run.actionStatus === 'CANCELING' || run.actionStatus === 'CANCELED'
      const saved = await historyTransaction(db, async (trx, changes) => {
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
        if (isFinished(run)) await recordFinishedRun(trx, run, kinds)
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

    /** Keeps what a service's run left for its own routes (ServiceOutcome.output), replacing what an earlier run left. */
    async keepOutput(serviceId: string, executionId: string, output: Record<string, unknown>): Promise<void> {
      const text = JSON.stringify(output)
      await db
        .insertInto('serviceRunOutputs')
        .values({ serviceId, executionId, output: text })
        .onConflict((oc) => oc.column('serviceId').doUpdateSet({ executionId, output: text, createdAt: new Date() }))
        .execute()
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
