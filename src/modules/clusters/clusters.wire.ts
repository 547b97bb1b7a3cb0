import type { ClusterRow } from '#src/modules/environments/clusters.repository.ts'
import { kubectlSkew, parseVersion } from '#src/modules/executors/kubernetes/program-versions.ts'
import { recordHead } from '#src/platform/http/named-resources.ts'
import {
  CLOUD_PROVIDER_KINDS,
  type CloudProviderInfoResponse,
  type ClusterExecutor,
  type ClusterRequest,
  type ClusterResponse,
  type ClusterStatusResponse,
} from './clusters.schemas.ts'
import type { ClusterInput } from './clusters.service.ts'

/**
 * The state stopCluster or deployCluster last recorded (DEPLOYED from the start), except that a
 * deployed KUBERNETES cluster takes deployments only once it has a kubeconfig.
 */
const state = (row: ClusterRow): ClusterStatusResponse['status'] => {
  if (row.state === 'STOPPED') return 'STOPPED'
  return row.executor === 'KUBERNETES' && !row.kubeconfigSealed ? 'INVALID_CREDENTIALS' : 'DEPLOYED'
}

/** A cluster as the reference's `Cluster`; the kubeconfig is never in it. */
export function toClusterResponse(row: ClusterRow): ClusterResponse {
  return {
    ...recordHead(row),
    organization: { id: row.organizationId },
    name: row.name,
    ...(row.description === null ? {} : { description: row.description }),
    region: row.region,
    cloud_provider: row.cloudProvider as ClusterResponse['cloud_provider'],
    kubernetes: row.kubernetes as ClusterResponse['kubernetes'],
    min_running_nodes: 1,
    max_running_nodes: 1,
    status: state(row),
    has_access: true,
    is_default: row.isDefault,
    is_demo: false,
    production: row.production,
    ssh_keys: [],
    features: [],
    executor: row.executor as ClusterExecutor,
    has_kubeconfig: row.kubeconfigSealed !== null,
    image_registry_id: row.imageRegistryId,
  }
}

export function toClusterStatusResponse(row: ClusterRow): ClusterStatusResponse {
  const status = state(row)
  return {
    cluster_id: row.id,
    status,
    is_deployed: status === 'DEPLOYED',
    reason: 'UNSPECIFIED',
    next_k8s_available_version: null,
    last_execution_id: null,
    cluster_lock: null,
    last_deployment_date: null,
    kubernetes_version: row.kubernetesVersion,
    kubectl_version: row.kubectlVersion,
    kubectl_version_skew: versionSkew(row),
  }
}

/** What kubectlSkew says of the versions a runner last saw on the cluster; null when it says nothing, or nothing was seen. */
function versionSkew(row: Pick<ClusterRow, 'kubernetesVersion' | 'kubectlVersion'>): string | null {
  const server = parseVersion(row.kubernetesVersion ?? '')
  const client = parseVersion(row.kubectlVersion ?? '')
  return server && client ? (kubectlSkew(client, server) ?? null) : null
}

export function clusterInput(body: ClusterRequest): ClusterInput {
  const kubernetes = body.kubernetes ?? 'MANAGED'
  return {
    name: body.name.trim(),
    description: body.description ?? null,
    region: body.region,
    cloudProvider: body.cloud_provider,
    kubernetes,
    production: body.production ?? false,
    executor: body.executor ?? (kubernetes === 'SELF_MANAGED' ? 'KUBERNETES' : 'SIMULATED'),
    imageRegistryId: body.image_registry_id ?? null,
  }
}

/**
 * The cloud provider info as specifyClusterCloudProviderInfo last gave it; until then the cluster's
 * own provider and region, and no credentials. `credentials` is always there: the Terraform provider
 * reads its id without checking.
 */
export function toCloudProviderInfo(row: ClusterRow): CloudProviderInfoResponse {
  const info = row.cloudProviderInfo ?? {}
  const provider = info.cloud_provider ?? row.cloudProvider
  return {
    ...((CLOUD_PROVIDER_KINDS as readonly string[]).includes(provider)
      ? { cloud_provider: provider as CloudProviderInfoResponse['cloud_provider'] }
      : {}),
    credentials: info.credentials ?? {},
    region: info.region ?? row.region,
  }
}
