import type { OrganizationsService } from '#src/modules/organizations/organizations.service.ts'
import type { Principal } from '#src/platform/auth/principal.ts'
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
  organizations: Pick<OrganizationsService, 'requireRole'>
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

/** What a listing at a provider reads with: the chosen git token, opened, and its API's root. */
export interface OpenedListing {
  token: string
  apiRoot: URL
  workspace: string | null
}

/**
 * A listing at the provider with the chosen git token (branches, repositories), cached per token
 * version, provider, API and `subject`: an edited token (a new `updatedAt`) never gets the listing
 * its previous secret or URL made, on any replica. `read` runs under one deadline (504 past it,
 * the message saying it did not list `what`); each item comes once, by name, as pages read while
 * items are created or deleted can overlap.
 */
export function cachedListing<T extends { name: string }>(
  deps: Pick<GitProvidersDeps, 'openGitToken' | 'timeoutMs'> & { cache: BranchCache<T[]> },
  organizationId: string,
  listing: { provider: GitProvider; adapter: Pick<GitProviderAdapter, 'label' | 'apiRoot'>; chosen: GitTokenRecord; subject: string; what: string },
  read: (opened: OpenedListing, signal: AbortSignal) => Promise<T[]>,
): Promise<T[]> {
  const { provider, adapter, chosen } = listing
  const key = [chosen.id, chosen.updatedAt.getTime(), provider, adapter.apiRoot(chosen.gitApiUrl).href, listing.subject].join('\n')
  return deps.cache.get(key, chosen.id, async () => {
    const opened = await deps.openGitToken(organizationId, chosen.id)
    if (!opened) throw notFound('git token')
    const timedOut = () =>
      new AppError(
        'gateway_timeout',
        `${adapter.label} did not list ${listing.what} within ${deps.timeoutMs} ms (BERTH_GIT_TIMEOUT_MS); try again later`,
      )
    const items = await withDeadline(deps.timeoutMs, timedOut, (signal) =>
      read({ token: opened.token, apiRoot: adapter.apiRoot(opened.row.gitApiUrl), workspace: opened.row.workspace }, signal),
    )
    const seen = new Set<string>()
    return items.filter((item) => !seen.has(item.name) && seen.add(item.name))
  })
}

export function createGitProvidersService(deps: GitProvidersDeps) {
  const adapters = deps.adapters ?? ADAPTERS

  return {
    /**
     * Every branch of a repository at the provider, read with one of the organization's git tokens,
     * cached per repository (cachedListing).
     */
    async listBranches(principal: Principal, organizationId: string, provider: GitProvider, input: BranchListingInput): Promise<GitBranch[]> {
      await deps.organizations.requireRole(principal, organizationId, 'READ')
      const chosen = chooseGitToken(provider, input.gitTokenId, await deps.listGitTokens(organizationId))
      const adapter = adapters[provider]
      const repository = adapter.repository(input.repository, chosen.workspace)
      if ('problem' in repository) throw validationFailed([{ path: '/name', message: repository.problem, location: 'query' }])
      return cachedListing(
        deps,
        organizationId,
        { provider, adapter, chosen, subject: repository.path, what: `the branches of "${repository.path}"` },
        (opened, signal) => adapter.listBranches(deps.http, { apiRoot: opened.apiRoot, token: opened.token, repository: repository.path, signal }),
      )
    },
  }
}

export type GitProvidersService = ReturnType<typeof createGitProvidersService>
