import { type Static, type TSchema, Type } from 'typebox'
import { DateTime, Nullable, Uuid } from '#src/platform/http/common-schemas.ts'
import { ListResponse } from '#src/platform/http/lists.ts'

export const CLOUD_PROVIDERS = ['AWS', 'SCW', 'GCP', 'DO', 'AZURE', 'OVH', 'CIVO', 'HETZNER', 'ORACLE', 'IBM', 'ON_PREMISE'] as const
export const KUBERNETES_MODES = ['MANAGED', 'SELF_MANAGED', 'PARTIALLY_MANAGED'] as const
/** Where a cluster's environments deploy (`clusters.executor`). */
export const CLUSTER_EXECUTORS = ['SIMULATED', 'DOCKER', 'KUBERNETES'] as const
export type ClusterExecutor = (typeof CLUSTER_EXECUTORS)[number]

const CloudVendor = Type.Unsafe<(typeof CLOUD_PROVIDERS)[number]>({ type: 'string', enum: [...CLOUD_PROVIDERS], title: 'CloudVendorEnum' })
const KubernetesMode = Type.Unsafe<(typeof KUBERNETES_MODES)[number]>({
  type: 'string',
  enum: [...KUBERNETES_MODES],
  title: 'KubernetesEnum',
  description: 'SELF_MANAGED: a Kubernetes cluster Berth deploys to with its kubeconfig (editClusterKubeconfig)',
})
const Executor = Type.Unsafe<ClusterExecutor>({
  type: 'string',
  enum: [...CLUSTER_EXECUTORS],
  description:
    "Berth's own field: where the cluster's environments deploy. SIMULATED (the simulator), DOCKER (the Docker engine of the " +
    'Berth runners) or KUBERNETES (with helm, through the kubeconfig). Absent: KUBERNETES when `kubernetes` is SELF_MANAGED, else SIMULATED.',
})

const IMAGE_REGISTRY =
  "Berth's own field: the container registry (of the cluster's organization) that images Berth builds for a KUBERNETES cluster " +
  '(applications, jobs built from git) are pushed to, and the cluster pulls them from with its credentials. Absent or null: none, and such services fail to deploy there.'

export const ClusterParams = Type.Object({ organizationId: Uuid, clusterId: Uuid })

export const ClusterRequest = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 255, pattern: '\\S', description: 'case insensitive; unique in the organization' }),
    description: Type.Optional(Nullable(Type.String({ maxLength: 10_000 }))),
    region: Type.String({ minLength: 1, maxLength: 255 }),
    cloud_provider: CloudVendor,
    kubernetes: Type.Optional(KubernetesMode),
    production: Type.Optional(Type.Boolean()),
    executor: Type.Optional(Executor),
    image_registry_id: Type.Optional(Type.Union([Uuid, Type.Null()], { description: IMAGE_REGISTRY })),
  },
  {
    additionalProperties: false,
    title: 'ClusterRequest',
    description:
      'The node, disk, feature and cloud credential fields of the reference are accepted and ignored: Berth provisions no cloud infrastructure.',
  },
)
export type ClusterRequest = Static<typeof ClusterRequest>

const STATES = ['DEPLOYED', 'STOPPED', 'INVALID_CREDENTIALS'] as const
const ClusterState = Type.Unsafe<(typeof STATES)[number]>({
  type: 'string',
  enum: [...STATES],
  description:
    'DEPLOYED or STOPPED: as deployCluster and stopCluster last set it (Berth provisions no infrastructure; a new cluster is DEPLOYED); ' +
    'INVALID_CREDENTIALS: a KUBERNETES cluster without a kubeconfig',
})

export const ClusterResponse = Type.Object(
  {
    id: Uuid,
    created_at: DateTime,
    updated_at: DateTime,
    organization: Type.Object({ id: Uuid }),
    name: Type.String(),
    description: Type.Optional(Type.String()),
    region: Type.String(),
    cloud_provider: CloudVendor,
    kubernetes: KubernetesMode,
    min_running_nodes: Type.Integer(),
    max_running_nodes: Type.Integer(),
    status: ClusterState,
    has_access: Type.Boolean(),
    is_default: Type.Boolean(),
    is_demo: Type.Boolean(),
    production: Type.Boolean(),
    ssh_keys: Type.Array(Type.String()),
    features: Type.Array(Type.Object({})),
    executor: Executor,
    has_kubeconfig: Type.Boolean({ description: "Berth's own field: whether a kubeconfig is stored (it is read with getClusterKubeconfig)" }),
    image_registry_id: Type.Union([Uuid, Type.Null()], { description: IMAGE_REGISTRY }),
  },
  { title: 'Cluster' },
)
export type ClusterResponse = Static<typeof ClusterResponse>
export const ClusterResponseList = ListResponse(ClusterResponse, 'ClusterResponseList')

