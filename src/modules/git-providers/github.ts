import type { GitBranch, GitProviderAdapter } from './git-provider-adapter.ts'
import { followPages, linkRelations, nextPageUrl, runTogether } from './pagination.ts'
import { namedItems, type ProviderAnswer } from './provider-http.ts'
import { apiRootOf, apiUrl, encodeSegments, repositorySegments, withQuery } from './provider-urls.ts'

const label = 'GitHub'

interface GitHubBranch {
  name: string
  commit?: { sha?: string }
  protected?: boolean
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
}
