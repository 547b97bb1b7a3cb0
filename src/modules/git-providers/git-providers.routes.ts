import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { OrganizationParams } from '#src/platform/http/common-schemas.ts'
import type { GitBranch } from './git-provider-adapter.ts'
import { BranchQuery, GitRepositoryBranchResponseList } from './git-providers.schemas.ts'
import type { GitProvidersService } from './git-providers.service.ts'
import { toBranchResponse } from './git-providers.wire.ts'
import { listingErrors, PROVIDER_ROUTES } from './provider-listing.schemas.ts'

const ERRORS = listingErrors(
  'no such organization or git token in it (`not_found`); the provider has no such repository, or the git token cannot see it (`repository_not_found`)',
)

export function gitProvidersRoutes(gitProviders: GitProvidersService): FastifyPluginAsyncTypebox {
  // A cached listing comes back as the same array: its JSON is made and encoded once (thousands of
  // branches take milliseconds to serialise), and goes when the listing leaves the cache.
  const rendered = new WeakMap<GitBranch[], Buffer>()
  const render = (branches: GitBranch[]) => {
    let body = rendered.get(branches)
    if (body === undefined) {
      body = Buffer.from(JSON.stringify({ results: branches.map(toBranchResponse) }))
      rendered.set(branches, body)
    }
    return body
  }

  return async (app) => {
    for (const { provider, segment, name } of PROVIDER_ROUTES) {
      app.get(
        `/organization/:organizationId/account/${segment}/repository/branch`,
        {
          schema: {
            operationId: `getOrganization${name}RepositoryBranches`,
            summary: `Get ${segment} branches of the specified repository`,
            description:
              `Every branch of the repository at ${name}, read with one of the organization's ${provider} git tokens. ` +
              'Listings are reused for a short while (BERTH_GIT_CACHE_TTL_MS) and until the git token is edited.',
            tags: ['Organization Account Git Repositories'],
            params: OrganizationParams,
            querystring: BranchQuery,
            response: { 200: { ...GitRepositoryBranchResponseList, description: `the branches of the ${segment} repository` }, ...ERRORS },
          },
        },
        async (req, reply) => {
          const query = { repository: req.query.name, gitTokenId: req.query.gitTokenId ?? null }
          const branches = await gitProviders.listBranches(req.principal, req.params.organizationId, provider, query)
          return reply.type('application/json; charset=utf-8').send(render(branches))
        },
      )
    }
  }
}
