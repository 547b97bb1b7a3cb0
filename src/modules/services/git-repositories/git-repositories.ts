import type { GitProvider } from '#src/modules/organization-credentials/git-tokens/git-tokens.schemas.ts'
import { bodyError } from '#src/modules/services/field-errors.ts'
import type { ServiceLookups } from '#src/modules/services/service-kinds.ts'
import type { FieldError } from '#src/platform/http/errors.ts'
import type { ApplicationGitRepository, GitRepositoryRequest } from './git-repository.schemas.ts'
import { parseGitUrl } from './git-repository-url.ts'

// A git repository a service reads from (a helm chart, values files, a Dockerfile): its request
// rules, its stored form with what Berth derives from its URL and token, and its response.

export interface GitRepositoryInput {
  url: string
  /** Null: the repository's default branch. */
  branch: string | null
  rootPath: string
  gitTokenId: string | null
  /** Null: from the git token's type, else from the URL's host. */
  provider: GitProvider | null
}

/** A git repository a service reads from, with what Berth derived from its URL and token. */
export interface GitRepositoryRef extends Omit<GitRepositoryInput, 'provider'> {
  provider: GitProvider
  owner: string
  name: string
}

/** A request's repository as the kind's input: defaults filled in. */
export function gitRepositoryInput(repository: GitRepositoryRequest): GitRepositoryInput {
  return {
    url: repository.url.trim(),
    branch: repository.branch ?? null,
    rootPath: repository.root_path || '/',
    gitTokenId: repository.git_token_id ?? null,
    provider: repository.provider ?? null,
  }
}

/** The rules of a request's repository its schema cannot say, each error at `path`'s fields. */
export function checkGitRepository(repository: GitRepositoryRequest, path: string, errors: FieldError[]): void {
  const parsed = parseGitUrl(repository.url.trim())
  if (!parsed) {
    errors.push(bodyError(`${path}/url`, 'must be an http(s) URL of a repository, like https://github.com/owner/repo'))
  } else if (!parsed.secure && repository.git_token_id) {
    errors.push(bodyError(`${path}/url`, 'must be https when a git token is used: the token would travel in clear text'))
  }
  const rootPath = repository.root_path
  if (rootPath != null && rootPath !== '' && (!rootPath.startsWith('/') || rootPath.split('/').includes('..'))) {
    errors.push(bodyError(`${path}/root_path`, 'must start with / and must not contain ..'))
  }
}

/** Checks a repository's git token and derives its provider; owner and name come from the URL. */
export async function resolveGitRepository(
  deps: ServiceLookups,
  organizationId: string,
  repository: GitRepositoryInput,
  path: string,
  errors: FieldError[],
): Promise<GitRepositoryRef> {
  const parsed = parseGitUrl(repository.url)
  const token = repository.gitTokenId === null ? undefined : await deps.findGitToken(organizationId, repository.gitTokenId)
  if (repository.gitTokenId !== null && !token) {
    errors.push({ path: `${path}/git_token_id`, message: 'no git token with this id in the organization', location: 'body' })
  }
  const tokenProvider = token?.type as GitProvider | undefined
  const provider = repository.provider ?? tokenProvider ?? parsed?.hostProvider
  // An unreadable URL is already reported by the request's rules.
  if (parsed && !provider) {
    errors.push({ path: `${path}/url`, message: 'cannot tell the git provider of this host: give provider or a git_token_id', location: 'body' })
  } else if (parsed?.hostProvider && provider !== parsed.hostProvider) {
    const field = repository.provider ? 'provider' : 'git_token_id'
    errors.push({ path: `${path}/${field}`, message: `is ${provider}, but the repository is on ${parsed.hostProvider}`, location: 'body' })
  } else if (tokenProvider && tokenProvider !== provider) {
    errors.push({ path: `${path}/git_token_id`, message: `is a ${tokenProvider} token; the repository is on ${provider}`, location: 'body' })
  }
  return { ...repository, provider: provider ?? 'GITHUB', owner: parsed?.owner ?? '', name: parsed?.name ?? '' }
}

/** A repository as responses show it (`ApplicationGitRepository`). */
export function toGitRepositoryResponse(repository: GitRepositoryRef, tokenNames: Record<string, string>): ApplicationGitRepository {
  return {
    // Access is checked when the repository is read (branch listing, deployment), not on write.
    has_access: true,
    provider: repository.provider,
    owner: repository.owner,
    url: repository.url,
    name: repository.name,
    ...(repository.branch === null ? {} : { branch: repository.branch }),
    root_path: repository.rootPath,
    git_token_id: repository.gitTokenId,
    git_token_name: repository.gitTokenId === null ? null : (tokenNames[repository.gitTokenId] ?? null),
  }
}
