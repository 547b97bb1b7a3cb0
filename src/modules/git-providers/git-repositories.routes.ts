import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { OrganizationParams } from '#src/platform/http/common-schemas.ts'
import { GitAuthProviderResponseList, GitRepositoryResponseList, RepositoryQuery } from './git-repositories.schemas.ts'
import type { GitRepositoriesService } from './git-repositories.service.ts'
import { toAccountResponse, toRepositoryResponse } from './git-repositories.wire.ts'
import { listingErrors, PROVIDER_ROUTES } from './provider-listing.schemas.ts'

const ERRORS = listingErrors(
  "no such organization or git token in it (`not_found`); Bitbucket: no such workspace as the git token's (`repository_not_found`)",
)

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
    for (const { provider, segment, name } of PROVIDER_ROUTES) {
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
