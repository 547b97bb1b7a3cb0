import { sql } from 'kysely'
import type { Db } from '#src/platform/db/database.ts'
import type { ServiceType } from '#src/platform/deployment-states.ts'

// Reading what deployments' steps wrote (the runner writes them: queue/deployment-runs.repository.ts).

/** A log line with who wrote it, as the logs routes render it. */
export interface LogLine {
  id: string
  createdAt: Date
  organizationId: string
  environmentId: string
  clusterId: string
  executionId: string
  /** The service the line is about; null for the deployment as a whole. */
  serviceId: string | null
  /** The service's name and kind as the deployment deployed it, or the environment's name. */
  transmitterName: string
  transmitterType: ServiceType | 'ENVIRONMENT'
  stageName: string | null
  step: string
  level: 'INFO' | 'WARNING' | 'ERROR'
  message: string
}

export function createDeploymentLogsRepository(db: Db) {
  const lines = (executionId: string) => sql<LogLine>`
    select l.id::text as id, l.created_at as "createdAt", l.organization_id as "organizationId",
      l.environment_id as "environmentId", e.cluster_id as "clusterId", l.execution_id as "executionId",
      l.service_id as "serviceId", coalesce(snap.name, e.name) as "transmitterName",
      coalesce(snap.kind, 'ENVIRONMENT') as "transmitterType", l.stage_name as "stageName", l.step, l.level, l.message
    from deployment_logs l
    join environments e on e.id = l.environment_id
    left join deployment_snapshots snap on snap.execution_id = l.execution_id and snap.service_id = l.service_id
    where l.execution_id = ${executionId}`

  return {
    /** The last `limit` lines of a deployment, oldest first. */
    async last(executionId: string, limit: number): Promise<LogLine[]> {
      const { rows } = await sql<LogLine>`select * from (${lines(executionId)} order by l.id desc limit ${limit}) t order by t.id::bigint`.execute(db)
      return rows
    },

    /** The lines written after the line `afterId`, oldest first, at most `limit`. */
    async after(executionId: string, afterId: string, limit: number): Promise<LogLine[]> {
      const { rows } = await sql<LogLine>`${lines(executionId)} and l.id > ${afterId}::bigint order by l.id limit ${limit}`.execute(db)
      return rows
    },

    /** A deployment of the environment by its id, or the environment's newest when none is named; with whether it is finished. */
    async findRun(
      environmentId: string,
      executionId: string | undefined,
    ): Promise<{ id: string; organizationId: string; finished: boolean } | undefined> {
      let query = db
        .selectFrom('deploymentRequests')
        .select(['id', 'organizationId', sql<boolean>`action_status not in ('QUEUED', 'ONGOING', 'CANCELING')`.as('finished')])
        .where('environmentId', '=', environmentId)
      query = executionId === undefined ? query.orderBy('seq', 'desc').limit(1) : query.where('id', '=', executionId)
      return query.executeTakeFirst()
    },
  }
}

export type DeploymentLogsRepository = ReturnType<typeof createDeploymentLogsRepository>
