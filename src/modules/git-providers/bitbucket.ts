import type { GitBranch, GitProviderAdapter } from './git-provider-adapter.ts'
import { followPages, nextPageUrl, runTogether } from './pagination.ts'
import { namedItems, type ProviderAnswer, unexpectedAnswer } from './provider-http.ts'
import { apiRootOf, apiUrl, encodeSegments, isPathSegment, repositorySegments, withQuery } from './provider-urls.ts'

const label = 'Bitbucket'

interface BitbucketBranch {
  name: string
  target?: { hash?: string }
}

function pageOf(answer: ProviderAnswer): { values: BitbucketBranch[]; next?: unknown } {
  const body = answer.body as { values?: unknown; next?: unknown } | null
  if (typeof body !== 'object' || body === null) throw unexpectedAnswer(label)
  return { values: namedItems<BitbucketBranch>(body.values, label), next: body.next }
}

/**
 * The credential header for a Bitbucket token. Access tokens (repository, project or workspace) and
 * OAuth tokens are Bearer tokens. App passwords and Atlassian API tokens only work with Basic
 * authentication, with the Bitbucket username (app password) or the account's email (API token):
 * such a token is stored as `username:secret`. No Bearer token contains a colon.
 */
export function bitbucketAuthorization(token: string): string {
  return token.includes(':') ? `Basic ${Buffer.from(token, 'utf8').toString('base64')}` : `Bearer ${token}`
}

/**
 * Bitbucket Cloud's REST API (https://developer.atlassian.com/cloud/bitbucket/rest/api-group-refs/):
 * pages of 100 followed through each page's `next` link, which Bitbucket asks clients to use rather
 * than build page URLs. The main branch comes from the repository, fetched beside the pages.
 */
export const bitbucket: GitProviderAdapter = {
  label,

  apiRoot: (gitApiUrl) =>
    apiRootOf(gitApiUrl, { publicApi: 'https://api.bitbucket.org', webHosts: ['bitbucket.org', 'www.bitbucket.org'], apiPath: () => '/2.0' }),

  repository(name, workspace) {
    const segments = repositorySegments(name)
    if (segments?.length === 1 && workspace !== null) {
      // The workspace goes into the API path too: `..` or `a/b` would lead elsewhere than a workspace.
      if (!isPathSegment(workspace)) {
        return {
          problem: `cannot be completed with the git token’s workspace "${workspace}", which is not a workspace name; name it as workspace/repo or edit the git token`,
        }
      }
      return { path: `${workspace}/${segments[0]}` }
    }
    if (segments?.length !== 2) return { problem: 'must be a Bitbucket repository as workspace/repo, or repo in the git token’s workspace' }
    return { path: segments.join('/') }
  },

  async listBranches(http, { apiRoot, token, repository, signal }) {
    const headers = { authorization: bitbucketAuthorization(token) }
    const get = (url: URL, callSignal: AbortSignal) => http.getJson({ provider: label, repository, url, headers, signal: callSignal })
    const path = `repositories/${encodeSegments(repository.split('/'))}`
    const nextPage = (page: ProviderAnswer) => {
      const next = pageOf(page).next
      return typeof next === 'string' && next !== '' ? nextPageUrl(next, page.url, apiRoot, label) : undefined
    }
    const [info, pages] = await runTogether<[ProviderAnswer, ProviderAnswer[]]>(signal, [
      (callSignal) => get(apiUrl(apiRoot, path), callSignal),
      (callSignal) =>
        followPages(withQuery(apiUrl(apiRoot, `${path}/refs/branches`), { pagelen: 100 }), (url) => get(url, callSignal), nextPage, label),
    ])
    const mainBranch = (info.body as { mainbranch?: { name?: unknown } } | null)?.mainbranch?.name
    return pages
      .flatMap((page) => pageOf(page).values)
      .map(
        (branch): GitBranch => ({
          name: branch.name,
          ...(typeof mainBranch === 'string' ? { isDefault: branch.name === mainBranch } : {}),
          ...(typeof branch.target?.hash === 'string' ? { commitId: branch.target.hash } : {}),
        }),
      )
  },
}
