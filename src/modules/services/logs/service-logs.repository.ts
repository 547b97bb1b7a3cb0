import { sql } from 'kysely'
import type { Db } from '#src/platform/db/database.ts'
import { findRow } from '#src/platform/db/rows-by-keys.ts'
import { hasUnfinishedDeployment } from '#src/platform/db/unfinished-deployments.ts'
import type { ServiceType } from '#src/platform/deployment-states.ts'
import type { SnapshotVariable } from '#src/platform/snapshot-variable.ts'

// What the service logs read from the database: the snapshot whose secrets mask an instance's
// lines, and a job's runs' output as its deployments' logs kept it.

/** A line of a job's run, as the deployment that ran it logged it (already masked). */
export interface JobRunLine {
  id: string
  executionId: string
  createdAt: Date
  message: string
}

/** How many of an environment's newest deployments a job's output is looked for in. */
const JOB_RUN_DEPLOYMENTS = 50

export function createServiceLogsRepository(db: Db) {
  return {
    /** What masks the lines of an instance the deployment `executionId` started: the service's snapshot there. */
    async snapshot(
      executionId: string,
      serviceId: string,
    ): Promise<{ kind: ServiceType; variables: SnapshotVariable[]; configuration: unknown } | undefined> {
      const row = await findRow(db, 'deploymentSnapshots', { executionId, serviceId }, ['kind', 'variables', 'configuration'])
      return row && { kind: row.kind as ServiceType, variables: row.variables as SnapshotVariable[], configuration: row.configuration }
    },

    /**
     * The release a helm service's last deploy installed: that deployment (the newest DEPLOY that
     * reached the service) and the service's name in its snapshot, which names the release.
     */
    async installedRelease(serviceId: string): Promise<{ executionId: string; serviceName: string } | undefined> {
      const row = await db
        .selectFrom('serviceDeployments as d')
        .innerJoin('deploymentSnapshots as s', (join) => join.onRef('s.executionId', '=', 'd.executionId').onRef('s.serviceId', '=', 'd.serviceId'))
        .select(['d.executionId', 's.name'])
        .where('d.serviceId', '=', serviceId)
        .where('d.reached', '=', true)
        .where('d.triggerAction', '=', 'DEPLOY')
        .orderBy('d.createdAt', 'desc')
        .orderBy('d.executionId', 'desc')
        .limit(1)
        .executeTakeFirst()
      return row && { executionId: row.executionId, serviceName: row.name }
    },

    /** Whether a deployment of the environment is queued or running: it may start instances. */
    deploying(environmentId: string): Promise<boolean> {
      return hasUnfinishedDeployment(db, 'deploymentRequests', { environmentId })
    },

    /**
     * The last `limit` lines a job's runs printed (the `run` step of its deployments among the
     * environment's newest), oldest first.
     */
    async jobRunLines(environmentId: string, serviceId: string, limit: number): Promise<JobRunLine[]> {
      const { rows } = await sql<JobRunLine>`
        select * from (
          select l.id::text as id, l.execution_id as "executionId", l.created_at as "createdAt", l.message
          from deployment_logs l
          where l.execution_id in (
            select id from deployment_requests where environment_id = ${environmentId} order by seq desc limit ${JOB_RUN_DEPLOYMENTS}
          ) and l.service_id = ${serviceId} and l.step = 'run'
          order by l.id desc limit ${limit}
        ) t order by t.id::bigint`.execute(db)
      return rows
    },
  }
}

export type ServiceLogsRepository = ReturnType<typeof createServiceLogsRepository>
