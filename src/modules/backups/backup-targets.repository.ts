import type { BackupsDb } from './backups.tables.ts'

/** What both requests and runners read of a database a backup or a restore is for: whether it is being deployed, and its cluster. */
export function createBackupTargetsRepository(db: BackupsDb) {
  return {
    /** Whether a deployment of the service is running (or being canceled). */
    async deploymentRunning(serviceId: string): Promise<boolean> {
      const row = await db
        .selectFrom('serviceDeployments')
        .select('executionId')
        .where('serviceId', '=', serviceId)
        .where('actionStatus', 'in', ['QUEUED', 'ONGOING', 'CANCELING'])
        .limit(1)
        .executeTakeFirst()
      return row !== undefined
    },
    /** The executor of the environment's cluster, undefined for a default cluster; with its kubeconfig, sealed. */
    clusterOf(environmentId: string) {
      return db
        .selectFrom('environments as e')
        .innerJoin('clusters as c', 'c.id', 'e.clusterId')
        .select(['c.executor', 'c.isDefault', 'c.kubeconfigSealed'])
        .where('e.id', '=', environmentId)
        .executeTakeFirst()
    },
  }
}
