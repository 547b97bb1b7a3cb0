import { type Selectable, sql } from 'kysely'
import type { ServiceKinds, ServiceSnapshot } from '#src/modules/services/service-kinds.ts'
import type { Db } from '#src/platform/db/database.ts'
import type { DeploymentLogsTable } from '#src/platform/db/schema.ts'
import type { ServiceType } from '#src/platform/deployment-states.ts'
import type { SnapshotVariable } from '#src/platform/snapshot-variable.ts'
import { databaseNow } from '../queue/deployment-rows.ts'
import { historyTransaction } from '../queue/environment-queue.ts'
import { type FiringLog, fireDueSchedules } from './cron-firing.ts'
import { createRunClaimsRepository } from './run-claims.repository.ts'

// What runners do with the queue: their claims and leases (run-claims.repository.ts), and what they
// read and write beside: snapshots, executors, outputs, logs, the database's clock, cron ticks.
// Triggers queue runs through environment-queue.ts.

export type { ClaimOutcome } from './run-claims.repository.ts'

/** A line a deployment's step wrote, as the runner hands it over. */
export type NewLogLine = Omit<Selectable<DeploymentLogsTable>, 'id' | 'level' | 'createdAt'> & {
  level: 'INFO' | 'WARNING' | 'ERROR'
  /** When it was said or printed; the time it is written when not given. */
  createdAt?: Date
}

export function createDeploymentRunsRepository(db: Db) {
  return {
    ...createRunClaimsRepository(db),

    /**
     * Fires the cron schedules that are due, each tick once across every runner (cron-firing.ts):
     * how many ticks it fired.
     */
    fireDueSchedules: (limit: number, kinds: ServiceKinds, log?: FiringLog): Promise<number> =>
      historyTransaction(db, (trx, changes) => fireDueSchedules(trx, changes, limit, kinds, log)),

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
  }
}

export type DeploymentRunsRepository = ReturnType<typeof createDeploymentRunsRepository>
