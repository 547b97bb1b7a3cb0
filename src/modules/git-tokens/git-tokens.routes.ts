import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { OrganizationParams } from '#src/platform/http/common-schemas.ts'
import { listBody } from '#src/platform/http/lists.ts'
import { GitTokenParams, GitTokenRequest, GitTokenResponse, GitTokenResponseList } from './git-tokens.schemas.ts'
import type { GitTokensService } from './git-tokens.service.ts'
import { gitTokenInput, toGitTokenResponse } from './git-tokens.wire.ts'

const tags = ['Organization Main Calls']
const inUse = Type.Ref('ErrorResponse', { description: 'helm services use the git token (`conflict`)' })

export function gitTokensRoutes(gitTokens: GitTokensService): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/organization/:organizationId/gitToken',
      {
        schema: {
          operationId: 'listOrganizationGitTokens',
          summary: 'List organization git tokens',
          description:
            'Ordered by name; at most BERTH_LIST_LIMIT of them (`has_more` says when more exist). The tokens themselves are never returned.',
          tags,
          params: OrganizationParams,
          response: { 200: GitTokenResponseList },
        },
      },
      async (req) => listBody(await gitTokens.list(req.principal, req.params.organizationId), toGitTokenResponse),
    )

    app.post(
      '/organization/:organizationId/gitToken',
      {
        schema: {
          operationId: 'createGitToken',
          summary: 'Create a git token',
          description: 'Needs the WRITE role. The token is stored encrypted and never returned.',
          tags,
          params: OrganizationParams,
          body: GitTokenRequest,
          response: { 201: GitTokenResponse },
        },
      },
      async (req, reply) => {
        const created = await gitTokens.create(req.principal, req.params.organizationId, gitTokenInput(req.body))
        return reply.code(201).send(toGitTokenResponse(created))
      },
    )

    app.get(
      '/organization/:organizationId/gitToken/:gitTokenId',
      {
        schema: {
          operationId: 'getOrganizationGitToken',
          summary: 'Get organization git token',
          tags,
          params: GitTokenParams,
          response: { 200: GitTokenResponse },
        },
      },
      async (req) => toGitTokenResponse(await gitTokens.get(req.principal, req.params.organizationId, req.params.gitTokenId)),
    )

    app.put(
      '/organization/:organizationId/gitToken/:gitTokenId',
      {
        schema: {
          operationId: 'editGitToken',
          summary: 'Edit a git token',
          description: 'Needs the WRITE role. A full replacement: the token is required and omitted optional fields are cleared.',
          tags,
          params: GitTokenParams,
          body: GitTokenRequest,
          response: { 200: GitTokenResponse },
        },
      },
      async (req) =>
        toGitTokenResponse(await gitTokens.update(req.principal, req.params.organizationId, req.params.gitTokenId, gitTokenInput(req.body))),
    )

    app.delete(
      '/organization/:organizationId/gitToken/:gitTokenId',
      {
        schema: {
          operationId: 'deleteGitToken',
          summary: 'Delete a git token',
          description: 'Needs the WRITE role. Refused with 409 while helm services use the token.',
          tags,
          params: GitTokenParams,
          response: { 204: Type.Null({ description: 'deleted' }), 409: inUse },
        },
      },
      async (req, reply) => {
        await gitTokens.delete(req.principal, req.params.organizationId, req.params.gitTokenId)
        return reply.code(204).send(null)
      },
    )
  }
}
