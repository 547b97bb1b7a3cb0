import { hasUnfinishedDeployment } from '#src/platform/db/unfinished-deployments.ts'
import type { BackupsDb } from './backups.tables.ts'

/** What both requests and runners read of a database a backup or a restore is for: whether it is being deployed, and its cluster. */
export function createBackupTargetsRepository(db: BackupsDb) {
  return {
    /** Whether a deployment of the service is running (or being canceled). */
    deploymentRunning(serviceId: string): Promise<boolean> {
      return hasUnfinishedDeployment(db, 'serviceDeployments', { serviceId })
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