export const ClusterStatusResponse = Type.Object(
  {
    cluster_id: Uuid,
    status: ClusterState,
    is_deployed: Type.Boolean(),
    reason: Type.Unsafe<'UNSPECIFIED'>({ type: 'string', enum: ['UNSPECIFIED'] }),
    next_k8s_available_version: Type.Null(),
    last_execution_id: Type.Null(),
    cluster_lock: Type.Null(),
    last_deployment_date: Type.Null(),
    kubernetes_version: Type.Union([Type.String(), Type.Null()], {
      description: "Berth's own field: the Kubernetes version of the cluster's API server when a runner last acted on the cluster; null before",
    }),
    kubectl_version: Type.Union([Type.String(), Type.Null()], {
      description:
        "Berth's own field: the version of that runner's kubectl (BERTH_KUBECTL_PATH), which stops and restarts helm releases; null before",
    }),
    kubectl_version_skew: Type.Union([Type.String(), Type.Null()], {
      description:
        "Berth's own field: why that kubectl is outside Kubernetes' skew policy (within one minor version of the API server); null when it is within it, or before a runner saw the cluster",
    }),
  },
  { title: 'ClusterStatus' },
)
export type ClusterStatusResponse = Static<typeof ClusterStatusResponse>
export const ClusterStatusResponseList = Type.Object({ results: Type.Array(ClusterStatusResponse) }, { title: 'ClusterStatusResponseList' })

export const ClusterDeleteQuery = Type.Object({
  deleteMode: Type.Optional(
    Type.Unsafe<'DEFAULT'>({
      type: 'string',
      enum: ['DEFAULT'],
      description: 'DEFAULT only: a cluster is deleted once no environment uses it',
    }),
  ),
})

export const KubeconfigBody = Type.String({ minLength: 1, maxLength: 1_048_576, description: 'the kubeconfig, as YAML' })

const Route = Type.Object(
  {
    destination: Type.String({ minLength: 1, maxLength: 64, description: 'a CIDR block (IPv4 or IPv6)' }),
    target: Type.String({ minLength: 1, maxLength: 255, pattern: '\\S' }),
    description: Type.String({ maxLength: 255 }),
  },
  { additionalProperties: false },
)

export const RoutingTableRequest = Type.Object(
  { routes: Type.Array(Route, { maxItems: 100, description: 'the whole table: it replaces the one stored' }) },
  { additionalProperties: false, title: 'ClusterRoutingTableRequest' },
)
export type RoutingTableRequest = Static<typeof RoutingTableRequest>
export const RoutingTableResponse = Type.Object({ results: Type.Array(Route) }, { title: 'ClusterRoutingTable' })

export const CLOUD_PROVIDER_KINDS = ['AWS', 'SCW', 'GCP', 'ON_PREMISE', 'AZURE'] as const
const CloudProviderKind = Type.Unsafe<(typeof CLOUD_PROVIDER_KINDS)[number]>({
  type: 'string',
  enum: [...CLOUD_PROVIDER_KINDS],
  title: 'CloudProviderEnum',
})
const cloudProviderInfo = (optional: boolean) => {
  const field = <T extends TSchema>(schema: T) => (optional ? Type.Optional(schema) : schema)
  return {
    cloud_provider: Type.Optional(CloudProviderKind),
    credentials: field(
      Type.Object(
        { id: Type.Optional(Uuid), name: Type.Optional(Type.String({ maxLength: 255 })) },
        { additionalProperties: false, description: 'the cloud credentials named; Berth keeps them and uses none' },
      ),
    ),
    region: Type.Optional(Type.String({ maxLength: 255 })),
  }
}
export const CloudProviderInfoRequest = Type.Object(cloudProviderInfo(true), {
  additionalProperties: false,
  title: 'ClusterCloudProviderInfoRequest',
})
export type CloudProviderInfoRequest = Static<typeof CloudProviderInfoRequest>
export const CloudProviderInfoResponse = Type.Object(cloudProviderInfo(false), { title: 'ClusterCloudProviderInfo' })
export type CloudProviderInfoResponse = Static<typeof CloudProviderInfoResponse>

export const DeployClusterQuery = Type.Object({
  dry_run: Type.Optional(Type.Boolean({ description: 'true: nothing changes; the answer is the current status' })),
})
