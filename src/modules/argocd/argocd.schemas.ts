import { type Static, Type } from 'typebox'
import { CLOUD_PROVIDERS, KUBERNETES_MODES } from '#src/modules/clusters/clusters.schemas.ts'
import { associatedServicesList } from '#src/platform/associated-services.ts'
import { DateTime, Enum, Nullable, OrganizationParams, Uuid } from '#src/platform/http/common-schemas.ts'

// The reference's ArgoCD family: credentials, connection check, destination cluster mappings, the
// applications as services, their manifest, and a cluster's associated services.

export const ClusterIdParams = Type.Object({ clusterId: Uuid })
export const ArgoCdAppParams = Type.Object({ argocdAppId: Uuid })
export { OrganizationParams }

export const ArgoCdCredentialsRequest = Type.Object(
  {
    argocd_url: Type.String({
      minLength: 1,
      maxLength: 2048,
      description:
        'The URL of the ArgoCD instance (e.g. https://argocd.example.com); a private or in-cluster address only with BERTH_ALLOW_PRIVATE_URLS=true',
    }),
    argocd_token: Type.String({ minLength: 1, maxLength: 16_384, description: 'ArgoCD API authentication token; sealed at rest, never returned' }),
  },
  { title: 'ArgoCdCredentialsRequest' },
)
export type ArgoCdCredentialsRequest = Static<typeof ArgoCdCredentialsRequest>

export const ArgoCdCredentialsResponse = Type.Object(
  {
    id: Uuid,
    cluster_id: Uuid,
    argocd_url: Type.String(),
    argocd_token: Type.String({ description: 'Always returned as REDACTED' }),
    last_checked_at: Type.Optional(Nullable(DateTime)),
    created_at: DateTime,
    updated_at: DateTime,
  },
  { title: 'ArgoCdCredentialsResponse' },
)

const ConnectionStatus = Enum(['connected', 'error'] as const, 'ArgoCdConnectionStatusEnum', 'Connection status of an ArgoCD instance')

export const ArgoCdConnectionCheckResponse = Type.Object(
  {
    status: ConnectionStatus,
    app_count: Type.Optional(
      Type.Integer({ description: 'Number of ArgoCD applications visible with the provided token. Present only when status is "connected".' }),
    ),
    reason: Type.Optional(
      Type.Unsafe<'authentication_failed' | 'unreachable' | 'insufficient_permissions'>({
        type: 'string',
        enum: ['authentication_failed', 'unreachable', 'insufficient_permissions'],
        description: 'Failure reason. Present only when status is "error".',
      }),
    ),
  },
  { title: 'ArgoCdConnectionCheckResponse' },
)
export type ArgoCdConnectionCheckResponse = Static<typeof ArgoCdConnectionCheckResponse>

export const ArgoCdDestinationClusterMappingRequest = Type.Object(
  {
    agent_cluster_id: Type.String({ format: 'uuid', description: 'ID of the cluster where the ArgoCD instance is running' }),
    argocd_cluster_url: Type.String({ minLength: 1, maxLength: 2048, description: 'ArgoCD destination cluster URL as reported by ArgoCD' }),
    cluster_id: Type.String({ format: 'uuid', description: 'ID of the cluster to map this ArgoCD destination to' }),
  },
  { title: 'ArgoCdDestinationClusterMappingRequest' },
)
export type ArgoCdDestinationClusterMappingRequest = Static<typeof ArgoCdDestinationClusterMappingRequest>

export const ArgoCdDestinationClusterMappingResponse = Type.Object(
  { agent_cluster_id: Uuid, argocd_cluster_url: Type.String(), cluster_id: Nullable(Uuid) },
  { title: 'ArgoCdDestinationClusterMappingResponse' },
)

export const DeleteMappingQuery = Type.Object({
  agentClusterId: Type.String({ format: 'uuid', description: 'ID of the cluster where the ArgoCD instance is running' }),
  argocdClusterUrl: Type.String({ minLength: 1, maxLength: 2048, description: 'ArgoCD destination cluster URL as reported by ArgoCD' }),
})

const CloudVendor = Enum(CLOUD_PROVIDERS, 'CloudVendorEnum')
const KubernetesMode = Enum(KUBERNETES_MODES, 'KubernetesEnum')

