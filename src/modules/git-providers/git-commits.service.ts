import type { GitProvider } from '#src/platform/git-provider-names.ts'
import { AppError, notFound } from '#src/platform/http/errors.ts'
import type { BranchCache } from './branch-cache.ts'
import type { GitCommit, GitProviderAdapter } from './git-provider-adapter.ts'
import { ADAPTERS, type GitTokenRecord, withDeadline } from './git-providers.service.ts'
import type { ProviderHttp } from './provider-http.ts'
import { HOOKS_APIS, type RepositoryHook, type WantedHook } from './repository-hooks.ts'

// Commits of the repositories services build from, read at their providers with the organization's
// git tokens: what a deployment builds (its commit resolved at the trigger) and what an application's
// commit listing shows. Callers have checked access to the service already.

export interface GitCommitsDeps {
  listGitTokens(organizationId: string): Promise<GitTokenRecord[]>
  openGitToken(organizationId: string, gitTokenId: string): Promise<{ row: GitTokenRecord; token: string } | undefined>
  /** Look-ups of a full commit id (which never change) and listings, kept as branch listings are (BERTH_GIT_CACHE_*). */
  cache: BranchCache<GitCommit | GitCommit[]>
  http: ProviderHttp
  /** BERTH_GIT_TIMEOUT_MS: how long one look-up may take at the provider, every call included. */
  timeoutMs: number
  adapters?: Record<GitProvider, GitProviderAdapter>
}

/** A repository a service reads, as its configuration names it. */
export interface CommitSource {
  organizationId: string
  provider: GitProvider
  owner: string
  name: string
  /** Null: the organization's only git token of the provider. */
  gitTokenId: string | null
}

/** A full commit id: what it names never changes, so its look-up may be kept. */
const FULL_COMMIT_ID = /^[0-9a-f]{40}$|^[0-9a-f]{64}$/i

export function createGitCommitsService(deps: GitCommitsDeps) {
  const adapters = deps.adapters ?? ADAPTERS

  /** The git token a repository is read with: its own, else the organization's only one of the provider. */
  async function tokenOf(source: CommitSource): Promise<GitTokenRecord> {
    const tokens = await deps.listGitTokens(source.organizationId)
    if (source.gitTokenId !== null) {
      const token = tokens.find((candidate) => candidate.id === source.gitTokenId)
      if (!token) throw notFound('git token')
      return token
    }
    const ofProvider = tokens.filter((candidate) => candidate.type === source.provider)
    if (ofProvider.length === 1) return ofProvider[0]!
    throw new AppError(
      'bad_request',
      `the git repository names no git_token_id and the organization has ${ofProvider.length === 0 ? 'no' : ofProvider.length} ${source.provider} git tokens: ` +
        'Berth reads commits with a git token; give the repository a git_token_id',
    )
  }

  /** Runs `call` at the repository's provider with its token, under one deadline, kept in the cache under `what` when `keep`. */
  async function atProvider<T>(
    source: CommitSource,
    what: string,
    keep: boolean,
    call: (adapter: GitProviderAdapter, request: { apiRoot: URL; token: string; repository: string; signal: AbortSignal }) => Promise<T>,
  ): Promise<T> {
    const adapter = adapters[source.provider]
    const chosen = await tokenOf(source)
    if (chosen.type !== source.provider) {
      throw new AppError('bad_request', `the git repository is on ${source.provider}, but its git token is a ${chosen.type} token; edit the service`)
    }
    const repository = adapter.repository(`${source.owner}/${source.name}`, chosen.workspace)
    if ('problem' in repository) throw new AppError('bad_request', `the git repository's URL ${repository.problem}`)
    const load = async () => {
      const opened = await deps.openGitToken(source.organizationId, chosen.id)
      if (!opened) throw notFound('git token')
      const timedOut = () =>
        new AppError(
          'gateway_timeout',
          `${adapter.label} did not answer for "${repository.path}" within ${deps.timeoutMs} ms (BERTH_GIT_TIMEOUT_MS); try again later`,
        )
      return withDeadline(deps.timeoutMs, timedOut, (signal) =>
        call(adapter, { apiRoot: adapter.apiRoot(opened.row.gitApiUrl), token: opened.token, repository: repository.path, signal }),
      )
    }
    if (!keep) return load()
    const key = [
      'commits',
      chosen.id,
      chosen.updatedAt.getTime(),
      source.provider,
      adapter.apiRoot(chosen.gitApiUrl).href,
      repository.path,
      what,
    ].join('\n')
    return deps.cache.get(key, chosen.id, load as () => Promise<GitCommit | GitCommit[]>) as Promise<T>
  }

  return {
    /**
     * The commit `ref` names (a commit id or a branch; null: the default branch), as the provider
     * describes it. A branch's head is read afresh every time; a full commit id's look-up is kept.
     */
    getCommit: (source: CommitSource, ref: string | null): Promise<GitCommit> =>
      atProvider(source, `commit ${ref ?? ''}`, ref !== null && FULL_COMMIT_ID.test(ref), (adapter, request) =>
        adapter.getCommit(deps.http, { ...request, ref }),
      ),

    /** The newest `limit` commits reachable from `ref` (null: the default branch), newest first; kept for BERTH_GIT_CACHE_TTL_MS. */
    listCommits: (source: CommitSource, ref: string | null, limit: number): Promise<GitCommit[]> =>
      atProvider(source, `list ${limit} ${ref ?? ''}`, true, (adapter, request) => adapter.listCommits(deps.http, { ...request, ref, limit })),

    /** The repository's webhooks, read afresh (docs/git-push.md, "The webhook at the provider"). */
    listHooks: (source: CommitSource): Promise<RepositoryHook[]> =>
      atProvider(source, 'hooks', false, (_adapter, request) => HOOKS_APIS[source.provider].list(deps.http, request)),

    /** Creates Berth's webhook on the repository, or (with `id`) makes that webhook Berth's. */
    putHook: (source: CommitSource, wanted: WantedHook, id?: string): Promise<void> =>
      atProvider(source, 'hook', false, (_adapter, request) => HOOKS_APIS[source.provider].put(deps.http, request, wanted, id)),

    /** The events Berth's webhook needs at the provider, in its words. */
    hookEvents: (provider: GitProvider): readonly string[] => HOOKS_APIS[provider].required,
  }
}

export type GitCommitsService = ReturnType<typeof createGitCommitsService>
