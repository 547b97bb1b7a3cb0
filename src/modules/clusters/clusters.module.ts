import { createClustersRepository } from '#src/modules/environments/clusters.repository.ts'
import type { OrganizationsService } from '#src/modules/organizations/organizations.service.ts'
import type { Principal } from '#src/platform/auth/principal.ts'
import type { Db } from '#src/platform/db/database.ts'
import type { SecretBox } from '#src/platform/secrets/secret-box.ts'
import { createClusterAdminService } from './cluster-admin.service.ts'
import { clusterEngines } from './cluster-engines.ts'
import { clusterEvents } from './cluster-events.ts'
import { withClusterLockTables } from './cluster-locks.tables.ts'
import { clusterLogs } from './cluster-logs.ts'
import { createClusterOperationsService } from './cluster-operations.service.ts'
import { createClusterRecordsService } from './cluster-records.service.ts'
import { createClustersService } from './clusters.service.ts'

// The clusters module as services.ts wires it (issue 48): clusters' records, locks and
// administration, over one log book and the engines that answer for each cluster.

export interface ClustersModuleDeps {
  organizations: OrganizationsService
  secrets: SecretBox
  actorName(principal: Principal): Promise<string>
  /** Whether the id names on-premise credentials of the organization (cloud-credentials). */
  onPremiseCredentialsExist(organizationId: string, credentialsId: string): Promise<boolean>
  /** BERTH_EXECUTOR: what the default clusters deploy with, and so what they say. */
  defaultExecutor?: 'SIMULATED' | 'DOCKER' | undefined
  /** BERTH_KUBECTL_PATH: how clusters' API servers are asked; absent: `kubectl`. */
  kubectlPath?: string | undefined
  /** How long one call to a cluster's engine may take (BERTH_GIT_TIMEOUT_MS). */
  timeoutMs: number
  /** BERTH_ALLOW_PRIVATE_URLS: may a kubeconfig's servers lie in the server's own network. */
  allowPrivateUrls: boolean
  /** The front door's domain, when it runs. */
  appsDomain?: string | undefined
  /** Berth's own Caddy's log, when it runs one. */
  frontDoorLogFile?: string | undefined
  listLimit?: number | undefined
}

export function createClustersModule(db: Db, deps: ClustersModuleDeps) {
  const lockDb = withClusterLockTables(db)
  const repo = createClustersRepository(db)
  const engines = clusterEngines({
    secrets: deps.secrets,
    defaultExecutor: deps.defaultExecutor ?? 'SIMULATED',
    kubectlPath: deps.kubectlPath ?? 'kubectl',
    timeoutMs: deps.timeoutMs,
  })
  const logs = clusterLogs(lockDb)
  const operations = createClusterOperationsService({
    log: logs.record,
    db: lockDb,
    organizations: deps.organizations,
    actorName: deps.actorName,
    engineOf: engines.engineOf,
    engineReady: engines.engineReady,
    engineEvents: clusterEvents(engines).list,
  })
  return {
    clusterEngines: engines,
    clusterOperations: operations,
    clusters: createClustersService({
      repo,
      organizations: deps.organizations,
      secrets: deps.secrets,
      allowPrivateAddresses: deps.allowPrivateUrls,
      listLimit: deps.listLimit,
      defaultExecutor: deps.defaultExecutor,
      log: logs.record,
    }),
    clusterRecords: createClusterRecordsService({
      repo,
      organizations: deps.organizations,
      onPremiseCredentialsExist: deps.onPremiseCredentialsExist,
      log: logs.record,
    }),
    clusterAdmin: createClusterAdminService({
      db: lockDb,
      operations,
      logs,
      engines,
      secrets: deps.secrets,
      actorName: deps.actorName,
      appsDomain: deps.appsDomain,
      frontDoorLogFile: deps.frontDoorLogFile,
    }),
  }
}
