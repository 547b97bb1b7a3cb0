// The mappings of an Argo CD's destinations to Berth clusters: set, deleted, and listed per Argo CD with the destinations left unmapped.
import type { OrganizationsService } from '#src/modules/organizations/organizations.service.ts'
import type { Principal } from '#src/platform/auth/principal.ts'
import type { Role } from '#src/platform/auth/roles.ts'
import { notFound, validationFailed } from '#src/platform/http/errors.ts'
import type { ArgoCdRepository, ClusterSummary } from './argocd.repository.ts'
import type { ArgoCdInstanceMapping } from './argocd.schemas.ts'

interface MappingsDeps {
  repo: ArgoCdRepository
  organizations: OrganizationsService
  /** The service's check of a cluster: 404 for another organization's, 403 for a role too low. */
  requireCluster(principal: Principal, clusterId: string, needed: Role): Promise<ClusterSummary>
}

export function createArgoCdMappings({ repo, organizations, requireCluster }: MappingsDeps) {
  return {
    /** Maps one agent cluster's Argo CD destination to a Berth cluster; both clusters of the organization, ADMIN on the agent. */
    async saveMapping(
      principal: Principal,
      organizationId: string,
      body: { agent_cluster_id: string; argocd_cluster_url: string; cluster_id: string },
    ) {
      await organizations.requireAccess(principal, organizationId, 'READ')
      const agent = await requireCluster(principal, body.agent_cluster_id, 'ADMIN')
      const target = await repo.clusterById(body.cluster_id)
      if (agent.organizationId !== organizationId) throw notFound('cluster')
      if (!target || target.organizationId !== organizationId) {
        throw validationFailed([{ path: '/cluster_id', message: 'is not a cluster of this organization', location: 'body' }])
      }
      await repo.saveMapping(organizationId, agent.id, body.argocd_cluster_url, target.id)
      return { agent_cluster_id: agent.id, argocd_cluster_url: body.argocd_cluster_url, cluster_id: target.id }
    },

    async deleteMapping(principal: Principal, organizationId: string, agentClusterId: string, argocdClusterUrl: string): Promise<void> {
      await organizations.requireAccess(principal, organizationId, 'READ')
      const agent = await requireCluster(principal, agentClusterId, 'ADMIN')
      if (agent.organizationId !== organizationId || !(await repo.deleteMapping(organizationId, agent.id, argocdClusterUrl))) {
        throw notFound('ArgoCD destination cluster mapping')
      }
    },

    /** One entry per Argo CD of the organization: its mapped destinations, and those the last poll saw unmapped. */
    async listMappings(principal: Principal, organizationId: string) {
      await organizations.requireAccess(principal, organizationId, 'READ')
      const [instances, mappings, counts] = await Promise.all([
        repo.listCredentials(organizationId),
        repo.listMappings(organizationId),
        repo.appCounts(organizationId),
      ])
      const countOf = (agent: string, url: string) =>
        Number(counts.find((c) => c.agentClusterId === agent && c.destinationServer === url)?.count ?? 0)
      return instances.map((instance): ArgoCdInstanceMapping => {
        const linked = mappings.filter((m) => m.agentClusterId === instance.clusterId)
        const linkedUrls = new Set(linked.map((m) => m.argocdClusterUrl))
        return {
          agent_cluster_id: instance.clusterId,
          agent_cluster_name: instance.clusterName,
          agent_cluster_cloud_provider: instance.cloudProvider as ArgoCdInstanceMapping['agent_cluster_cloud_provider'],
          credentials_id: instance.id,
          argocd_url: instance.argocdUrl,
          status: instance.status,
          last_checked_at: (instance.lastCheckedAt ?? instance.updatedAt).toISOString(),
          linked_clusters: linked.map((m) => ({
            argocd_cluster_url: m.argocdClusterUrl,
            argocd_cluster_name: m.argocdClusterUrl,
            qovery_cluster_id: m.clusterId,
            qovery_cluster_name: m.clusterName,
            qovery_cluster_cloud_provider: m.cloudProvider as ArgoCdInstanceMapping['agent_cluster_cloud_provider'],
            qovery_cluster_type: m.kubernetes as ArgoCdInstanceMapping['linked_clusters'][number]['qovery_cluster_type'],
            applications_count: countOf(instance.clusterId, m.argocdClusterUrl),
          })),
          unlinked_clusters: counts
            .filter((c) => c.agentClusterId === instance.clusterId && !linkedUrls.has(c.destinationServer))
            .map((c) => ({ argocd_cluster_url: c.destinationServer, argocd_cluster_name: c.destinationServer, applications_count: Number(c.count) })),
        }
      })
    },
  }
}
