// A cluster's logs: what Berth did to it, and on a Docker cluster the front door's lines of its organization, as Loki answers them.
import { defaultPortHost } from '#src/modules/executors/public-hosts.ts'
import type { Principal } from '#src/platform/auth/principal.ts'
import type { ClusterAdminBasics, ClusterAdminDeps } from './cluster-admin-deps.ts'
import { type ClusterLogLine, frontDoorLines, type LogQuery, organizationFrontDoorLines } from './cluster-logs.ts'

export interface LokiQuery extends LogQuery {
  start: Date | undefined
  end: Date | undefined
  limit: number
  direction: 'forward' | 'backward'
}

const lokiLine = (line: ClusterLogLine) => `${line.type} ${line.step}: ${line.message}${line.errorTag ? ` (${line.errorTag})` : ''}`

export function createClusterLogQueries(
  { db, operations, logs, frontDoorLogFile }: ClusterAdminDeps,
  { inOrganization, servedDomain }: ClusterAdminBasics,
) {
  /**
   * Whether a host is one of the organization's on the front door: a name of one of its services
   * under the apps domain (`z…` or `p{port}-z…`, public-hosts.ts) or one of its services' custom
   * domains (a wildcard one covering its subdomains).
   */
  async function organizationHosts(organizationId: string, domain: string): Promise<(host: string) => boolean> {
    const services = await db.selectFrom('services').select('id').where('organizationId', '=', organizationId).execute()
    const names = new Set(services.map((service) => defaultPortHost(service.id, domain).toLowerCase()))
    const custom = await db.selectFrom('customDomains').select('domain').where('organizationId', '=', organizationId).execute()
    const exact = new Set(custom.map((row) => row.domain.toLowerCase()))
    const wildcards = [...exact].filter((name) => name.startsWith('*.')).map((name) => name.slice(1))
    return (host) =>
      names.has(host.replace(/^p\d+-/, '')) ||
      exact.has(host) ||
      wildcards.some((suffix) => host.endsWith(suffix) && !host.slice(0, -suffix.length).includes('.'))
  }

  return {
    /** READ; what Berth did to the cluster, oldest first. */
    async listLogs(principal: Principal, organizationId: string, clusterId: string): Promise<ClusterLogLine[]> {
      const cluster = await inOrganization(principal, organizationId, clusterId, 'READ')
      return logs.list(cluster.id)
    },

    /** READ; the cluster's lines and, on a Docker cluster, the front door's, as Loki answers a `query_range`. */
    async queryLogs(principal: Principal, clusterId: string, query: LokiQuery): Promise<string> {
      const cluster = await operations.requireCluster(principal, clusterId, 'READ')
      const engine = operations.engineOf(cluster)
      const wanted = (component: string) => !query.components || query.components.has(component)
      const streams: { component: string; lines: { at: Date; line: string }[] }[] = []
      if (wanted('cluster'))
        streams.push({ component: 'cluster', lines: (await logs.list(cluster.id)).map((line) => ({ at: line.createdAt, line: lokiLine(line) })) })
      if (wanted('front-door') && engine.kind === 'DOCKER' && frontDoorLogFile) {
        const isOwnHost = await organizationHosts(cluster.organizationId, servedDomain(cluster, engine))
        streams.push({ component: 'front-door', lines: organizationFrontDoorLines(await frontDoorLines(frontDoorLogFile), isOwnHost) })
      }
      const kept = (at: Date, line: string) =>
        (!query.start || at >= query.start) &&
        (!query.end || at <= query.end) &&
        query.include.every((text) => line.includes(text)) &&
        !query.exclude.some((text) => line.includes(text))
      const ns = (at: Date) => `${BigInt(at.getTime()) * 1_000_000n}`
      let entries = streams.flatMap((stream) =>
        stream.lines.filter(({ at, line }) => kept(at, line)).map((entry) => ({ ...entry, component: stream.component })),
      )
      entries.sort((a, b) => a.at.getTime() - b.at.getTime())
      entries = query.direction === 'backward' ? entries.slice(-query.limit).reverse() : entries.slice(0, query.limit)
      const result = streams
        .map((stream) => ({
          stream: { component: stream.component, cluster_id: cluster.id },
          values: entries.filter((entry) => entry.component === stream.component).map((entry) => [ns(entry.at), entry.line]),
        }))
        .filter((stream) => stream.values.length > 0)
      return JSON.stringify({ status: 'success', data: { resultType: 'streams', result, stats: {} } })
    },
  }
}
