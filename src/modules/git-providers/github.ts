import { commitNotFound, isoDate, MAX_COMMITS, objects, optionalText, TAGS_PAGE, tagsByCommit, text, withTags } from './commits.ts'
import type { CommitsRequest, GitBranch, GitCommit, GitProviderAdapter } from './git-provider-adapter.ts'
import { followPages, linkRelations, nextPageUrl, runTogether } from './pagination.ts'
import type { ProviderHttp } from './provider-http.ts'
import { namedItems, type ProviderAnswer } from './provider-http.ts'
import { apiRootOf, apiUrl, encodeSegments, repositorySegments, withQuery } from './provider-urls.ts'

const label = 'GitHub'

interface GitHubBranch {
  name: string
  commit?: { sha?: string }
  protected?: boolean
}

const headersFor = (token: string) => ({
  authorization: `Bearer ${token}`,
  accept: 'application/vnd.github+json',
  'x-github-api-version': '2022-11-28',
})

interface GitHubCommitItem {
  sha?: unknown
  html_url?: unknown
  commit?: { message?: unknown; author?: { name?: unknown; email?: unknown; date?: unknown } | null; committer?: { date?: unknown } | null } | null
  author?: { login?: unknown; avatar_url?: unknown } | null
}

/** A commit of GitHub's commits API (https://docs.github.com/rest/commits/commits). */
function toCommit(item: GitHubCommitItem): Omit<GitCommit, 'tag'> {
  const avatar = optionalText(item.author?.avatar_url)
  const page = optionalText(item.html_url)
  const email = optionalText(item.commit?.author?.email)
  return {
    id: text(item.sha, label),
    authorName: optionalText(item.commit?.author?.name) ?? optionalText(item.author?.login) ?? '',
    ...(email ? { authorEmail: email } : {}),
    ...(avatar ? { authorAvatarUrl: avatar } : {}),
    message: text(item.commit?.message, label),
    createdAt: isoDate(item.commit?.author?.date ?? item.commit?.committer?.date, label),
    ...(page ? { pageUrl: page } : {}),
  }
}

/** The repository's first page of tags (GET /repos/{owner}/{repo}/tags), by the commit each points at. */
async function tags(http: ProviderHttp, { apiRoot, token, repository, signal }: CommitsRequest): Promise<Map<string, string>> {
  const url = withQuery(apiUrl(apiRoot, `repos/${encodeSegments(repository.split('/'))}/tags`), { per_page: TAGS_PAGE })
  const answer = await http.getJson({ provider: label, repository, url, headers: headersFor(token), signal })
  const items = objects(answer.body, label) as { name?: unknown; commit?: { sha?: unknown } }[]
  return tagsByCommit(items.map((item) => [text(item.commit?.sha, label), text(item.name, label)]))
}

/**
 * GitHub's REST API (https://docs.github.com/rest/branches/branches#list-branches): pages of 100
 * followed one after the other through the `Link` header, since GitHub asks clients not to page
 * concurrently (secondary rate limits). The repository's `default_branch` is one more call, made
 * beside the pages: at most two calls at once.
 */
export const github: GitProviderAdapter = {
  label,

  // github.com and GitHub Enterprise Cloud (api.<name>.ghe.com) serve the API at the root of an
  // `api.` host; GitHub Enterprise Server serves it under /api/v3 on the instance's own host.
  apiRoot: (gitApiUrl) =>
    apiRootOf(gitApiUrl, {
      publicApi: 'https://api.github.com',
      webHosts: ['github.com', 'www.github.com'],
      apiPath: (url) => (url.hostname.startsWith('api.') ? '' : '/api/v3'),
    }),

  repository(name) {
    const segments = repositorySegments(name)
    if (segments?.length !== 2) return { problem: 'must be a GitHub repository as owner/repo' }
    return { path: segments.join('/') }
  },

  async listBranches(http, { apiRoot, token, repository, signal }) {
    const headers = { authorization: `Bearer ${token}`, accept: 'application/vnd.github+json', 'x-github-api-version': '2022-11-28' }
    const get = (url: URL, callSignal: AbortSignal) => http.getJson({ provider: label, repository, url, headers, signal: callSignal })
    const path = `repos/${encodeSegments(repository.split('/'))}`
    const nextPage = (page: ProviderAnswer) => {
      const next = linkRelations(page.headers.get('link')).get('next')
      return next === undefined ? undefined : nextPageUrl(next, page.url, apiRoot, label)
    }
    const [info, pages] = await runTogether<[ProviderAnswer, ProviderAnswer[]]>(signal, [
      (callSignal) => get(apiUrl(apiRoot, path), callSignal),
      (callSignal) => followPages(withQuery(apiUrl(apiRoot, `${path}/branches`), { per_page: 100 }), (url) => get(url, callSignal), nextPage, label),
    ])
    const defaultBranch = (info.body as { default_branch?: unknown } | null)?.default_branch
    return pages
      .flatMap((page) => namedItems<GitHubBranch>(page.body, label))
      .map(
        (branch): GitBranch => ({
          name: branch.name,
          ...(typeof defaultBranch === 'string' ? { isDefault: branch.name === defaultBranch } : {}),
          ...(typeof branch.commit?.sha === 'string' ? { commitId: branch.commit.sha } : {}),
          ...(typeof branch.protected === 'boolean' ? { protected: branch.protected } : {}),
        }),
      )
  },

  // GET /repos/{owner}/{repo}/commits/{ref}: a commit id or a branch; HEAD is the default branch's head.
  // The tags are read first: a repository GitHub does not know is a 404 there, so that a missing
  // commit is told apart from a missing repository.
  async getCommit(http, request) {
    const { apiRoot, token, repository, signal, ref } = request
    const tagged = await tags(http, request)
    const url = apiUrl(apiRoot, `repos/${encodeSegments(repository.split('/'))}/commits/${encodeURIComponent(ref ?? 'HEAD')}`)
    const missing = () => commitNotFound(label, repository, ref ?? 'HEAD')
    const answer = await http.getJson({ provider: label, repository, url, headers: headersFor(token), signal, missing })
    if (answer.body === null || typeof answer.body !== 'object') throw missing()
    return withTags([toCommit(answer.body as GitHubCommitItem)], tagged)[0]!
  },

  // GET /repos/{owner}/{repo}/commits?sha={ref}: newest first, from the default branch without a ref.
  async listCommits(http, request) {
    const { apiRoot, token, repository, signal, ref, limit } = request
    const tagged = await tags(http, request)
    const query = { per_page: Math.min(limit, MAX_COMMITS), ...(ref === null ? {} : { sha: ref }) }
    const url = withQuery(apiUrl(apiRoot, `repos/${encodeSegments(repository.split('/'))}/commits`), query)
    const missing = () => commitNotFound(label, repository, ref ?? 'HEAD')
    const answer = await http.getJson({ provider: label, repository, url, headers: headersFor(token), signal, missing })
    return withTags(
      objects(answer.body, label).map((item) => toCommit(item as GitHubCommitItem)),
      tagged,
    )
  },
}
