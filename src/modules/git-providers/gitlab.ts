import { AppError } from '#src/platform/http/errors.ts'
import { commitNotFound, isoDate, MAX_COMMITS, objects, optionalText, TAGS_PAGE, tagsByCommit, text, withTags } from './commits.ts'
import type { CommitsRequest, GitBranch, GitCommit, GitProviderAdapter } from './git-provider-adapter.ts'
import { followPages, MAX_PAGES, mapConcurrently, nextPageUrl } from './pagination.ts'
import type { ProviderHttp } from './provider-http.ts'
import { namedItems, type ProviderAnswer } from './provider-http.ts'
import { apiRootOf, apiUrl, repositorySegments, withQuery } from './provider-urls.ts'

const label = 'GitLab'
/** Pages fetched at once when GitLab tells the page count: quick, yet gentle on its rate limits. */
const CONCURRENT_PAGES = 4

interface GitLabBranch {
  name: string
  default?: boolean
  protected?: boolean
  commit?: { id?: string }
}

interface GitLabCommit {
  id?: unknown
  message?: unknown
  author_name?: unknown
  author_email?: unknown
  authored_date?: unknown
  created_at?: unknown
  web_url?: unknown
}

/** A commit of GitLab's commits API (https://docs.gitlab.com/api/commits/). */
function toCommit(item: GitLabCommit): Omit<GitCommit, 'tag'> {
  const page = optionalText(item.web_url)
  const email = optionalText(item.author_email)
  return {
    id: text(item.id, label),
    authorName: optionalText(item.author_name) ?? '',
    ...(email ? { authorEmail: email } : {}),
    message: text(item.message, label),
    createdAt: isoDate(item.authored_date ?? item.created_at, label),
    ...(page ? { pageUrl: page } : {}),
  }
}

const projectPath = (repository: string) => `projects/${encodeURIComponent(repository)}/repository`

/** The project's first page of tags (GET /projects/:id/repository/tags), by the commit each points at. */
async function tags(http: ProviderHttp, { apiRoot, token, repository, signal }: CommitsRequest): Promise<Map<string, string>> {
  const url = withQuery(apiUrl(apiRoot, `${projectPath(repository)}/tags`), { per_page: TAGS_PAGE })
  const answer = await http.getJson({ provider: label, repository, url, headers: { authorization: `Bearer ${token}` }, signal })
  const items = objects(answer.body, label) as { name?: unknown; commit?: { id?: unknown } }[]
  return tagsByCommit(items.map((item) => [text(item.commit?.id, label), text(item.name, label)]))
}

/** GET /projects/:id/repository/commits?ref_name=: newest first, from the default branch without a ref. */
async function commits(http: ProviderHttp, request: CommitsRequest & { limit: number }): Promise<Omit<GitCommit, 'tag'>[]> {
  const { apiRoot, token, repository, signal, ref, limit } = request
  const query = { per_page: Math.min(limit, MAX_COMMITS), ...(ref === null ? {} : { ref_name: ref }) }
  const url = withQuery(apiUrl(apiRoot, `${projectPath(repository)}/commits`), query)
  const missing = () => commitNotFound(label, repository, ref ?? 'HEAD')
  const answer = await http.getJson({ provider: label, repository, url, headers: { authorization: `Bearer ${token}` }, signal, missing })
  return objects(answer.body, label).map((item) => toCommit(item as GitLabCommit))
}

const pageNumber = (text: string | null): number | undefined => (text && /^\d+$/.test(text.trim()) ? Number(text) : undefined)

/**
 * GitLab's REST API (https://docs.gitlab.com/api/branches/#list-repository-branches): pages of 100.
 * When the first page's `x-total-pages` tells the count, the other pages are fetched concurrently;
 * GitLab leaves it out for very large lists, and then `x-next-page` is followed one page at a time.
 */
export const gitlab: GitProviderAdapter = {
  label,

  apiRoot: (gitApiUrl) => apiRootOf(gitApiUrl, { publicApi: 'https://gitlab.com', webHosts: [], apiPath: () => '/api/v4' }),

  repository(name) {
    const trimmed = name.trim()
    // GitLab also names a project by its numeric id.
    if (/^\d+$/.test(trimmed)) return { path: trimmed }
    const segments = repositorySegments(name)
    if (!segments || segments.length < 2) return { problem: 'must be a GitLab project path such as group/project or group/subgroup/project' }
    return { path: segments.join('/') }
  },

  async listBranches(http, { apiRoot, token, repository, signal }) {
    // A personal, project or group access token, or an OAuth token: GitLab takes each as a Bearer token.
    const headers = { authorization: `Bearer ${token}` }
    const get = (url: URL, callSignal = signal) => http.getJson({ provider: label, repository, url, headers, signal: callSignal })
    const branchesUrl = withQuery(apiUrl(apiRoot, `projects/${encodeURIComponent(repository)}/repository/branches`), { per_page: 100 })
    const firstUrl = withQuery(branchesUrl, { page: 1 })
    const first = await get(firstUrl)
    const totalPages = pageNumber(first.headers.get('x-total-pages'))
    let pages: ProviderAnswer[]
    if (totalPages !== undefined && totalPages > 1) {
      if (totalPages > MAX_PAGES) throw new AppError('bad_gateway', `GitLab counts ${totalPages} pages of branches, more than ${MAX_PAGES}; refused`)
      const rest = Array.from({ length: totalPages - 1 }, (_, index) => index + 2)
      pages = [
        first,
        ...(await mapConcurrently(rest, CONCURRENT_PAGES, signal, (page, callSignal) => get(withQuery(branchesUrl, { page }), callSignal))),
      ]
    } else {
      const nextPage = (page: ProviderAnswer) => {
        const next = pageNumber(page.headers.get('x-next-page'))
        return next === undefined ? undefined : nextPageUrl(withQuery(branchesUrl, { page: next }).href, page.url, apiRoot, label)
      }
      pages = await followPages(firstUrl, (url) => (url === firstUrl ? Promise.resolve(first) : get(url)), nextPage, label)
    }
    return pages
      .flatMap((page) => namedItems<GitLabBranch>(page.body, label))
      .map(
        (branch): GitBranch => ({
          name: branch.name,
          ...(typeof branch.default === 'boolean' ? { isDefault: branch.default } : {}),
          ...(typeof branch.commit?.id === 'string' ? { commitId: branch.commit.id } : {}),
          ...(typeof branch.protected === 'boolean' ? { protected: branch.protected } : {}),
        }),
      )
  },

  // Tags first: a project GitLab does not know is a 404 there, so that a missing commit is told apart.
  async getCommit(http, request) {
    const { apiRoot, token, repository, signal, ref } = request
    const tagged = await tags(http, request)
    const missing = () => commitNotFound(label, repository, ref ?? 'HEAD')
    // Without a ref, the default branch's head: the first of its commits.
    if (ref === null) {
      const [head] = await commits(http, { ...request, limit: 1 })
      if (!head) throw missing()
      return withTags([head], tagged)[0]!
    }
    // GET /projects/:id/repository/commits/:sha takes a commit id, a branch or a tag.
    const url = apiUrl(apiRoot, `${projectPath(repository)}/commits/${encodeURIComponent(ref)}`)
    const answer = await http.getJson({ provider: label, repository, url, headers: { authorization: `Bearer ${token}` }, signal, missing })
    if (answer.body === null || typeof answer.body !== 'object') throw missing()
    return withTags([toCommit(answer.body as GitLabCommit)], tagged)[0]!
  },

  async listCommits(http, request) {
    const tagged = await tags(http, request)
    return withTags(await commits(http, request), tagged)
  },
}
