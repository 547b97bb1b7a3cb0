import type { ClusterRow, ClustersRepository } from '#src/modules/environments/clusters.repository.ts'
import { DEFAULT_CLUSTER } from '#src/modules/environments/environments.service.ts'
import { insertOrganizationRecord } from '#src/modules/organizations/organization-records.ts'
import type { OrganizationsService } from '#src/modules/organizations/organizations.service.ts'
import type { Principal } from '#src/platform/auth/principal.ts'
import { violatedForeignKey, whenParentGone, withUniqueName } from '#src/platform/db/errors.ts'
import { AppError, notFound, validationFailed } from '#src/platform/http/errors.ts'
import { type CappedList, capped, DEFAULT_LIST_LIMIT } from '#src/platform/http/lists.ts'
import type { SecretBox } from '#src/platform/secrets/secret-box.ts'
import type { ClusterLogRecorder } from './cluster-logs.ts'
import type { ClusterExecutor } from './clusters.schemas.ts'
import { kubeconfigErrors } from './kubeconfig-rules.ts'

interface Deps {
  repo: ClustersRepository
  organizations: OrganizationsService
  secrets: SecretBox
  /** BERTH_ALLOW_PRIVATE_URLS: whether a kubeconfig's servers may lead to loopback, private, link-local or metadata addresses. */
  allowPrivateAddresses: boolean
  /** The most clusters a list answers with (BERTH_LIST_LIMIT). */
  listLimit?: number
  /** What the default clusters deploy with (BERTH_EXECUTOR), which is what they say; SIMULATED when not given. */
  defaultExecutor?: ClusterExecutor
  /** Where creations and kubeconfig changes are written as the cluster's log lines (cluster-logs.ts). */
  log?: ClusterLogRecorder
}

/** A cluster as created or replaced. */
export interface ClusterInput {
  name: string
  description: string | null
  region: string
  cloudProvider: string
  kubernetes: string
  production: boolean
  executor: ClusterExecutor
  /** Where images built for the cluster are pushed: a container registry of the organization. */
  imageRegistryId: string | null
}

const nameTaken = (name: string) => new AppError('conflict', `a cluster named "${name}" already exists in this organization`)
const inUse = (count: number) =>
  new AppError('conflict', `the cluster is used by ${count} environment(s); delete them or move them to another cluster first`)

