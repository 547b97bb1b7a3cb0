import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { OrganizationParams } from '#src/platform/http/common-schemas.ts'
import { listBody } from '#src/platform/http/lists.ts'
import {
  ClusterDeleteQuery,
  ClusterParams,
  ClusterRequest,
  ClusterResponse,
  ClusterResponseList,
  ClusterStatusResponse,
  ClusterStatusResponseList,
  KubeconfigBody,
} from './clusters.schemas.ts'
import type { ClustersService } from './clusters.service.ts'
import { clusterInput, toClusterResponse, toClusterStatusResponse } from './clusters.wire.ts'

const tags = ['Clusters']
const inUse = Type.Ref('ErrorResponse', { description: 'environments use the cluster, or it is the default one (`conflict`)' })
const YAML = ['application/x-yaml', 'application/yaml', 'text/plain']

export function clustersRoutes(clusters: ClustersService): FastifyPluginAsyncTypebox {
  return async (app) => {
    const base = '/organization/:organizationId/cluster'
    // A kubeconfig is sent as YAML (editClusterKubeconfig); only this plugin reads such bodies.
    app.addContentTypeParser(YAML, { parseAs: 'string', bodyLimit: 1_048_576 }, (_request, body, done) => done(null, body))

    app.get(
      base,
      {
        schema: {
          operationId: 'listOrganizationCluster',
          summary: 'List organization clusters',
          description: "The organization's default cluster first (made on first use), then the others by name.",
          tags,
          params: OrganizationParams,
          response: { 200: ClusterResponseList },
        },
      },
      async (req) => listBody(await clusters.list(req.principal, req.params.organizationId), toClusterResponse),
    )

    app.post(
      base,
      {
        schema: {
          operationId: 'createCluster',
          summary: 'Create a cluster',
          description: 'Needs the WRITE role. `executor` says where its environments deploy.',
          tags,
          params: OrganizationParams,
          body: ClusterRequest,
          response: { 201: ClusterResponse },
        },
      },
      async (req, reply) =>
        reply.code(201).send(toClusterResponse(await clusters.create(req.principal, req.params.organizationId, clusterInput(req.body)))),
    )

    app.get(
      `${base}/status`,
      {
        schema: {
          operationId: 'getOrganizationClusterStatus',
          summary: 'List all clusters statuses',
          tags,
          params: OrganizationParams,
          response: { 200: ClusterStatusResponseList },
        },
      },
      async (req) => ({ results: (await clusters.list(req.principal, req.params.organizationId)).rows.map(toClusterStatusResponse) }),
    )

    app.get(
      `${base}/:clusterId`,
      {
        schema: {
          operationId: 'getCluster',
          summary: 'Get a cluster',
          description: "Berth's own route.",
          tags,
          params: ClusterParams,
          response: { 200: ClusterResponse },
        },
      },
      async (req) => toClusterResponse(await clusters.get(req.principal, req.params.organizationId, req.params.clusterId)),
    )

    app.put(
      `${base}/:clusterId`,
      {
        schema: {
          operationId: 'editCluster',
          summary: 'Edit a cluster',
          description: 'Needs the WRITE role. A full replacement; the kubeconfig is kept.',
          tags,
          params: ClusterParams,
          body: ClusterRequest,
          response: { 200: ClusterResponse },
        },
      },
      async (req) => {
        const { organizationId, clusterId } = req.params
        return toClusterResponse(await clusters.update(req.principal, organizationId, clusterId, clusterInput(req.body)))
      },
    )

    app.delete(
      `${base}/:clusterId`,
      {
        schema: {
          operationId: 'deleteCluster',
          summary: 'Delete a cluster',
          description: "Needs the WRITE role. Refused with 409 while environments use the cluster, and for the organization's default cluster.",
          tags,
          params: ClusterParams,
          querystring: ClusterDeleteQuery,
          response: { 204: Type.Null({ description: 'deleted' }), 409: inUse },
        },
      },
      async (req, reply) => {
        await clusters.delete(req.principal, req.params.organizationId, req.params.clusterId)
        return reply.code(204).send(null)
      },
    )

    app.get(
      `${base}/:clusterId/status`,
      {
        schema: {
          operationId: 'getClusterStatus',
          summary: 'Get cluster status',
          tags,
          params: ClusterParams,
          response: { 200: ClusterStatusResponse },
        },
      },
      async (req) => toClusterStatusResponse(await clusters.get(req.principal, req.params.organizationId, req.params.clusterId)),
    )

    app.get(
      `${base}/:clusterId/kubeconfig`,
      {
        schema: {
          operationId: 'getClusterKubeconfig',
          summary: 'Get cluster kubeconfig',
          description: 'Needs the ADMIN role: the kubeconfig is a credential to the cluster. 404 when none is stored.',
          tags,
          params: ClusterParams,
          response: { 200: Type.String({ description: 'the kubeconfig as stored (application/x-yaml)' }) },
        },
      },
      async (req, reply) => {
        const kubeconfig = await clusters.getKubeconfig(req.principal, req.params.organizationId, req.params.clusterId)
        return reply.type('application/x-yaml').send(kubeconfig)
      },
    )

    app.put(
      `${base}/:clusterId/kubeconfig`,
      {
        schema: {
          operationId: 'editClusterKubeconfig',
          summary: 'Edit cluster kubeconfig',
          description: 'Needs the WRITE role. The body is the kubeconfig (application/x-yaml); it is stored sealed and returned only to ADMIN.',
          tags,
          params: ClusterParams,
          // A YAML body only: other content types reach the service, which refuses them (415) once the
          // caller's role and the cluster are checked, as every other route answers 403 and 404 first.
          body: { content: Object.fromEntries(YAML.map((type) => [type, { schema: KubeconfigBody }])) },
          response: { 204: Type.Null({ description: 'stored' }) },
        },
      },
      async (req, reply) => {
        await clusters.setKubeconfig(req.principal, req.params.organizationId, req.params.clusterId, req.body as unknown)
        return reply.code(204).send(null)
      },
    )
  }
}
