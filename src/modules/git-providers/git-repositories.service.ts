import type { Principal } from '#src/platform/auth/principal.ts'
import type { GitProvider } from '#src/platform/git-provider-names.ts'
import type { BranchCache } from './branch-cache.ts'
import { ADAPTERS, cachedListing, chooseGitToken, type GitProvidersDeps } from './git-providers.service.ts'
import { type GitRepositoryItem, type ListRepositories, REPOSITORY_LISTINGS } from './git-repositories.ts'

/** What the repository listings need: the branch listing's token access and HTTP, with a cache of their own. */
export interface GitRepositoriesDeps extends Pick<GitProvidersDeps, 'organizations' | 'listGitTokens' | 'openGitToken' | 'http' | 'timeoutMs'> {
  cache: BranchCache<GitRepositoryItem[]>
  listings?: Record<GitProvider, ListRepositories>
}

/** A git token as the reference's GitAuthProvider: an account Berth acts as at a provider. */
export interface GitAccount {
  id: string
  provider: string
  owner: string
}

/** The repositories each of an organization's git tokens can see, and the tokens themselves as accounts. */
export function createGitRepositoriesService(deps: GitRepositoriesDeps) {
  const listings = deps.listings ?? REPOSITORY_LISTINGS

  return {
    /** The organization's git tokens, each an account at its provider (Berth has no OAuth accounts: its git tokens are them). */
    async listAccounts(principal: Principal, organizationId: string): Promise<GitAccount[]> {
      await deps.organizations.requireRole(principal, organizationId, 'READ')
      const tokens = await deps.listGitTokens(organizationId)
      return tokens.map((token) => ({ id: token.id, provider: token.type, owner: token.workspace ?? token.name }))
    },

    /**
     * Every repository one of the organization's git tokens of `provider` can see, following the
     * provider's pages to the end within BERTH_GIT_TIMEOUT_MS. Cached as branch listings are: per
     * token version and API, dropped when the token changes.
     */
    async listRepositories(
      principal: Principal,
      organizationId: string,
      provider: GitProvider,
      gitTokenId: string | null,
    ): Promise<GitRepositoryItem[]> {
      await deps.organizations.requireRole(principal, organizationId, 'READ')
      const chosen = chooseGitToken(provider, gitTokenId, await deps.listGitTokens(organizationId), 'repositories')
      const adapter = ADAPTERS[provider]
      return cachedListing(
        deps,
        organizationId,
        { provider, adapter, chosen, subject: chosen.workspace ?? '', what: "the git token's repositories" },
        (opened, signal) => listings[provider](deps.http, { ...opened, signal }),
      )
    },
  }
}

export type GitRepositoriesService = ReturnType<typeof createGitRepositoriesService>
