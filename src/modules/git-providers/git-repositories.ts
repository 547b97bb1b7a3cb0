import type { GitProvider } from '#src/platform/git-provider-names.ts'
import { bitbucketAuthorization } from './bitbucket.ts'
import { followPages, linkRelations, nextPageUrl } from './pagination.ts'
import { type ProviderAnswer, type ProviderHttp, unexpectedAnswer } from './provider-http.ts'
import { apiUrl, encodeSegments, isPathSegment, withQuery } from './provider-urls.ts'

// The repositories a git token can see at its provider, for picking one in a form (the reference's
// getOrganization<Provider>Repositories). Same calls as branch listing: the token's credential header,
// the guarded provider HTTP, pages followed to the end within the listing's deadline.

/** A repository as a provider lists it. */
export interface GitRepositoryItem {
  id: string
  /** The path the branch listing takes as `name`: `owner/repo`, `group/sub/project`, `workspace/repo`. */
  name: string
  /** Its web address, as a service's `git_repository.url` takes it. */
  url: string
  defaultBranch?: string
  isPrivate?: boolean
}

export interface ListRepositoriesRequest {
  apiRoot: URL
  token: string
  /** Bitbucket: the git token's workspace, whose repositories are listed; null: those the account is a member of. */
  workspace: string | null
  signal: AbortSignal
}

export type ListRepositories = (http: ProviderHttp, request: ListRepositoriesRequest) => Promise<GitRepositoryItem[]>

/** What the errors name instead of one repository. */
const LISTING = "the git token's repositories"

const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined)

/** Each item of a page that is a list of objects, else 502. */
function items(body: unknown, provider: string): Record<string, unknown>[] {
  if (!Array.isArray(body) || body.some((item) => item === null || typeof item !== 'object')) throw unexpectedAnswer(provider)
  return body
}

/** An item as a repository, or 502 when it lacks what one needs. */
function repositoryOf(provider: string, fields: { id: unknown; name: unknown; url: unknown; defaultBranch: unknown; isPrivate: unknown }) {
  const id = typeof fields.id === 'number' ? String(fields.id) : text(fields.id)
  const name = text(fields.name)
  const url = text(fields.url)
  if (id === undefined || name === undefined || url === undefined) throw unexpectedAnswer(provider)
  const defaultBranch = text(fields.defaultBranch)
  return {
    id,
    name,
    url,
    ...(defaultBranch === undefined ? {} : { defaultBranch }),
    ...(typeof fields.isPrivate === 'boolean' ? { isPrivate: fields.isPrivate } : {}),
  }
}

/** The next page of a `Link` header, kept on the API's origin. */
const linkNext = (apiRoot: URL, provider: string) => (page: ProviderAnswer) => {
  const next = linkRelations(page.headers.get('link')).get('next')
  return next === undefined ? undefined : nextPageUrl(next, page.url, apiRoot, provider)
}

/** GitHub: GET /user/repos (https://docs.github.com/rest/repos/repos#list-repositories-for-the-authenticated-user), pages of 100 through `Link`. */
const github: ListRepositories = async (http, { apiRoot, token, signal }) => {
  const headers = { authorization: `Bearer ${token}`, accept: 'application/vnd.github+json', 'x-github-api-version': '2022-11-28' }
  const first = withQuery(apiUrl(apiRoot, 'user/repos'), { per_page: 100, sort: 'full_name' })
  const pages = await followPages(
    first,
    (url) => http.getJson({ provider: 'GitHub', repository: LISTING, url, headers, signal }),
    linkNext(apiRoot, 'GitHub'),
    'GitHub',
  )
  return pages
    .flatMap((page) => items(page.body, 'GitHub'))
    .map((item) =>
      repositoryOf('GitHub', { id: item.id, name: item.full_name, url: item.html_url, defaultBranch: item.default_branch, isPrivate: item.private }),
    )
}

/** GitLab: GET /projects?membership=true (https://docs.gitlab.com/api/projects/#list-all-projects), pages of 100 through `x-next-page`. */
const gitlab: ListRepositories = async (http, { apiRoot, token, signal }) => {
  const headers = { authorization: `Bearer ${token}` }
  const base = withQuery(apiUrl(apiRoot, 'projects'), { membership: 'true', simple: 'true', per_page: 100, order_by: 'path', sort: 'asc' })
  const next = (page: ProviderAnswer) => {
    const number = page.headers.get('x-next-page')?.trim()
    return number && /^\d+$/.test(number) ? nextPageUrl(withQuery(base, { page: number }).href, page.url, apiRoot, 'GitLab') : undefined
  }
  const pages = await followPages(
    withQuery(base, { page: 1 }),
    (url) => http.getJson({ provider: 'GitLab', repository: LISTING, url, headers, signal }),
    next,
    'GitLab',
  )
  return pages
    .flatMap((page) => items(page.body, 'GitLab'))
    .map((item) =>
      repositoryOf('GitLab', {
        id: item.id,
        name: item.path_with_namespace,
        url: item.web_url,
        defaultBranch: item.default_branch,
        isPrivate: typeof item.visibility === 'string' ? item.visibility !== 'public' : undefined,
      }),
    )
}

/**
 * Bitbucket: GET /repositories/{workspace}, or /repositories?role=member without a workspace
 * (https://developer.atlassian.com/cloud/bitbucket/rest/api-group-repositories/), through each page's `next`.
 */
const bitbucket: ListRepositories = async (http, { apiRoot, token, workspace, signal }) => {
  const headers = { authorization: bitbucketAuthorization(token) }
  const inWorkspace = workspace !== null && isPathSegment(workspace)
  const first = inWorkspace
    ? withQuery(apiUrl(apiRoot, `repositories/${encodeSegments([workspace])}`), { pagelen: 100 })
    : withQuery(apiUrl(apiRoot, 'repositories'), { role: 'member', pagelen: 100 })
  const valuesOf = (page: ProviderAnswer) => {
    const body = page.body as { values?: unknown; next?: unknown } | null
    if (body === null || typeof body !== 'object') throw unexpectedAnswer('Bitbucket')
    return { values: items(body.values, 'Bitbucket'), next: body.next }
  }
  const next = (page: ProviderAnswer) => {
    const link = valuesOf(page).next
    return typeof link === 'string' && link !== '' ? nextPageUrl(link, page.url, apiRoot, 'Bitbucket') : undefined
  }
  const pages = await followPages(
    first,
    (url) => http.getJson({ provider: 'Bitbucket', repository: inWorkspace ? workspace : LISTING, url, headers, signal }),
    next,
    'Bitbucket',
  )
  return pages
    .flatMap((page) => valuesOf(page).values)
    .map((item) => {
      const links = item.links as { html?: { href?: unknown } } | undefined
      const main = item.mainbranch as { name?: unknown } | null | undefined
      return repositoryOf('Bitbucket', {
        id: item.uuid,
        name: item.full_name,
        url: links?.html?.href,
        defaultBranch: main?.name,
        isPrivate: item.is_private,
      })
    })
}

export const REPOSITORY_LISTINGS: Record<GitProvider, ListRepositories> = { GITHUB: github, GITLAB: gitlab, BITBUCKET: bitbucket }
