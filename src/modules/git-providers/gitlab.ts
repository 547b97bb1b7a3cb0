import { AppError } from '#src/platform/http/errors.ts'
import type { GitBranch, GitProviderAdapter } from './git-provider-adapter.ts'
import { followPages, MAX_PAGES, mapConcurrently, nextPageUrl } from './pagination.ts'
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
}