const LinkedCluster = Type.Object(
  {
    argocd_cluster_url: Type.String(),
    argocd_cluster_name: Type.String({ description: 'the URL (as the reference does today)' }),
    qovery_cluster_id: Uuid,
    qovery_cluster_name: Type.String(),
    qovery_cluster_cloud_provider: CloudVendor,
    qovery_cluster_type: KubernetesMode,
    applications_count: Type.Integer(),
  },
  { title: 'ArgoCdLinkedClusterDetails' },
)
const UnlinkedCluster = Type.Object(
  { argocd_cluster_url: Type.String(), argocd_cluster_name: Type.String(), applications_count: Type.Integer() },
  { title: 'ArgoCdUnlinkedClusterDetails' },
)

export const ArgoCdInstanceMappingResponseList = Type.Object(
  {
    results: Type.Array(
      Type.Object(
        {
          agent_cluster_id: Uuid,
          agent_cluster_name: Type.String(),
          agent_cluster_cloud_provider: CloudVendor,
          credentials_id: Uuid,
          argocd_url: Type.String(),
          status: ConnectionStatus,
          last_checked_at: DateTime,
          linked_clusters: Type.Array(LinkedCluster, { description: 'destinations mapped to a cluster' }),
          unlinked_clusters: Type.Array(UnlinkedCluster, { description: 'destinations the last poll saw that map to no cluster' }),
        },
        { title: 'ArgoCdInstanceMappingResponse' },
      ),
    ),
  },
  { title: 'ArgoCdInstanceMappingResponseList' },
)
export type ArgoCdInstanceMapping = Static<typeof ArgoCdInstanceMappingResponseList>['results'][number]

const GitRepository = Type.Object(
  {
    provider: Enum(['BITBUCKET', 'GITHUB', 'GITLAB'] as const, 'GitProviderEnum'),
    owner: Type.String(),
    name: Type.String(),
    url: Type.String(),
    branch: Type.Optional(Type.String()),
    root_path: Type.Optional(Type.String()),
    deployed_commit_id: Type.Optional(Type.String()),
  },
  { title: 'ApplicationGitRepository' },
)

export const ArgocdAppResponse = Type.Object(
  {
    id: Uuid,
    created_at: DateTime,
    updated_at: Type.Optional(DateTime),
    name: Type.String({ description: "the application's name in Argo CD" }),
    service_type: Enum(['GITOPS_APP'] as const, 'ServiceTypeEnum'),
    namespace: Type.String({ description: "the application's destination namespace" }),
    environment: Type.Object({ id: Uuid }, { title: 'ReferenceObject' }),
    environment_id: Uuid,
    cluster_id: Uuid,
    icon_uri: Type.String({ description: 'Icon URI representing the ArgoCD service.' }),
    last_synced_at: Type.Optional(Nullable(DateTime)),
    manifest_revision: Type.Optional(Nullable(Type.String())),
    git_repository: Type.Optional(Nullable(GitRepository)),
    sync_status: Type.Optional(Nullable(Type.String({ description: "Berth extension: Argo CD's sync status (Synced, OutOfSync, Unknown)" }))),
    health_status: Type.Optional(
      Nullable(
        Type.String({ description: "Berth extension: Argo CD's health status (Healthy, Progressing, Degraded, Suspended, Missing, Unknown)" }),
      ),
    ),
  },
  { title: 'ArgocdAppResponse', description: 'An ArgoCD service' },
)

const ManagedResource = Type.Object(
  {
    kind: Type.Optional(Type.String()),
    name: Type.Optional(Type.String()),
    namespace: Type.Optional(Type.String()),
    targetState: Type.Optional(Type.String({ description: 'JSON-encoded desired Kubernetes manifest' })),
    liveState: Type.Optional(Type.String({ description: 'JSON-encoded live Kubernetes manifest' })),
  },
  { title: 'ArgocdManagedResource' },
)

export const ArgocdAppManifestResponse = Type.Object(
  {
    manifest_revision: Type.Optional(Nullable(Type.String({ description: 'Git revision the app is currently synced to' }))),
    manifest_metadata: Type.Object({ managed_resources: Type.Optional(Type.Array(ManagedResource)) }),
  },
  { title: 'ArgocdAppManifestResponse' },
)

export const ArgocdAssociatedServicesResponseList = associatedServicesList(
  Enum(['GITOPS_APP'] as const, 'ArgocdAssociatedServiceType'),
  'ArgocdAssociatedServicesResponseList',
)
