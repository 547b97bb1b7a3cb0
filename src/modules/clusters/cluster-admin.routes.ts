import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { validationFailed } from '#src/platform/http/errors.ts'
import {
  ClusterDnsProviderRequest,
  ClusterDnsProviderResponse,
  ClusterLogsQuery,
  ClusterLogsResponse,
  ClusterLogsResponseList,
  ClusterTokenQuery,
  ClusterTokenResponse,
} from './cluster-admin.schemas.ts'
import type { ClusterAdminService } from './cluster-admin.service.ts'
import { lokiTime, parseLogQuery } from './cluster-logs.ts'
import { ClusterIdParams } from './cluster-operations.schemas.ts'
import { ClusterParams, ClusterStatusResponse } from './clusters.schemas.ts'
import { toClusterStatusResponse } from './clusters.wire.ts'

const tags = ['Clusters']
const ENDPOINTS = new Set(['query_range', 'query'])

export function clusterAdminRoutes(admin: ClusterAdminService): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/organization/:organizationId/cluster/:clusterId/logs',
      {
        schema: {
          operationId: 'listClusterLogs',
          summary: 'List Cluster Logs',
          description:
            'What Berth did to the cluster, oldest first (at most the newest 1,000 lines): its creation, deploy and stop, kubeconfig changes, locks, DNS provider and upgrades, with who asked. `details` (and `error` for an error) name the cluster as the transmitter.',
          tags,
          params: ClusterParams,
          response: { 200: ClusterLogsResponseList },
        },
      },
      async (req) => {
        const { organizationId, clusterId } = req.params
        const lines = await admin.listLogs(req.principal, organizationId, clusterId)
        return {
          results: lines.map((line) => {
            const details = { provider_kind: 'berth', region: '', transmitter: { type: 'cluster', id: clusterId, name: '' } }
            return {
              type: line.type,
              timestamp: line.createdAt.toISOString(),
              step: line.step,
              message: { safe_message: line.message },
              ...(line.type === 'error'
                ? { error: { tag: line.errorTag ?? 'UNKNOWN', user_log_message: line.message, event_details: details } }
                : { details }),
            }
          }),
        }
      },
    )

    app.get(
      '/cluster/:clusterId/logs',
      {
        schema: {
          operationId: 'get-cluster-logs',
          summary: 'Fetch cluster logs',
          description:
            "Answers as Loki answers a `query_range` of streams, with the cluster's lines (component `cluster`: listClusterLogs') and, on a Docker cluster whose front door Berth runs, the end of the front door's log (component `front-door`, Caddy's JSON lines). Berth reads a LogQL subset: a `component` selector and `|=`/`!=` line filters; anything else is a 400. READ role.",
          tags,
          params: ClusterIdParams,
          querystring: ClusterLogsQuery,
          response: { 200: ClusterLogsResponse },
        },
      },
      async (req) => {
        const { endpoint, query, start, end, limit, direction } = req.query
        if (!ENDPOINTS.has(endpoint.replace(/^\/?(loki\/api\/v1\/)?/, '')))
          throw validationFailed([{ path: '/endpoint', message: 'Berth answers query_range (and query) only', location: 'query' }])
        const parsed = parseLogQuery(query)
        const response = await admin.queryLogs(req.principal, req.params.clusterId, {
          ...parsed,
          start: lokiTime(start, 'start'),
          end: lokiTime(end, 'end'),
          limit: Math.min(Math.max(Number(limit ?? 100), 1), admin.MAX_LOG_LINES),
          direction: direction ?? 'backward',
        })
        return { response }
      },
    )

    app.get(
      '/organization/:organizationId/cluster/:clusterId/installationHelmValues',
      {
        schema: {
          operationId: 'getInstallationHelmValues',
          summary: 'Get cluster helm values for self managed installation',
          description:
            "A Kubernetes cluster: the values of Berth's chart, which each service's release is installed with (Berth installs no agent), and the domain its Ingress hosts are under. A Docker or simulated cluster: a comment saying Berth installs no chart there, and `{}`.",
          tags,
          params: ClusterParams,
          response: { 200: Type.String({ description: 'helm values (application/x-yaml)' }) },
        },
      },
      async (req, reply) =>
        reply.type('application/x-yaml').send(await admin.installationValues(req.principal, req.params.organizationId, req.params.clusterId)),
    )

    app.get(
      '/cluster/:clusterId/dnsProvider',
      {
        schema: {
          operationId: 'getClusterDnsProvider',
          summary: 'Get cluster DNS provider',
          description:
            "READ role. The provider editClusterDnsProvider gave; until then QOVERY (Berth's own names) under the domain the cluster's services are named under: a Kubernetes cluster's Ingress apps domain, a Docker cluster's front door domain (BERTH_APPS_DOMAIN), else berth.localhost. Secrets are never answered.",
          tags,
          params: ClusterIdParams,
          response: { 200: ClusterDnsProviderResponse },
        },
      },
      async (req) => ({ dns_provider: await admin.getDnsProvider(req.principal, req.params.clusterId) }),
    )

    app.put(
      '/cluster/:clusterId/dnsProvider',
      {
        schema: {
          operationId: 'editClusterDnsProvider',
          summary: 'Edit cluster DNS provider',
          description:
            "WRITE role. Replaces the provider. A Kubernetes cluster's services are named under `domain` from their next deployment (it becomes the cluster's `berth.ingress.apps_domain`). CLOUDFLARE needs `email` and `api_token`, ROUTE53 `aws_region` and STATIC `credentials`; the token and the secret key are sealed at rest, never answered, and given on every edit. Berth writes no DNS record with them.",
          tags,
          params: ClusterIdParams,
          body: ClusterDnsProviderRequest,
          response: { 200: ClusterDnsProviderResponse },
        },
      },
      async (req) => ({ dns_provider: await admin.editDnsProvider(req.principal, req.params.clusterId, req.body.dns_provider) }),
    )

    app.post(
      '/cluster/:clusterId/upgrade',
      {
        schema: {
          operationId: 'upgradeCluster',
          summary: 'Upgrade a cluster',
          description:
            "WRITE role. Asks the cluster's engine its version (a Kubernetes cluster's API server, recorded in the status; the Docker engine's) and records the steps in the cluster's logs. A locked cluster is refused (409), and so is an engine that does not answer; a refused upgrade changes nothing. Berth upgrades no control plane.",
          tags,
          params: ClusterIdParams,
          response: { 201: ClusterStatusResponse },
        },
      },
      async (req, reply) => reply.code(201).send(toClusterStatusResponse(await admin.upgrade(req.principal, req.params.clusterId))),
    )

    app.get(
      '/cluster/:clusterId/token',
      {
        schema: {
          operationId: 'get-cluster-token-by-clusterId',
          summary: 'Get cluster token by clusterId',
          description:
            "ADMIN role. A Kubernetes cluster: the bearer token of its stored kubeconfig's current user, as a client.authentication.k8s.io/v1 ExecCredential; `expirationTimestamp` is the token's `exp` when it is a JWT, else an hour from now (ask again then). 404 without a kubeconfig, 409 when its user has no token (a client certificate, an exec plugin), 400 for a Docker or simulated cluster and for `read_only=true`.",
          tags,
          params: ClusterIdParams,
          querystring: ClusterTokenQuery,
          response: { 200: ClusterTokenResponse },
        },
      },
      async (req) => {
        const { token, expiresAt } = await admin.token(req.principal, req.params.clusterId, req.query.read_only === true)
        return {
          apiVersion: 'client.authentication.k8s.io/v1',
          kind: 'ExecCredential',
          spec: {},
          status: { token, expirationTimestamp: expiresAt.toISOString() },
        }
      },
    )
  }
}
