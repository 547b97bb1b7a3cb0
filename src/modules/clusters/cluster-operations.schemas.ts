import { Type } from 'typebox'
import { DateTime, Uuid } from '#src/platform/http/common-schemas.ts'

// The reference's shapes of cluster locks, a cluster's environments and its readiness.

export const ClusterIdParams = Type.Object({ clusterId: Uuid })

export const ClusterLockRequest = Type.Object(
  {
    reason: Type.String({ minLength: 1, maxLength: 1024, description: 'why the cluster is locked: deploy attempts show it' }),
    ttl_in_days: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 3650, description: 'the lock ends by itself after so many days; absent: when unlocked' }),
    ),
  },
  { additionalProperties: false, title: 'ClusterLockRequest' },
)

export const ClusterLock = Type.Object(
  {
    reason: Type.String(),
    ttl_in_days: Type.Optional(Type.Integer()),
    cluster_id: Uuid,
    locked_at: DateTime,
    owner_name: Type.String({ description: 'who locked it: a user or `API token <name>`' }),
    expires_at: Type.Optional(DateTime),
  },
  { title: 'ClusterLock' },
)

export const ClusterLockList = Type.Object({ results: Type.Array(ClusterLock) }, { title: 'ClusterLockList' })

export const ClusterEnvironmentResponseList = Type.Object(
  {
    results: Type.Array(
      Type.Object(
        {
          environment_id: Uuid,
          environment_name: Type.String(),
          project_id: Uuid,
          project_name: Type.String(),
          services: Type.Array(
            Type.Object(
              { id: Uuid, name: Type.String(), type: Type.String({ description: 'LinkedServiceTypeEnum: the service kind' }) },
              {
                title: 'ClusterEnvironmentServiceResponse',
              },
            ),
          ),
        },
        { title: 'ClusterEnvironmentResponse' },
      ),
    ),
  },
  { title: 'ClusterEnvironmentResponseList' },
)

export const ClusterReadinessStatus = Type.Object(
  { is_ready: Type.Boolean({ description: 'the engine answers (the Docker engine, the Kubernetes API server) and the cluster is not locked' }) },
  { title: 'ClusterReadinessStatus' },
)

export const ClusterEventsQuery = Type.Object({
  from_date_time: Type.String({ minLength: 1, maxLength: 64, description: 'ISO-8601; the `+` of an offset escaped (`%2B`)' }),
  to_date_time: Type.String({ minLength: 1, maxLength: 64, description: 'ISO-8601; the `+` of an offset escaped (`%2B`)' }),
  node_name: Type.Optional(Type.String({ maxLength: 253 })),
  pod_name: Type.Optional(Type.String({ maxLength: 253, description: 'on Docker: a container name' })),
  reporting_component: Type.Optional(Type.String({ maxLength: 253 })),
})

export const ClusterEventsResponse = Type.Object(
  {
    results: Type.Array(
      Type.Object({
        created_at: Type.String(),
        kind: Type.String(),
        namespace: Type.Optional(Type.String()),
        name: Type.String(),
        reason: Type.String(),
        message: Type.String(),
        type: Type.String({ description: 'Normal or Warning' }),
        reporting_component: Type.String(),
        count: Type.Integer(),
      }),
    ),
  },
  { title: 'ClusterKubernetesEventResponseList' },
)
