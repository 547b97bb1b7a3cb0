import { type ExpressionBuilder, type Selectable, sql, type Transaction } from 'kysely'
import type { Db } from '#src/platform/db/database.ts'
import type { Database, DeploymentRequestsTable } from '#src/platform/db/schema.ts'
import {
  type ActionStatus,
  type Origin,
  type RunnableTrigger,
  type ServiceActionStatus,
  type State,
  UNFINISHED,
} from '#src/platform/deployment-states.ts'
import { environmentEntry, serviceEntry } from './deployment-entries.ts'
import type { DeploymentRun, Progress } from './deployment-progress.ts'

// How a run is stored: its row, and the history entries rendered from it at every write.

export type Queries = Db | Transaction<Database>
type RequestRow = Selectable<DeploymentRequestsTable>

const iso = (value: Date | null) => (value === null ? null : value.toISOString())

export function toRun(row: RequestRow): DeploymentRun {
  return {
    id: row.id,
    organizationId: row.organizationId,
    environmentId: row.environmentId,
    serviceId: row.serviceId,
    triggerAction: row.triggerAction as RunnableTrigger,
    origin: row.origin as Origin,
    triggeredBy: row.triggeredBy,
    status: row.status as State,
    actionStatus: row.actionStatus as ActionStatus,
    message: row.message,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    startedAt: iso(row.startedAt),
    endedAt: iso(row.endedAt),
    progress: row.progress as Progress,
  }
}

/** The columns a run's change writes: its state and its entry, rendered again. */
export const runColumns = (run: DeploymentRun) => ({
  status: run.status,
  actionStatus: run.actionStatus,
  message: run.message,
  progress: JSON.stringify(run.progress),
  entryJson: JSON.stringify(environmentEntry(run)),
  updatedAt: new Date(run.updatedAt),
  startedAt: run.startedAt === null ? null : new Date(run.startedAt),
  endedAt: run.endedAt === null ? null : new Date(run.endedAt),
})

/**
 * Writes what a change of the run means for the histories, in its transaction: the services' own
 * entries, and a new version of the environment's history.
 */
export async function writeEntries(db: Queries, run: DeploymentRun): Promise<void> {
  await writeServiceEntries(db, run)
  await touchHistory(db, run.environmentId)
}

async function writeServiceEntries(db: Queries, run: DeploymentRun): Promise<void> {
  const rows = run.progress.stages.flatMap((stage) =>
    stage.services.map((service) => {
      const entry = serviceEntry(run, service)
      return {
        executionId: run.id,
        serviceId: service.id,
        organizationId: run.organizationId,
        environmentId: run.environmentId,
        createdAt: new Date(run.createdAt),
        triggerAction: run.triggerAction,
        origin: run.origin,
        status: entry.status,
        actionStatus: entry.status_details.status,
        // A dry run changes nothing running: its entries never tell a service's state.
        reached: service.startedAt !== null && run.triggerAction !== DRY_RUN,
        serviceVersion: service.version,
        entryJson: JSON.stringify(entry),
      }
    }),
  )
  if (rows.length === 0) return
  await db
    .insertInto('serviceDeployments')
    .values(rows)
    .onConflict((conflict) =>
      conflict.columns(['executionId', 'serviceId']).doUpdateSet((eb) => ({
        status: eb.ref('excluded.status'),
        actionStatus: eb.ref('excluded.actionStatus'),
        reached: eb.ref('excluded.reached'),
        entryJson: eb.ref('excluded.entryJson'),
      })),
    )
    .execute()
}

/** Where PostgreSQL announces, at commit, that an environment's history changed or went (migration 0011); the payload is its id. */
export const HISTORY_CHANNEL = 'berth_history'

/**
 * Marks the environment's history as changed, in the transaction that changes it; PostgreSQL
 * announces the new version to every process at commit (migration 0011). Taken after the runs'
 * rows, everywhere, so that it never waits in a cycle with them.
 */
async function touchHistory(db: Queries, environmentId: string): Promise<void> {
  await sql`
    insert into environment_history_versions (environment_id, version) values (${environmentId}, 1)
    on conflict (environment_id) do update set version = environment_history_versions.version + 1`.execute(db)
}

/** The database's clock: every Berth process stamps deployments with it, whatever its own clock says. */
export async function databaseNow(db: Queries): Promise<string> {
  const { rows } = await sql<{ now: Date }>`select clock_timestamp() as now`.execute(db)
  return rows[0]!.now.toISOString()
}

/** The trigger of dry runs, which reach no service (their entries say `reached` false). */
export const DRY_RUN = 'DEPLOY_DRY_RUN' satisfies RunnableTrigger

/** Entries that tell a service's state: those that reached it, and those that still may (a dry run never will). */
const reachedOrPending = (eb: ExpressionBuilder<Database, 'serviceDeployments'>) =>
  eb.or([eb('reached', '=', true), eb.and([eb('actionStatus', 'in', UNFINISHED), eb('triggerAction', '!=', DRY_RUN)])])

/** Each service's latest entry that tells its state (it reached the service, or still may); services with none are absent. */
export async function latestServiceEntries(db: Queries, serviceIds: string[]) {
  if (serviceIds.length === 0) return new Map<string, never>()
  const rows = await db
    .selectFrom('serviceDeployments')
    .distinctOn('serviceId')
    .select(['serviceId', 'status', 'actionStatus', 'triggerAction', 'executionId', 'createdAt'])
    .where('serviceId', 'in', serviceIds)
    .where(reachedOrPending)
    .orderBy('serviceId')
    .orderBy('createdAt', 'desc')
    .orderBy('executionId', 'desc')
    .execute()
  return new Map(
    rows.map(({ serviceId, ...row }) => [
      serviceId,
      {
        ...row,
        status: row.status as State,
        actionStatus: row.actionStatus as ServiceActionStatus,
        triggerAction: row.triggerAction as RunnableTrigger,
      },
    ]),
  )
}

/** A service's latest entry that tells its state (it reached the service, or still may); undefined when it has none. */
export async function latestServiceEntry(db: Queries, serviceId: string) {
  return (await latestServiceEntries(db, [serviceId])).get(serviceId)
}

/**
 * Each service's state as the deployments that reached it left it: the status of its latest
 * finished entry that did (services with none are absent).
 */
export async function finishedStates(db: Queries, serviceIds: string[]): Promise<Map<string, State>> {
  if (serviceIds.length === 0) return new Map()
  const rows = await db
    .selectFrom('serviceDeployments')
    .distinctOn('serviceId')
    .select(['serviceId', 'status'])
    .where('serviceId', 'in', serviceIds)
    .where('reached', '=', true)
    .where('actionStatus', 'not in', UNFINISHED)
    .orderBy('serviceId')
    .orderBy('createdAt', 'desc')
    .orderBy('executionId', 'desc')
    .execute()
  return new Map(rows.map((row) => [row.serviceId, row.status as State]))
}

/** The ids of the services a run deploys. */
export const serviceIdsOf = (run: DeploymentRun) => run.progress.stages.flatMap((stage) => stage.services.map((service) => service.id))

/** Whether the run deploys the service. */
export const includes = (run: DeploymentRun, serviceId: string) => serviceIdsOf(run).includes(serviceId)
