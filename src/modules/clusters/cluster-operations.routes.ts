import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { OrganizationParams } from '#src/platform/http/common-schemas.ts'
import { validationFailed } from '#src/platform/http/errors.ts'
import {
  ClusterEnvironmentResponseList,
  ClusterEventsQuery,
  ClusterEventsResponse,
  ClusterIdParams,
  ClusterLock,
  ClusterLockList,
  ClusterLockRequest,
  ClusterReadinessStatus,
} from './cluster-operations.schemas.ts'
import type { ClusterLockRecord, ClusterOperationsService } from './cluster-operations.service.ts'
import { ClusterParams } from './clusters.schemas.ts'

const tags = ['Clusters']

const toLockResponse = (lock: ClusterLockRecord) => ({
  reason: lock.reason,
  ...(lock.ttlInDays === null ? {} : { ttl_in_days: lock.ttlInDays }),
  cluster_id: lock.clusterId,
  locked_at: lock.lockedAt.toISOString(),
  owner_name: lock.ownerName,
  ...(lock.expiresAt ? { expires_at: lock.expiresAt.toISOString() } : {}),
})

export function clusterOperationsRoutes(operations: ClusterOperationsService): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      '/cluster/:clusterId/lock',
      {
        schema: {
          operationId: 'lockCluster',
          summary: 'Lock Cluster',
          description:
            'Needs the WRITE role. While locked (until unlocked, or `ttl_in_days` after), no deployment is queued on the cluster: triggers answer 409 saying why. Locking again replaces the lock. `expires_at` is a Berth extension.',
          tags,
          params: ClusterIdParams,
          body: ClusterLockRequest,
          response: { 200: ClusterLock },
        },
      },
      async (req) => toLockResponse(await operations.lock(req.principal, req.params.clusterId, req.body.reason, req.body.ttl_in_days)),
    )

    app.delete(
      '/cluster/:clusterId/lock',
      {
        schema: {
          operationId: 'unlock-cluster',
          summary: 'Unlock Cluster',
          description: 'Needs the WRITE role. The cluster is unlocked afterwards: unlocking a cluster that is not locked is a 204 too.',
          tags,
          params: ClusterIdParams,
          response: { 204: Type.Null({ description: 'unlocked' }) },
        },
      },
      async (req, reply) => {
        await operations.unlock(req.principal, req.params.clusterId)
        return reply.code(204).send(null)
      },
    )

    app.get(
      '/organization/:organizationId/lock',
      {
        schema: {
          operationId: 'list-cluster-lock',
          summary: 'List locked Cluster by organization',
          description: 'The locks in force (a lock whose time ran out is not listed), oldest first.',
          tags: ['Organization Cluster Lock'],
          params: OrganizationParams,
          response: { 200: ClusterLockList },
        },
      },
      async (req) => ({ results: (await operations.listLocks(req.principal, req.params.organizationId)).map(toLockResponse) }),
    )

    app.get(
      '/cluster/:clusterId/environments',
      {
        schema: {
          operationId: 'get-environments-by-cluster-id',
          summary: 'List environments services by cluster id',
          description: "The cluster's environments, by project and name, each with its services.",
          tags,
          params: ClusterIdParams,
          response: { 200: ClusterEnvironmentResponseList },
        },
      },
      async (req) => ({
        results: (await operations.environments(req.principal, req.params.clusterId)).map((environment) => ({
          environment_id: environment.environmentId,
          environment_name: environment.environmentName,
          project_id: environment.projectId,
          project_name: environment.projectName,
          services: environment.services.map((service) => ({ id: service.id, name: service.name, type: service.kind })),
        })),
      }),
    )

    app.get(
      '/cluster/:clusterId/events',
      {
        schema: {
          operationId: 'get-cluster-kubernetes-events',
          summary: 'List Cluster Kubernetes Events',
          description:
            "Asked of the cluster's engine now: a Kubernetes cluster's events (its API server's, every namespace, with the stored kubeconfig; 409 without one or when it does not answer), a Docker cluster's the Docker engine's events of the containers, networks and volumes of its environments (`kind` is the object's type, `namespace` the environment's id, `reason` the engine's action, `reporting_component` `docker`). The simulator has none. Oldest first, at most 1,000 (the newest).",
          tags,
          params: ClusterIdParams,
          querystring: ClusterEventsQuery,
          response: { 200: ClusterEventsResponse },
        },
      },
      async (req) => {
        const { from_date_time: fromText, to_date_time: toText, node_name, pod_name, reporting_component } = req.query
        const from = new Date(fromText)
        const to = new Date(toText)
        const errors = [
          ...(Number.isNaN(from.getTime()) ? [{ path: '/from_date_time', message: 'is not an ISO-8601 date time', location: 'query' as const }] : []),
          ...(Number.isNaN(to.getTime()) ? [{ path: '/to_date_time', message: 'is not an ISO-8601 date time', location: 'query' as const }] : []),
        ]
        if (errors.length > 0) throw validationFailed(errors)
        const events = await operations.events(req.principal, req.params.clusterId, {
          from,
          to,
          nodeName: node_name,
          podName: pod_name,
          reportingComponent: reporting_component,
        })
        return {
          results: events.map((event) => ({
            created_at: event.createdAt,
            kind: event.kind,
            ...(event.namespace === undefined ? {} : { namespace: event.namespace }),
            name: event.name,
            reason: event.reason,
            message: event.message,
            type: event.type,
            reporting_component: event.reportingComponent,
            count: event.count,
          })),
        }
      },
    )

    app.get(
      '/organization/:organizationId/cluster/:clusterId/isReady',
      {
        schema: {
          operationId: 'getClusterReadinessStatus',
          summary: 'Know if a cluster is ready to be deployed or not',
          description:
            'Asks the engine now: the simulator is always ready, a Docker cluster when the Docker engine answers a ping, a Kubernetes cluster when its API server gives its version with the stored kubeconfig. A locked cluster is not ready.',
          tags,
          params: ClusterParams,
          response: { 200: ClusterReadinessStatus },
        },
      },
      async (req) => ({ is_ready: await operations.readiness(req.principal, req.params.organizationId, req.params.clusterId) }),
    )
  }
}
