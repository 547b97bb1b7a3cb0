import type { BranchCache } from './branch-cache.ts'
import { createBranchCache } from './branch-cache.ts'
import { createGitCommitsService } from './git-commits.service.ts'
import type { GitBranch, GitCommit } from './git-provider-adapter.ts'
import { createGitProvidersService, type GitProvidersDeps } from './git-providers.service.ts'
import { createGitRepositoriesService } from './git-repositories.service.ts'
import type { GitRepositoryItem } from './git-repositories.ts'
import { createProviderHttp } from './provider-http.ts'

// The git providers module as services.ts wires it: branch, repository and commit listings at the
// providers, over one set of connections, each listing with its own cache.

/** The listings' caches; a git token's edit or delete drops what was listed with it. */
export interface GitListingCaches {
  branches: BranchCache<GitBranch[]>
  /** Commits services build (applications): look-ups of full commit ids and listings. */
  commits: BranchCache<GitCommit | GitCommit[]>
  repositories: BranchCache<GitRepositoryItem[]>
  dropGitToken(gitTokenId: string): void
}

export function createGitListingCaches(settings: { cacheTtlMs: number; cacheMaxEntries: number }): GitListingCaches {
  const options = { ttlMs: settings.cacheTtlMs, maxEntries: settings.cacheMaxEntries }
  const caches = {
    branches: createBranchCache<GitBranch[]>(options),
    commits: createBranchCache<GitCommit | GitCommit[]>(options),
    repositories: createBranchCache<GitRepositoryItem[]>(options),
  }
  return {
    ...caches,
    dropGitToken: (gitTokenId) => {
      caches.branches.dropGitToken(gitTokenId)
      caches.commits.dropGitToken(gitTokenId)
      caches.repositories.dropGitToken(gitTokenId)
    },
  }
}

export interface GitProvidersModuleDeps extends Pick<GitProvidersDeps, 'organizations' | 'listGitTokens' | 'openGitToken'> {
  caches: GitListingCaches
  /** BERTH_ALLOW_PRIVATE_URLS: may a provider's API lie in the server's own network. */
  allowPrivateUrls: boolean
  /** BERTH_GIT_TIMEOUT_MS. */
  timeoutMs: number
}

export function createGitProvidersModule({ caches, allowPrivateUrls, ...deps }: GitProvidersModuleDeps) {
  const http = createProviderHttp({ allowPrivateUrls })
  const tokens = { listGitTokens: deps.listGitTokens, openGitToken: deps.openGitToken, http, timeoutMs: deps.timeoutMs }
  return {
    gitProviders: createGitProvidersService({ ...tokens, organizations: deps.organizations, cache: caches.branches }),
    gitRepositories: createGitRepositoriesService({ ...tokens, organizations: deps.organizations, cache: caches.repositories }),
    /** Commits and webhooks of the repositories services build from, at their providers. */
    gitCommits: createGitCommitsService({ ...tokens, cache: caches.commits }),
    /** Closes the connections kept open to git providers. */
    closeGitProviders: () => http.close(),
  }
}
