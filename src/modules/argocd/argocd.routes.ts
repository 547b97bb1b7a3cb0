import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { associatedServicePlace } from '#src/platform/associated-services.ts'
import {
  ArgoCdAppParams,
  ArgoCdConnectionCheckResponse,
  ArgoCdCredentialsRequest,
  ArgoCdCredentialsResponse,
  ArgoCdDestinationClusterMappingRequest,
  ArgoCdDestinationClusterMappingResponse,
  ArgoCdInstanceMappingResponseList,
  ArgocdAppManifestResponse,
  ArgocdAppResponse,
  ArgocdAssociatedServicesResponseList,
  ClusterIdParams,
  DeleteMappingQuery,
  OrganizationParams,
} from './argocd.schemas.ts'
import type { ArgoCdService } from './argocd.service.ts'
import { toArgocdAppResponse, toCredentialsResponse } from './argocd.wire.ts'

// The reference's ArgoCD family, with its paths and operation ids (docs/argocd.md).

const tags = ['ArgoCD']

export function argoCdRoutes(argocd: ArgoCdService): FastifyPluginAsyncTypebox {
  return async (app) => {
    const config = '/cluster/:clusterId/argoCdConfig'
    app.post(
      config,
      {
        schema: {
          operationId: 'saveArgoCdCredentials',
          summary: 'Save ArgoCD credentials for a cluster',
          description:
            'Save or update the ArgoCD URL and authentication token for a cluster. Requires ADMIN role. Berth checks the connection first: a URL or token Argo CD does not take is a 400 with the reason. The token is sealed at rest.',
          tags,
          params: ClusterIdParams,
          body: ArgoCdCredentialsRequest,
          response: { 200: ArgoCdCredentialsResponse },
        },
      },
      async (req) => toCredentialsResponse(await argocd.saveCredentials(req.principal, req.params.clusterId, req.body)),
    )

    app.get(
      config,
      {
        schema: {
          operationId: 'getArgoCdCredentials',
          summary: 'Get ArgoCD credentials for a cluster',
          description: 'Retrieve the stored ArgoCD configuration for a cluster. The token is always returned as REDACTED. Requires VIEWER role.',
          tags,
          params: ClusterIdParams,
          response: { 200: ArgoCdCredentialsResponse },
        },
      },
      async (req) => toCredentialsResponse(await argocd.getCredentials(req.principal, req.params.clusterId)),
    )

    app.delete(
      config,
      {
        schema: {
          operationId: 'deleteArgoCdCredentials',
          summary: 'Delete ArgoCD credentials for a cluster',
          description:
            'Remove the stored ArgoCD configuration for a cluster. Requires ADMIN role. Polling stops, and the services showing its applications go, with the environments they leave empty (docs/argocd.md).',
          tags,
          params: ClusterIdParams,
          response: { 204: Type.Null({ description: 'ArgoCD credentials deleted' }) },
        },
      },
      async (req, reply) => {
        await argocd.deleteCredentials(req.principal, req.params.clusterId)
        return reply.code(204).send(null)
      },
    )

    app.post(
      `${config}/check`,
      {
        schema: {
          operationId: 'checkArgoCdConnection',
          summary: 'Check ArgoCD connection',
          description:
            'Test an ArgoCD URL and token before saving: Berth calls its `/api/version` and `/api/v1/applications` with the token. Always returns HTTP 200 — check the `status` field for the connection outcome. Requires ADMIN role.',
          tags,
          params: ClusterIdParams,
          body: ArgoCdCredentialsRequest,
          response: { 200: ArgoCdConnectionCheckResponse },
        },
      },
      async (req) => argocd.checkConnection(req.principal, req.params.clusterId, req.body),
    )

    const mappings = '/organization/:organizationId/argoCdDestinationClusterMapping'
    app.post(
      mappings,
      {
        schema: {
          operationId: 'saveArgoCdDestinationClusterMapping',
          summary: 'Save an ArgoCD destination cluster mapping',
          description:
            'Map an ArgoCD destination cluster URL to a cluster for a given agent cluster. If a mapping for the same (agentClusterId, argocdClusterUrl) already exists, it is updated. Requires ADMIN role on the agent cluster.',
          tags,
          params: OrganizationParams,
          body: ArgoCdDestinationClusterMappingRequest,
          response: { 200: ArgoCdDestinationClusterMappingResponse },
        },
      },
      async (req) => argocd.saveMapping(req.principal, req.params.organizationId, req.body),
    )

    app.get(
      mappings,
      {
        schema: {
          operationId: 'listArgoCdDestinationClusterMappings',
          summary: 'List ArgoCD instance mappings for an organization',
          description:
            'Returns one entry per ArgoCD agent cluster that has credentials configured. Each entry lists linked clusters (mapped) and unlinked clusters (destinations the last poll saw without a mapping). Requires VIEWER role.',
          tags,
          params: OrganizationParams,
          response: { 200: ArgoCdInstanceMappingResponseList },
        },
      },
      async (req) => ({ results: await argocd.listMappings(req.principal, req.params.organizationId) }),
    )

    app.delete(
      mappings,
      {
        schema: {
          operationId: 'deleteArgoCdDestinationClusterMapping',
          summary: 'Delete an ArgoCD destination cluster mapping',
          description: 'Remove the mapping between an ArgoCD destination cluster URL and a cluster. Requires ADMIN role on the agent cluster.',
          tags,
          params: OrganizationParams,
          querystring: DeleteMappingQuery,
          response: { 204: Type.Null({ description: 'Mapping deleted' }) },
        },
      },
      async (req, reply) => {
        await argocd.deleteMapping(req.principal, req.params.organizationId, req.query.agentClusterId, req.query.argocdClusterUrl)
        return reply.code(204).send(null)
      },
    )

    app.get(
      '/argocdApp/:argocdAppId',
      {
        schema: {
          operationId: 'getArgoCdApp',
          summary: 'Get ArgoCD app by ID',
          description: 'The GITOPS_APP service showing an Argo CD application, with its status as the last poll saw it.',
          tags,
          params: ArgoCdAppParams,
          response: { 200: ArgocdAppResponse },
        },
      },
      async (req) => toArgocdAppResponse(await argocd.getApp(req.principal, req.params.argocdAppId)),
    )

    app.get(
      '/argocdApp/:argocdAppId/manifest',
      {
        schema: {
          operationId: 'getArgoCdAppManifest',
          summary: 'Get ArgoCD app manifest enrichment',
          description:
            "The resources Argo CD manages for the application, with their target and live state, read from Argo CD's managed-resources API.",
          tags,
          params: ArgoCdAppParams,
          response: { 200: ArgocdAppManifestResponse },
        },
      },
      async (req) => argocd.getAppManifest(req.principal, req.params.argocdAppId),
    )

    app.get(
      '/cluster/:clusterId/argocdApps/associatedServices',
      {
        schema: {
          operationId: 'getArgoCdAssociatedServices',
          summary: 'Get ArgoCD associated services for a cluster',
          description:
            'List the ArgoCD discovered apps for a cluster, mapped to their project, environment, and service context. Requires VIEWER role.',
          tags,
          params: ClusterIdParams,
          response: { 200: ArgocdAssociatedServicesResponseList },
        },
      },
      async (req) => ({
        results: (await argocd.associatedServices(req.principal, req.params.clusterId)).map((row) => ({
          ...associatedServicePlace(row),
          service_type: 'GITOPS_APP' as const,
        })),
      }),
    )
  }
}
