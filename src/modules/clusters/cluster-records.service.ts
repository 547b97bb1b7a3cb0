import { isIP } from 'node:net'
import type { ClusterRow, ClustersRepository } from '#src/modules/environments/clusters.repository.ts'
import type { OrganizationsService } from '#src/modules/organizations/organizations.service.ts'
import type { AdvancedSettings } from '#src/modules/services/advanced-settings/advanced-settings.schemas.ts'
import type { Principal } from '#src/platform/auth/principal.ts'
import type { Role } from '#src/platform/auth/roles.ts'
import { AppError, notFound } from '#src/platform/http/errors.ts'
import { clusterOverrides, defaultClusterSettings, effectiveClusterSettings } from './cluster-advanced-settings.ts'
import type { ClusterLogRecorder } from './cluster-logs.ts'
import type { CloudProviderInfoRequest, RoutingTableRequest } from './clusters.schemas.ts'

// What the Terraform provider's qovery_cluster keeps on a cluster besides its request: advanced
// settings, routing table, cloud provider info, and the state deployCluster and stopCluster set.
// Berth provisions no infrastructure: each is a record, read back as written, acting on nothing.

interface Deps {
  repo: ClustersRepository
  organizations: OrganizationsService
  /** Whether the id names on-premise credentials of the organization (src/modules/cloud-credentials); absent: not checked. */
  onPremiseCredentialsExist?: (organizationId: string, credentialsId: string) => Promise<boolean>
  /** Where deploys and stops are written as the cluster's log lines (cluster-logs.ts). */
  log?: ClusterLogRecorder
}

/** A destination must be a CIDR block: an address and a prefix no longer than the address. */
function isCidr(value: string): boolean {
  const [address = '', prefix, ...rest] = value.split('/')
  const family = isIP(address)
  if (family === 0 || prefix === undefined || rest.length > 0 || !/^\d{1,3}$/.test(prefix)) return false
  return Number(prefix) <= (family === 4 ? 32 : 128)
}

function checkRoutes(routes: RoutingTableRequest['routes']): void {
  const seen = new Set<string>()
  routes.forEach((route, index) => {
    const path = `/routes/${index}/destination`
    const refuse = (message: string) =>
      new AppError('validation_failed', `routes/${index}/destination ${message}`, { errors: [{ path, message, location: 'body' }] })
    if (!isCidr(route.destination)) throw refuse('must be a CIDR block, such as 10.0.0.0/16')
    if (seen.has(route.destination)) throw refuse(`repeats ${route.destination}: a destination has one route`)
    seen.add(route.destination)
  })
}

export function createClusterRecordsService({ repo, organizations, onPremiseCredentialsExist, log = async () => {} }: Deps) {
  async function find(principal: Principal, organizationId: string, clusterId: string, needed: Role): Promise<ClusterRow> {
    await organizations.requireRole(principal, organizationId, needed)
    const row = await repo.findById(organizationId, clusterId)
    if (!row) throw notFound('cluster')
    return row
  }

  /** The row after `write`, or a 404 when the cluster went meanwhile. */
  const written = (row: ClusterRow | undefined): ClusterRow => {
    if (!row) throw notFound('cluster')
    return row
  }

  return {
    find,

    defaultAdvancedSettings: (): AdvancedSettings => defaultClusterSettings(),

    async getAdvancedSettings(principal: Principal, organizationId: string, clusterId: string): Promise<AdvancedSettings> {
      return effectiveClusterSettings((await find(principal, organizationId, clusterId, 'READ')).advancedSettings)
    },

    /** The keys given replace the cluster's; a key set back to its default is no longer stored. */
    async editAdvancedSettings(
      principal: Principal,
      organizationId: string,
      clusterId: string,
      changes: AdvancedSettings,
    ): Promise<AdvancedSettings> {
      await find(principal, organizationId, clusterId, 'WRITE')
      const set = clusterOverrides(changes)
      const reset = Object.keys(changes).filter((key) => !(key in set))
      return effectiveClusterSettings(written(await repo.mergeAdvancedSettings(organizationId, clusterId, set, reset)).advancedSettings)
    },

    async getRoutingTable(principal: Principal, organizationId: string, clusterId: string): Promise<ClusterRow> {
      return find(principal, organizationId, clusterId, 'READ')
    },

    /** The routes given become the whole table. */
    async editRoutingTable(principal: Principal, organizationId: string, clusterId: string, body: RoutingTableRequest): Promise<ClusterRow> {
      await find(principal, organizationId, clusterId, 'WRITE')
      checkRoutes(body.routes)
      const routes = body.routes.map(({ destination, target, description }) => ({ destination, target, description }))
      return written(await repo.update(organizationId, clusterId, { routingTable: JSON.stringify(routes) }))
    },

    /**
     * The info given replaces the stored one. ON_PREMISE credentials must be the organization's own
     * (docs/cloud-credentials.md): the cluster then uses them, and they are not deleted while it does.
     * Other providers' credentials are a record: Berth reaches no cloud.
     */
    async specifyCloudProviderInfo(
      principal: Principal,
      organizationId: string,
      clusterId: string,
      body: CloudProviderInfoRequest,
    ): Promise<ClusterRow> {
      const cluster = await find(principal, organizationId, clusterId, 'WRITE')
      const provider = body.cloud_provider ?? cluster.cloudProvider
      const credentialsId = body.credentials?.id
      if (
        provider === 'ON_PREMISE' &&
        credentialsId &&
        onPremiseCredentialsExist &&
        !(await onPremiseCredentialsExist(organizationId, credentialsId))
      ) {
        const message = 'names no on-premise credentials of this organization (createOnPremiseCredentials)'
        throw new AppError('validation_failed', `credentials.id ${message}`, { errors: [{ path: '/credentials/id', message, location: 'body' }] })
      }
      return written(await repo.update(organizationId, clusterId, { cloudProviderInfo: JSON.stringify(body) }))
    },

    /**
     * Records the cluster as DEPLOYED; it is again at once (nothing is provisioned). A KUBERNETES
     * cluster needs its kubeconfig first: without one it could never come up, and a client waiting
     * for DEPLOYED would wait forever.
     */
    async deploy(principal: Principal, organizationId: string, clusterId: string, dryRun: boolean): Promise<ClusterRow> {
      const row = await find(principal, organizationId, clusterId, 'WRITE')
      if (row.executor === 'KUBERNETES' && !row.kubeconfigSealed)
        throw new AppError('bad_request', 'the cluster has no kubeconfig: give it one with editClusterKubeconfig before deploying it')
      if (dryRun) return row
      await log(row, { type: 'info', step: 'Create', message: 'deploy asked: nothing to provision, the cluster takes deployments' })
      const deployed = written(await repo.update(organizationId, clusterId, { state: 'DEPLOYED' }))
      await log(row, { type: 'info', step: 'Created', message: 'the cluster is DEPLOYED' })
      return deployed
    },

    /** Records the cluster as STOPPED (a 409 when it already is). Its environments are not touched. */
    async stop(principal: Principal, organizationId: string, clusterId: string): Promise<ClusterRow> {
      const row = await find(principal, organizationId, clusterId, 'WRITE')
      if (row.state === 'STOPPED') throw new AppError('conflict', 'the cluster is already stopped')
      const stopped = written(await repo.update(organizationId, clusterId, { state: 'STOPPED' }))
      await log(row, { type: 'info', step: 'Paused', message: 'the cluster is STOPPED (its environments are not stopped)' })
      return stopped
    },
  }
}

export type ClusterRecordsService = ReturnType<typeof createClusterRecordsService>
