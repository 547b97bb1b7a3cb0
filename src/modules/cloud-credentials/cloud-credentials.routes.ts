import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { OrganizationParams } from '#src/platform/http/common-schemas.ts'
import {
  ClusterCredentials,
  ClusterCredentialsResponseList,
  CredentialsParams,
  OnPremiseCredentialsRequest,
  OrganizationCredentialsResponseList,
} from './cloud-credentials.schemas.ts'
import type { CloudCredentialsService, CredentialsRecord } from './cloud-credentials.service.ts'

const tags = ['Cloud Provider Credentials']
const CLOUD_PROVIDERS = new Set(['AWS', 'SCW', 'GCP', 'ON_PREMISE', 'AZURE'])
const inUse = Type.Ref('ErrorResponse', { description: 'a cluster names the credentials in its cloud provider info (`conflict`)' })
const taken = Type.Ref('ErrorResponse', { description: 'the name is taken (`conflict`)' })

const toCredentials = (row: CredentialsRecord) => ({ id: row.id, name: row.name, object_type: 'OTHER' as const })

export function cloudCredentialsRoutes(credentials: CloudCredentialsService): FastifyPluginAsyncTypebox {
  return async (app) => {
    const base = '/organization/:organizationId/onPremise/credentials'

    app.get(
      base,
      {
        schema: {
          operationId: 'listOnPremiseCredentials',
          summary: 'List OnPremise credentials',
          description: "The organization's on-premise credentials, by name (at most 1,000).",
          tags,
          params: OrganizationParams,
          response: { 200: ClusterCredentialsResponseList },
        },
      },
      async (req) => ({ results: (await credentials.list(req.principal, req.params.organizationId)).map(toCredentials) }),
    )

    app.post(
      base,
      {
        schema: {
          operationId: 'createOnPremiseCredentials',
          summary: 'Create OnPremise credentials set',
          description:
            'Needs the WRITE role. On-premise credentials are a name (the reference holds no secret for them); a cluster uses them once its cloud provider info names their id (specifyClusterCloudProviderInfo).',
          tags,
          params: OrganizationParams,
          body: OnPremiseCredentialsRequest,
          response: { 201: ClusterCredentials, 409: taken },
        },
      },
      async (req, reply) =>
        reply.code(201).send(toCredentials(await credentials.create(req.principal, req.params.organizationId, req.body.name.trim()))),
    )

    app.get(
      `${base}/:credentialsId`,
      {
        schema: {
          operationId: 'getOnPremiseCredentials',
          summary: 'Get a set of OnPremise credentials',
          tags,
          params: CredentialsParams,
          response: { 200: ClusterCredentials },
        },
      },
      async (req) => toCredentials(await credentials.get(req.principal, req.params.organizationId, req.params.credentialsId)),
    )

    app.put(
      `${base}/:credentialsId`,
      {
        schema: {
          operationId: 'editOnPremiseCredentials',
          summary: 'Edit a set of OnPremise credentials',
          description: 'Needs the WRITE role. Renames them; clusters naming them keep them.',
          tags,
          params: CredentialsParams,
          body: OnPremiseCredentialsRequest,
          response: { 200: ClusterCredentials, 409: taken },
        },
      },
      async (req) => toCredentials(await credentials.edit(req.principal, req.params.organizationId, req.params.credentialsId, req.body.name.trim())),
    )

    app.delete(
      `${base}/:credentialsId`,
      {
        schema: {
          operationId: 'deleteOnPremiseCredentials',
          summary: 'Delete a set of OnPremise credentials',
          description: 'Needs the WRITE role. Refused with 409, naming them, while clusters use the credentials.',
          tags,
          params: CredentialsParams,
          response: { 204: Type.Null({ description: 'deleted' }), 409: inUse },
        },
      },
      async (req, reply) => {
        await credentials.delete(req.principal, req.params.organizationId, req.params.credentialsId)
        return reply.code(204).send(null)
      },
    )

    app.get(
      '/organization/:organizationId/credentials',
      {
        schema: {
          operationId: 'listOrganizationCredentials',
          summary: 'List credentials of an organization and their associated clusters',
          description:
            "The organization's cloud credentials (on Berth, its on-premise credentials), by name, each with the clusters whose cloud provider info names it.",
          tags: ['Organization Main Calls'],
          params: OrganizationParams,
          response: { 200: OrganizationCredentialsResponseList },
        },
      },
      async (req) => ({
        results: (await credentials.withClusters(req.principal, req.params.organizationId)).map(({ credential, clusters }) => ({
          credential: toCredentials(credential),
          clusters: clusters.map((cluster) => ({
            id: cluster.id,
            name: cluster.name,
            ...(CLOUD_PROVIDERS.has(cluster.cloudProvider) ? { cloud_provider: cluster.cloudProvider as 'ON_PREMISE' } : {}),
          })),
        })),
      }),
    )
  }
}
