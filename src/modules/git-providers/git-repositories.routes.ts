import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import type { GitProvider } from '#src/platform/git-provider-names.ts'
import { OrganizationParams } from '#src/platform/http/common-schemas.ts'
import { GitAuthProviderResponseList, GitRepositoryResponseList, RepositoryQuery } from './git-repositories.schemas.ts'
import type { GitRepositoriesService } from './git-repositories.service.ts'
import { toAccountResponse, toRepositoryResponse } from './git-repositories.wire.ts'

const PROVIDERS: { provider: GitProvider; segment: string; name: string }[] = [
  { provider: 'GITHUB', segment: 'github', name: 'Github' },
  { provider: 'GITLAB', segment: 'gitlab', name: 'Gitlab' },
  { provider: 'BITBUCKET', segment: 'bitbucket', name: 'Bitbucket' },
]

const error = (description: string, extra: object = {}) => Type.Ref('ErrorResponse', { description, ...extra })

const ERRORS = {
  400: error(
    'an invalid query, or a `gitTokenId` of another provider, or none where the organization has no or several tokens of the provider (`validation_failed`); ' +
      'the provider refused the git token (`git_token_invalid`); the git token’s git_api_url leads to a private address (`bad_request`)',
  ),
  404: error("no such organization or git token in it (`not_found`); Bitbucket: no such workspace as the git token's (`repository_not_found`)"),
  429: error('the provider’s rate limit for the git token is exhausted (`rate_limited`); retry after `Retry-After` seconds', {
    headers: { 'Retry-After': Type.Integer({ description: 'seconds until the provider’s limit resets' }) },
  }),
  502: error('the provider could not be reached, failed, redirected to another host, or answered something unusable (`bad_gateway`)'),
  504: error('the provider did not give every page of the listing within BERTH_GIT_TIMEOUT_MS (`gateway_timeout`)'),
}

const TAGS = ['Organization Account Git Repositories']

/** The reference's getOrganizationGitProviderAccount and getOrganization<Provider>Repositories. */
export function gitRepositoriesRoutes(gitRepositories: GitRepositoriesService): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/organization/:organizationId/account/gitAuthProvider',
      {
        schema: {
          operationId: 'getOrganizationGitProviderAccount',
          summary: 'Get git provider accounts',
          description: "The organization's git tokens, each an account at its provider: the listings below take one as `gitTokenId`.",
          tags: TAGS,
          params: OrganizationParams,
          response: { 200: { ...GitAuthProviderResponseList, description: 'the accounts' }, 404: ERRORS[404] },
        },
      },
      async (req) => ({ results: (await gitRepositories.listAccounts(req.principal, req.params.organizationId)).map(toAccountResponse) }),
    )
    for (const { provider, segment, name } of PROVIDERS) {
      app.get(
        `/organization/:organizationId/account/${segment}/repository`,
        {
          schema: {
            operationId: `getOrganization${name}Repositories`,
            summary: `Get ${segment} repositories of the connected user`,
            description:
              `Every repository one of the organization's ${provider} git tokens can see at ${name}` +
              (provider === 'BITBUCKET' ? " (those of the git token's workspace when it has one)" : '') +
              '. Listings are reused for a short while (BERTH_GIT_CACHE_TTL_MS) and until the git token is edited.',
            tags: TAGS,
            params: OrganizationParams,
            querystring: RepositoryQuery,
            response: { 200: { ...GitRepositoryResponseList, description: `the ${segment} repositories` }, ...ERRORS },
          },
        },
        async (req) => {
          const repositories = await gitRepositories.listRepositories(
            req.principal,
            req.params.organizationId,
            provider,
            req.query.gitTokenId ?? null,
          )
          return { results: repositories.map(toRepositoryResponse) }
        },
      )
    }
  }
}
