import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { organizationResourceRoutes } from '#src/platform/http/organization-resource.routes.ts'
import { GitTokenParams, GitTokenRequest, GitTokenResponse, GitTokenResponseList } from './git-tokens.schemas.ts'
import type { GitTokensService } from './git-tokens.service.ts'
import { gitTokenInput, toGitTokenResponse } from './git-tokens.wire.ts'

export function gitTokensRoutes(gitTokens: GitTokensService): FastifyPluginAsyncTypebox {
  return organizationResourceRoutes(
    {
      segment: 'gitToken',
      param: 'gitTokenId',
      tags: ['Organization Main Calls'],
      schemas: { params: GitTokenParams, request: GitTokenRequest, response: GitTokenResponse, responseList: GitTokenResponseList },
      docs: {
        list: {
          operationId: 'listOrganizationGitTokens',
          summary: 'List organization git tokens',
          description:
            'Ordered by name; at most BERTH_LIST_LIMIT of them (`has_more` says when more exist). The tokens themselves are never returned.',
        },
        create: {
          operationId: 'createGitToken',
          summary: 'Create a git token',
          description: 'Needs the WRITE role. The token is stored encrypted and never returned.',
        },
        get: { operationId: 'getOrganizationGitToken', summary: 'Get organization git token' },
        edit: {
          operationId: 'editGitToken',
          summary: 'Edit a git token',
          description: 'Needs the WRITE role. A full replacement: the token is required and omitted optional fields are cleared.',
        },
        delete: {
          operationId: 'deleteGitToken',
          summary: 'Delete a git token',
          description: 'Needs the WRITE role. Refused with 409 while helm services use the token.',
        },
      },
      inUse: 'helm services use the git token (`conflict`)',
      toInput: gitTokenInput,
      toResponse: toGitTokenResponse,
    },
    gitTokens,
  )
}
