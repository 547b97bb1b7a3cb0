import type { Principal } from '#src/platform/auth/principal.ts'
import type { Role } from '#src/platform/auth/roles.ts'
import type { GitProvider } from '#src/platform/git-provider-names.ts'
import { AppError, notFound, validationFailed } from '#src/platform/http/errors.ts'
import { bitbucket } from './bitbucket.ts'
import type { BranchCache } from './branch-cache.ts'
import type { GitBranch, GitProviderAdapter } from './git-provider-adapter.ts'
import { github } from './github.ts'
import { gitlab } from './gitlab.ts'
import type { ProviderHttp } from './provider-http.ts'

/** The parts of a stored git token that branch listing reads; the secret comes separately. */
export interface GitTokenRecord {
  id: string
  name: string
  type: string
  workspace: string | null
  gitApiUrl: string | null
  updatedAt: Date
}

export interface GitProvidersDeps {
  requireOrganizationRole(principal: Principal, organizationId: string, needed: Role): Promise<unknown>
  listGitTokens(organizationId: string): Promise<GitTokenRecord[]>
  openGitToken(organizationId: string, gitTokenId: string): Promise<{ row: GitTokenRecord; token: string } | undefined>
  cache: BranchCache<GitBranch[]>
  http: ProviderHttp
  /** BERTH_GIT_TIMEOUT_MS: how long one listing may take at the provider, every page included. */
  timeoutMs: number
  adapters?: Record<GitProvider, GitProviderAdapter>
}

/** What a branch listing asks for. */
export interface BranchListingInput {
  /** The repository: `owner/repo`, a GitLab `group/sub/project`, or a repository of the Bitbucket token's workspace. */
  repository: string
  gitTokenId: string | null
}

export const ADAPTERS: Record<GitProvider, GitProviderAdapter> = { GITHUB: github, GITLAB: gitlab, BITBUCKET: bitbucket }

const tokenQueryError = (message: string) => validationFailed([{ path: '/gitTokenId', message, location: 'query' }])

/**
 * The git token a branch listing uses: the one `gitTokenId` names, which must be the organization's
 * (else 404) and of the provider (else 400); without one, the organization's only token of the
 * provider (none or several: 400 saying so).
 */
export function chooseGitToken(provider: GitProvider, gitTokenId: string | null, tokens: GitTokenRecord[], what = 'branches'): GitTokenRecord {
  if (gitTokenId !== null) {
    const token = tokens.find((candidate) => candidate.id === gitTokenId)
    if (!token) throw notFound('git token')
    if (token.type !== provider) throw tokenQueryError(`is a ${token.type} git token; this lists ${provider} ${what}`)
    return token
  }
  const ofProvider = tokens.filter((candidate) => candidate.type === provider)
  if (ofProvider.length === 1) return ofProvider[0]!
  if (ofProvider.length === 0) throw tokenQueryError(`is required: the organization has no ${provider} git token; create one first`)
  const names = ofProvider.slice(0, 5).map((token) => `"${token.name}"`)
  throw tokenQueryError(
    `is required: the organization has ${ofProvider.length} ${provider} git tokens (${names.join(', ')}${ofProvider.length > 5 ? ', …' : ''}); name one`,
  )
}

/** Each branch once: pages read while branches are created or deleted can overlap. */
function uniqueByName(branches: GitBranch[]): GitBranch[] {
  const seen = new Set<string>()
  return branches.filter((branch) => !seen.has(branch.name) && seen.add(branch.name))
}

/**
 * `run` under one deadline of `timeoutMs`: its signal aborts every call when it fires, and the
 * promise fails with 504 then at the latest, whatever is still running, so that requests sharing
 * the listing never wait longer.
 */
export async function withDeadline<T>(timeoutMs: number, timedOut: () => AppError, run: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const deadline = AbortSignal.timeout(timeoutMs)
  let onAbort = () => {}
  const expired = new Promise<never>((_, reject) => {
    onAbort = () => reject(timedOut())
    deadline.addEventListener('abort', onAbort, { once: true })
  })
  try {
    return await Promise.race([run(deadline), expired])
  } catch (error) {
    // A call the deadline aborted fails in its own words; the listing's reason is the deadline.
    throw deadline.aborted ? timedOut() : error
  } finally {
    deadline.removeEventListener('abort', onAbort)
  }
}

export function createGitProvidersService(deps: GitProvidersDeps) {
  const adapters = deps.adapters ?? ADAPTERS

  return {
    /**
     * Every branch of a repository at the provider, read with one of the organization's git tokens.
     * Listings are cached per token version, provider, API and repository: an edited token (a new
     * `updatedAt`) never gets the listing its previous secret or URL made, on any replica.
     */
    async listBranches(principal: Principal, organizationId: string, provider: GitProvider, input: BranchListingInput): Promise<GitBranch[]> {
      await deps.requireOrganizationRole(principal, organizationId, 'READ')
      const chosen = chooseGitToken(provider, input.gitTokenId, await deps.listGitTokens(organizationId))
      const adapter = adapters[provider]
      const repository = adapter.repository(input.repository, chosen.workspace)
      if ('problem' in repository) throw validationFailed([{ path: '/name', message: repository.problem, location: 'query' }])
      const apiRoot = adapter.apiRoot(chosen.gitApiUrl)
      const key = [chosen.id, chosen.updatedAt.getTime(), provider, apiRoot.href, repository.path].join('\n')
      return deps.cache.get(key, chosen.id, async () => {
        const opened = await deps.openGitToken(organizationId, chosen.id)
        if (!opened) throw notFound('git token')
        const timedOut = () =>
          new AppError(
            'gateway_timeout',
            `${adapter.label} did not list the branches of "${repository.path}" within ${deps.timeoutMs} ms (BERTH_GIT_TIMEOUT_MS); try again later`,
          )
        const branches = await withDeadline(deps.timeoutMs, timedOut, (signal) =>
          adapter.listBranches(deps.http, {
            apiRoot: adapter.apiRoot(opened.row.gitApiUrl),
            token: opened.token,
            repository: repository.path,
            signal,
          }),
        )
        return uniqueByName(branches)
      })
    },
  }
}

export type GitProvidersService = ReturnType<typeof createGitProvidersService>
