import { sql, type Transaction } from 'kysely'
import type { ServiceSnapshot } from '#src/modules/services/service-kinds.ts'
import type { Db } from '#src/platform/db/database.ts'
import { localChange } from '#src/platform/db/notifications.ts'
import type { Database } from '#src/platform/db/schema.ts'
import { type State, UNFINISHED } from '#src/platform/deployment-states.ts'
import { createKeyedTurns } from '#src/platform/keyed-turns.ts'
import type { DeploymentRun } from './deployment-progress.ts'
import { DRY_RUN, databaseNow, finishedStates, HISTORY_CHANNEL, latestServiceEntry, runColumns, toRun, writeEntries } from './deployment-rows.ts'

// An environment's queue under its lock: where triggers (the API side) and the cron scheduler (the
// runner side) add, read and cancel runs, one at a time per environment.

/** A run as stored, with what only the queue needs. */
export interface StoredRun {
  run: DeploymentRun
  cancelRequested: boolean
  leaseOwner: string | null
  /** Whether a runner holds the run now (its lease has not expired). */
  leased: boolean
}

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

    /** The status of the environment's newest run but dry runs; undefined before its first. */
    async latestStatus(): Promise<State | undefined> {
      const row = await trx
        .selectFrom('deploymentRequests')
        .select('status')
        .where('environmentId', '=', environmentId)
        .where('triggerAction', '!=', DRY_RUN)
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
 * Runs `work` in `trx` with the environment's row locked (after key share locks on its
 * organization and its project, in the order deletes take them). Resolves undefined when the
 * environment is gone.
 */
export async function lockEnvironmentIn<T>(
  trx: Transaction<Database>,
  environmentId: string,
  work: (queue: LockedQueue, next: () => Promise<{ seq: string; createdAt: string }>) => Promise<T>,
): Promise<T | undefined> {
  // The one lock order of everything that deletes or queues in an environment: its organization,
  // its project, the environment, then the environment's rows (runs, services, history). Organization,
  // project and environment deletes take them so (organizations, projects and environments
  // repositories), as does the run that deletes its environment (deployment-runs.repository.ts). A
  // trigger takes the organization and the project as key shares, which wait for their deletes and
  // for nothing else: it then waits for a delete under way rather than holding the environment
  // that delete wants next (the run's rows lock the organization too).
  const organization = await trx
    .selectFrom('organizations')
    .select('id')
    .where(sql<boolean>`id = (select organization_id from environments where id = ${environmentId})`)
    .forKeyShare()
    .executeTakeFirst()
  if (!organization) return undefined
  const project = await trx
    .selectFrom('projects')
    .select('id')
    .where(sql<boolean>`id = (select project_id from environments where id = ${environmentId})`)
    .forKeyShare()
    .executeTakeFirst()
  if (!project) return undefined
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

/**
 * A transaction that may write histories: `changes(environmentId)` before writing one (see
 * `localChange`), so that this process never serves a page its commit made stale.
 */
export async function historyTransaction<T>(
  db: Db,
  work: (trx: Transaction<Database>, changes: (environmentId: string) => void) => Promise<T>,
): Promise<T> {
  const change = localChange(db, HISTORY_CHANNEL)
  try {
    return await db.transaction().execute((trx) => work(trx, change.touch))
  } finally {
    change.end()
  }
}

export function createEnvironmentQueue(db: Db) {
  const environmentTurns = createKeyedTurns()
  return {
    /**
     * Runs `work` with the environment's row locked (after key share locks on its organization and
     * its project, in the order deletes take them), so that its triggers and cancels happen one at a time.
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
        historyTransaction(db, async (trx, changes) => {
          changes(environmentId)
          return lockEnvironmentIn(trx, environmentId, work)
        }),
      )
    },
  }
}

export type EnvironmentQueue = ReturnType<typeof createEnvironmentQueue>
