// What the cluster admin parts are handed, and the two answers they share: the cluster checked in its organization, and the domain its services are named under.
import { SIMULATED_LINK_DOMAIN } from '#src/modules/executors/public-hosts.ts'
import type { Principal } from '#src/platform/auth/principal.ts'
import { notFound } from '#src/platform/http/errors.ts'
import type { SecretBox } from '#src/platform/secrets/secret-box.ts'
import { INGRESS_SETTINGS } from './cluster-advanced-settings.ts'
import type { ClusterEngine, ClusterEngines } from './cluster-engines.ts'
import type { ClusterLocksDb } from './cluster-locks.tables.ts'
import type { ClusterLogs } from './cluster-logs.ts'
import type { ClusterOperationsService } from './cluster-operations.service.ts'

export interface ClusterAdminDeps {
  db: ClusterLocksDb
  operations: Pick<ClusterOperationsService, 'requireCluster' | 'engineOf'>
  logs: ClusterLogs
  engines: Pick<ClusterEngines, 'kubectl' | 'docker' | 'timed'>
  secrets: SecretBox
  actorName(principal: Principal): Promise<string>
  /** The front door's domain (BERTH_APPS_DOMAIN) when it runs; the names of Docker clusters' services are under it. */
  appsDomain?: string | undefined
  /** Berth's own Caddy's log (the front door of Docker clusters), when Berth runs it. */
  frontDoorLogFile?: string | undefined
}

export function createClusterAdminBasics({ operations, appsDomain }: ClusterAdminDeps) {
  const inOrganization = async (principal: Principal, organizationId: string, clusterId: string, role: 'READ' | 'WRITE' | 'ADMIN') => {
    const cluster = await operations.requireCluster(principal, clusterId, role)
    if (cluster.organizationId !== organizationId) throw notFound('cluster')
    return cluster
  }

  /** The domain the cluster's services are named under now: a Kubernetes cluster's Ingress apps domain, the front door's for others. */
  function servedDomain(cluster: { advancedSettings: Record<string, unknown> }, engine: ClusterEngine): string {
    if (engine.kind === 'KUBERNETES') {
      const setting = cluster.advancedSettings[INGRESS_SETTINGS.appsDomain]
      return typeof setting === 'string' && setting !== '' ? setting : SIMULATED_LINK_DOMAIN
    }
    return engine.kind === 'DOCKER' && appsDomain ? appsDomain : SIMULATED_LINK_DOMAIN
  }

  return { inOrganization, servedDomain }
}

export type ClusterAdminBasics = ReturnType<typeof createClusterAdminBasics>
