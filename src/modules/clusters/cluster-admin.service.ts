import { type ClusterAdminDeps, createClusterAdminBasics } from './cluster-admin-deps.ts'
import { createClusterDnsProvider } from './cluster-dns-provider.ts'
import { createClusterEngineAnswers } from './cluster-engine-answers.ts'
import { createClusterLogQueries } from './cluster-log-queries.ts'
import { MAX_LOG_LINES } from './cluster-logs.ts'

// A cluster's logs, DNS provider, upgrade, token and installation values (docs/clusters.md, "Logs,
// DNS provider, upgrade, token"): each asked of Berth's records or of the cluster's engine.

export type { DnsProviderInput, DnsProviderKind, DnsProviderView } from './cluster-dns-provider.ts'
export type { LokiQuery } from './cluster-log-queries.ts'

export function createClusterAdminService(deps: ClusterAdminDeps) {
  const basics = createClusterAdminBasics(deps)
  return {
    ...createClusterLogQueries(deps, basics),
    ...createClusterEngineAnswers(deps, basics),
    ...createClusterDnsProvider(deps, basics),
    MAX_LOG_LINES,
  }
}

export type ClusterAdminService = ReturnType<typeof createClusterAdminService>
