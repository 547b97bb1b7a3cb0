import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { OrganizationParams } from '#src/platform/http/common-schemas.ts'
import { ApiTokenCreated, ApiTokenCreateRequest, ApiTokenList, ApiTokenListQuery, ApiTokenParams } from './api-tokens.schemas.ts'
import type { ApiTokensService } from './api-tokens.service.ts'
import { apiTokenRequest, toApiTokenCreatedResponse, toApiTokenResponse } from './api-tokens.wire.ts'

const tags = ['Organization Api Token']

export function apiTokensRoutes(apiTokens: ApiTokensService): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/organization/:organizationId/apiToken',
      {
        schema: {
          operationId: 'listOrganizationApiTokens',
          summary: 'List organization api tokens',
          description: 'ADMINs see every token of the organization; other roles see the tokens they created. The secret is never returned.',
          tags,
          params: OrganizationParams,
          querystring: ApiTokenListQuery,
          response: { 200: ApiTokenList },
        },
      },
      async (req) => ({ results: (await apiTokens.list(req.principal, req.params.organizationId, req.query)).map(toApiTokenResponse) }),
    )

    app.post(
      '/organization/:organizationId/apiToken',
      {
        schema: {
          operationId: 'createOrganizationApiToken',
          summary: 'Create an organization api token',
          description: 'The token is in this response only. A caller cannot create a token with a role above its own.',
          tags,
          params: OrganizationParams,
          body: ApiTokenCreateRequest,
          response: { 201: ApiTokenCreated },
        },
      },
      async (req, reply) => {
        const created = await apiTokens.create(req.principal, req.params.organizationId, apiTokenRequest(req.body))
        return reply.code(201).send(toApiTokenCreatedResponse(created))
      },
    )

    app.delete(
      '/organization/:organizationId/apiToken/:apiTokenId',
      {
        schema: {
          operationId: 'deleteOrganizationApiToken',
          summary: 'Delete organization api token',
          description: 'The token stops working at once.',
          tags,
          params: ApiTokenParams,
        },
      },
      async (req, reply) => {
        await apiTokens.delete(req.principal, req.params.organizationId, req.params.apiTokenId)
        return reply.code(204).send()
      },
    )
  }
}
