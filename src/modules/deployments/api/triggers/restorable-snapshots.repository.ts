import type { ServiceSnapshot } from '#src/modules/services/service-kinds.ts'
import type { Db } from '#src/platform/db/database.ts'
import type { ServiceType } from '#src/platform/deployment-states.ts'
import type { SnapshotVariable } from '#src/platform/snapshot-variable.ts'

// What a rollback restores: the snapshots of an earlier deployment, read from the queue's tables,
// only of the services that deployment deployed successfully.

/** The triggers whose success leaves a service running what its snapshot holds. */
const RESTORABLE_TRIGGERS = ['DEPLOY', 'RESTART'] as const

/**
 * What a deploy asked for beyond the configuration, less what only ran an event once (a forced
 * or scheduled run of a job): restoring a version deploys it, it does not run a tick again.
 */
function restorableOverrides(overrides: Record<string, unknown>): Record<string, unknown> {
  const { forceEvent: _forced, scheduledFor: _scheduled, catchUp: _catchUp, ...kept } = overrides
  return kept
}

export function createRestorableSnapshotsRepository(db: Db) {
  return {
    /**
     * The snapshots of execution `executionId` of the environment whose service entries say
     * SUCCESS for a deploy or a redeploy (with `serviceId`, that service's alone), and whether the
     * execution as a whole succeeded. Undefined when it is no deploy or redeploy of the environment.
     */
    async successfulSnapshots(
      environmentId: string,
      executionId: string,
      serviceId?: string,
    ): Promise<{ succeeded: boolean; snapshots: ServiceSnapshot[] } | undefined> {
      const run = await db
        .selectFrom('deploymentRequests')
        .select(['actionStatus'])
        .where('id', '=', executionId)
        .where('environmentId', '=', environmentId)
        .where('triggerAction', 'in', RESTORABLE_TRIGGERS)
        .executeTakeFirst()
      if (!run) return undefined
      let query = db
        .selectFrom('deploymentSnapshots as snap')
        .innerJoin('serviceDeployments as d', (join) =>
          join.onRef('d.executionId', '=', 'snap.executionId').onRef('d.serviceId', '=', 'snap.serviceId'),
        )
        .selectAll('snap')
        .where('snap.executionId', '=', executionId)
        .where('d.actionStatus', '=', 'SUCCESS')
      if (serviceId !== undefined) query = query.where('snap.serviceId', '=', serviceId)
      const rows = await query.orderBy('snap.serviceId').execute()
      return {
        succeeded: run.actionStatus === 'SUCCESS',
        snapshots: rows.map((row) => ({
          serviceId: row.serviceId,
          kind: row.kind as ServiceType,
          name: row.name,
          version: row.version,
          configuration: row.configuration,
          overrides: restorableOverrides(row.overrides),
          variables: row.variables as SnapshotVariable[],
          variablesFingerprint: row.variablesFingerprint,
          advancedSettings: row.advancedSettings,
          labels: row.labels,
        })),
      }
    },
  }
}

export type RestorableSnapshotsRepository = ReturnType<typeof createRestorableSnapshotsRepository>