export function createClustersService({
  repo,
  organizations,
  secrets,
  allowPrivateAddresses,
  listLimit = DEFAULT_LIST_LIMIT,
  defaultExecutor = 'SIMULATED',
  log = async () => {},
}: Deps) {
  /** A default cluster deploys with BERTH_EXECUTOR whatever its row says (the runner's rule), so it says that. */
  const truthful = (row: ClusterRow): ClusterRow => (row.isDefault ? { ...row, executor: defaultExecutor } : row)

  /**
   * The default cluster exists before any other, and is never deleted: it is made on first use (by
   * environments too), and a cluster of the user's must not hold its name first.
   */
  async function ensureDefault(organizationId: string): Promise<void> {
    if (await repo.findDefault(organizationId)) return
    await whenParentGone(
      () => notFound('organization'),
      () => repo.insertDefaultIfMissing(organizationId, DEFAULT_CLUSTER),
    )
  }

  async function get(principal: Principal, organizationId: string, clusterId: string): Promise<ClusterRow> {
    await organizations.requireRole(principal, organizationId, 'READ')
    const row = await repo.findById(organizationId, clusterId)
    if (!row) throw notFound('cluster')
    return truthful(row)
  }

  const columns = (input: ClusterInput) => ({
    name: input.name,
    description: input.description,
    region: input.region,
    cloudProvider: input.cloudProvider,
    kubernetes: input.kubernetes,
    production: input.production,
    executor: input.executor,
    imageRegistryId: input.imageRegistryId,
  })

  /** A registry named by the request must be the organization's own (a 400: the body is wrong, not the path). */
  async function checkRegistry(organizationId: string, input: ClusterInput): Promise<void> {
    if (input.imageRegistryId && !(await repo.hasContainerRegistry(organizationId, input.imageRegistryId)))
      throw new AppError('bad_request', 'image_registry_id names no container registry of this organization')
  }

  return {
    async list(principal: Principal, organizationId: string): Promise<CappedList<ClusterRow>> {
      await organizations.requireRole(principal, organizationId, 'READ')
      await ensureDefault(organizationId)
      return capped(listLimit, async (limit) => (await repo.list(organizationId, limit)).map(truthful))
    },

    get,

    async create(principal: Principal, organizationId: string, input: ClusterInput): Promise<ClusterRow> {
      await organizations.requireRole(principal, organizationId, 'WRITE')
      await ensureDefault(organizationId)
      await checkRegistry(organizationId, input)
      const row = await insertOrganizationRecord(
        'clusters_name_key',
        () => nameTaken(input.name),
        () => repo.insert(organizationId, columns(input)),
      )
      await log(row, { type: 'info', step: 'Created', message: `cluster created, deploying with ${row.executor}` })
      return row
    },

    /** A full replacement of what the request holds; the kubeconfig is kept (editClusterKubeconfig changes it). A custom role's cluster ADMIN may too. */
    async update(principal: Principal, organizationId: string, clusterId: string, input: ClusterInput): Promise<ClusterRow> {
      await organizations.requireScoped(principal, organizationId, { kind: 'cluster', clusterId }, 'WRITE')
      await checkRegistry(organizationId, input)
      const row = await withUniqueName(
        'clusters_name_key',
        () => nameTaken(input.name),
        () => repo.update(organizationId, clusterId, columns(input)),
      )
      if (!row) throw notFound('cluster')
      return truthful(row)
    },

    async delete(principal: Principal, organizationId: string, clusterId: string): Promise<void> {
      await organizations.requireRole(principal, organizationId, 'WRITE')
      const cluster = await repo.findById(organizationId, clusterId)
      if (!cluster) throw notFound('cluster')
      if (cluster.isDefault) throw new AppError('conflict', "the organization's default cluster is not deleted")
      const result = await repo.deleteUnlessUsed(organizationId, clusterId).catch((error: unknown) => {
        if (violatedForeignKey(error)) return { usedBy: 1 }
        throw error
      })
      if (!result) throw notFound('cluster')
      if (result.usedBy > 0) throw inUse(result.usedBy)
    },

    /** The kubeconfig as stored, for ADMIN only: it is a credential to the cluster. */
    async getKubeconfig(principal: Principal, organizationId: string, clusterId: string): Promise<string> {
      await organizations.requireRole(principal, organizationId, 'ADMIN')
      const row = await repo.findById(organizationId, clusterId)
      if (!row) throw notFound('cluster')
      if (!row.kubeconfigSealed) throw notFound('kubeconfig of the cluster')
      return secrets.open(row.kubeconfigSealed)
    },

    /** `kubeconfig` is the body as the route's YAML schema checked it; anything else (a JSON body) is a 415. */
    async setKubeconfig(principal: Principal, organizationId: string, clusterId: string, kubeconfig: unknown): Promise<void> {
      await organizations.requireScoped(principal, organizationId, { kind: 'cluster', clusterId }, 'WRITE')
      if (!(await repo.findById(organizationId, clusterId))) throw notFound('cluster')
      if (typeof kubeconfig !== 'string')
        throw new AppError('unsupported_media_type', 'send the kubeconfig as YAML (Content-Type: application/x-yaml)')
      const errors = await kubeconfigErrors(kubeconfig, allowPrivateAddresses)
      if (errors.length > 0) throw validationFailed(errors)
      const row = await repo.update(organizationId, clusterId, { kubeconfigSealed: secrets.seal(kubeconfig) })
      if (!row) throw notFound('cluster')
      await log(row, { type: 'info', step: 'RetrieveClusterConfig', message: 'a new kubeconfig was stored' })
    },

    /** For executors, which act for a deployment already allowed: the cluster's kubeconfig in clear, or undefined. */
    async kubeconfigFor(organizationId: string, clusterId: string): Promise<string | undefined> {
      const row = await repo.findById(organizationId, clusterId)
      return row?.kubeconfigSealed ? secrets.open(row.kubeconfigSealed) : undefined
    },
  }
}

export type ClustersService = ReturnType<typeof createClustersService>
