import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest } from 'fastify'
import { OrganizationParams } from '#src/platform/http/common-schemas.ts'
import { listBody } from '#src/platform/http/lists.ts'
import { admitAll, type MintAdmission } from '#src/platform/http/rate-limits.ts'
import { ApiTokenCreated, ApiTokenCreateRequest, ApiTokenList, ApiTokenListQuery, ApiTokenParams } from './api-tokens.schemas.ts'
import type { ApiTokensService } from './api-tokens.service.ts'
import { apiTokenRequest, toApiTokenCreatedResponse, toApiTokenResponse } from './api-tokens.wire.ts'

const tags = ['Organization Api Token']

/** `mintAdmission` gives a request's minting limit (rate-limits.ts). */
export function apiTokensRoutes(
  apiTokens: ApiTokensService,
  mintAdmission: (request: FastifyRequest) => MintAdmission = () => admitAll,
): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/organization/:organizationId/apiToken',
      {
        schema: {
          operationId: 'listOrganizationApiTokens',
          summary: 'List organization api tokens',
          description:
            'ADMINs see every token of the organization; other roles see the tokens they created. The secret is never returned. ' +
            "`created_by` (an extension) names each token's creator. Oldest first; at most BERTH_LIST_LIMIT of them (`has_more` says when more exist).",
          tags,
          params: OrganizationParams,
          querystring: ApiTokenListQuery,
          response: { 200: ApiTokenList },
        },
      },
      async (req) => listBody(await apiTokens.list(req.principal, req.params.organizationId, req.query), toApiTokenResponse),
    )

    app.post(
      '/organization/:organizationId/apiToken',
      {
        schema: {
          operationId: 'createOrganizationApiToken',
          summary: 'Create an organization api token',
          description:
            'The token is in this response only. A caller cannot create a token with a role above its own. ' +
            'At most BERTH_TOKEN_MINTS_PER_MINUTE tokens and organizations are minted a minute per tree of organizations (429 past it).',
          tags,
          params: OrganizationParams,
          body: ApiTokenCreateRequest,
          response: { 201: ApiTokenCreated },
        },
      },
      async (req, reply) => {
        const created = await apiTokens.create(req.principal, req.params.organizationId, apiTokenRequest(req.body), mintAdmission(req))
        return reply.code(201).send(toApiTokenCreatedResponse(created))
      },
    )

    app.delete(
      '/organization/:organizationId/apiToken/:apiTokenId',
      {
        schema: {
          operationId: 'deleteOrganizationApiToken',
          summary: 'Delete organization api token',
          description: 'The token stops working at once, and so do the tokens it created, and theirs, in every organization.',
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
