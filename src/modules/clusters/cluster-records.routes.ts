import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { ClusterAdvancedSettingsRequest, ClusterAdvancedSettingsResponse } from './cluster-advanced-settings.ts'
import type { ClusterRecordsService } from './cluster-records.service.ts'
import {
  CloudProviderInfoRequest,
  CloudProviderInfoResponse,
  ClusterParams,
  ClusterStatusResponse,
  DeployClusterQuery,
  RoutingTableRequest,
  RoutingTableResponse,
} from './clusters.schemas.ts'
import { toCloudProviderInfo, toClusterStatusResponse } from './clusters.wire.ts'

// The cluster's advanced settings, routing table, cloud provider info, deploy and stop, with the
// public document's paths and operation ids. Berth provisions no infrastructure: these are records.

const tags = ['Clusters']
const RECORD = 'Berth keeps it and provisions nothing.'

export function clusterRecordsRoutes(records: ClusterRecordsService): FastifyPluginAsyncTypebox {
  return async (app) => {
    const base = '/organization/:organizationId/cluster/:clusterId'
    const ids = (req: { params: { organizationId: string; clusterId: string } }) => [req.params.organizationId, req.params.clusterId] as const

    app.get(
      '/defaultClusterAdvancedSettings',
      {
        schema: {
          operationId: 'getDefaultClusterAdvancedSettings',
          summary: 'List default cluster advanced settings',
          description: 'Every advanced setting of a cluster, with the value it has until it is edited.',
          tags,
          response: { 200: ClusterAdvancedSettingsResponse },
        },
      },
      async () => records.defaultAdvancedSettings(),
    )

    app.get(
      `${base}/advancedSettings`,
      {
        schema: {
          operationId: 'getClusterAdvancedSettings',
          summary: 'Get advanced settings',
          description: `Every advanced setting of the cluster: the defaults overlaid with what it was given. ${RECORD}`,
          tags,
          params: ClusterParams,
          response: { 200: ClusterAdvancedSettingsResponse },
        },
      },
      async (req) => records.getAdvancedSettings(req.principal, ...ids(req)),
    )

    app.put(
      `${base}/advancedSettings`,
      {
        schema: {
          operationId: 'editClusterAdvancedSettings',
          summary: 'Edit advanced settings',
          description:
            "Needs the WRITE role. The keys given replace the cluster's; the others keep their value. A key clusters do not have, or a value of the wrong type or out of range, is a 400 naming it. " +
            RECORD,
          tags,
          params: ClusterParams,
          body: ClusterAdvancedSettingsRequest,
          response: { 201: ClusterAdvancedSettingsResponse },
        },
      },
      async (req, reply) => reply.code(201).send(await records.editAdvancedSettings(req.principal, ...ids(req), req.body as Record<string, unknown>)),
    )

    app.get(
      `${base}/routingTable`,
      {
        schema: {
          operationId: 'getRoutingTable',
          summary: 'Get routing table',
          description: `The routes editRoutingTable last gave, in its order; none at first. ${RECORD}`,
          tags,
          params: ClusterParams,
          response: { 200: RoutingTableResponse },
        },
      },
      async (req) => ({ results: (await records.getRoutingTable(req.principal, ...ids(req))).routingTable }),
    )

    app.put(
      `${base}/routingTable`,
      {
        schema: {
          operationId: 'editRoutingTable',
          summary: 'Edit routing table',
          description: `Needs the WRITE role. The routes given replace the table; each destination is a CIDR block, once. ${RECORD}`,
          tags,
          params: ClusterParams,
          body: RoutingTableRequest,
          response: { 201: RoutingTableResponse },
        },
      },
      async (req, reply) => reply.code(201).send({ results: (await records.editRoutingTable(req.principal, ...ids(req), req.body)).routingTable }),
    )

    app.get(
      `${base}/cloudProviderInfo`,
      {
        schema: {
          operationId: 'getOrganizationCloudProviderInfo',
          summary: 'Get cluster cloud provider info and credentials',
          description: "What specifyClusterCloudProviderInfo last gave; until then the cluster's provider and region, and no credentials.",
          tags,
          params: ClusterParams,
          response: { 200: CloudProviderInfoResponse },
        },
      },
      async (req) => toCloudProviderInfo(await records.find(req.principal, ...ids(req), 'READ')),
    )

    app.post(
      `${base}/cloudProviderInfo`,
      {
        schema: {
          operationId: 'specifyClusterCloudProviderInfo',
          summary: 'Specify cluster cloud provider info and credentials',
          description: `Needs the WRITE role. Replaces the stored info. The credentials are named, never used: ${RECORD}`,
          tags,
          params: ClusterParams,
          body: CloudProviderInfoRequest,
          response: { 201: CloudProviderInfoResponse },
        },
      },
      async (req, reply) => reply.code(201).send(toCloudProviderInfo(await records.specifyCloudProviderInfo(req.principal, ...ids(req), req.body))),
    )

    app.post(
      `${base}/deploy`,
      {
        schema: {
          operationId: 'deployCluster',
          summary: 'Deploy a cluster',
          description:
            'Needs the WRITE role. Records the cluster as DEPLOYED, at once: Berth provisions nothing. A KUBERNETES cluster without a kubeconfig is a 400.',
          tags,
          params: ClusterParams,
          querystring: DeployClusterQuery,
          response: { 201: ClusterStatusResponse },
        },
      },
      async (req, reply) =>
        reply.code(201).send(toClusterStatusResponse(await records.deploy(req.principal, ...ids(req), req.query.dry_run === true))),
    )

    app.post(
      `${base}/stop`,
      {
        schema: {
          operationId: 'StopCluster',
          summary: 'Stop cluster',
          description:
            'Needs the WRITE role. Records the cluster as STOPPED, at once (409 when it already is). Nothing is stopped: its environments keep running and still deploy.',
          tags,
          params: ClusterParams,
          response: { 202: ClusterStatusResponse },
        },
      },
      async (req, reply) => reply.code(202).send(toClusterStatusResponse(await records.stop(req.principal, ...ids(req)))),
    )
  }
}
