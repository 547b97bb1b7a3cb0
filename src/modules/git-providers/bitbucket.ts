import { commitNotFound, isoDate, MAX_COMMITS, optionalText, TAGS_PAGE, tagsByCommit, text, withTags } from './commits.ts'
import type { CommitsRequest, GitBranch, GitCommit, GitProviderAdapter } from './git-provider-adapter.ts'
import { followPages, nextPageUrl, runTogether } from './pagination.ts'
import type { ProviderHttp } from './provider-http.ts'
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

interface BitbucketCommit {
  hash?: unknown
  date?: unknown
  message?: unknown
  author?: { raw?: unknown; user?: { display_name?: unknown; links?: { avatar?: { href?: unknown } } } } | null
  links?: { html?: { href?: unknown } }
}

/** A commit of Bitbucket's commits API (https://developer.atlassian.com/cloud/bitbucket/rest/api-group-commits/). */
function toCommit(item: BitbucketCommit): Omit<GitCommit, 'tag'> {
  const avatar = optionalText(item.author?.user?.links?.avatar?.href)
  const page = optionalText(item.links?.html?.href)
  // `raw` is "Name <email>": the name for the author, the address kept apart (contributor listings only).
  const raw = optionalText(item.author?.raw)
  const rawName = raw?.replace(/\s*<[^>]*>\s*$/, '')
  const email = raw && /<([^<>\s]+@[^<>\s]+)>\s*$/.exec(raw)?.[1]
  return {
    id: text(item.hash, label),
    authorName: optionalText(item.author?.user?.display_name) ?? rawName ?? '',
    ...(email ? { authorEmail: email } : {}),
    ...(avatar ? { authorAvatarUrl: avatar } : {}),
    message: text(item.message, label),
    createdAt: isoDate(item.date, label),
    ...(page ? { pageUrl: page } : {}),
  }
}

/** The values of one of Bitbucket's paged answers, else 502. */
function valuesOf(answer: ProviderAnswer): Record<string, unknown>[] {
  const values = (answer.body as { values?: unknown } | null)?.values
  if (!Array.isArray(values) || values.some((value) => value === null || typeof value !== 'object')) throw unexpectedAnswer(label)
  return values
}

const repositoryPath = (repository: string) => `repositories/${encodeSegments(repository.split('/'))}`

/** The repository's first page of tags (GET …/refs/tags), by the commit each points at. */
async function tags(http: ProviderHttp, { apiRoot, token, repository, signal }: CommitsRequest): Promise<Map<string, string>> {
  const url = withQuery(apiUrl(apiRoot, `${repositoryPath(repository)}/refs/tags`), { pagelen: TAGS_PAGE })
  const answer = await http.getJson({ provider: label, repository, url, headers: { authorization: bitbucketAuthorization(token) }, signal })
  const items = valuesOf(answer) as { name?: unknown; target?: { hash?: unknown } }[]
  return tagsByCommit(items.map((item) => [text(item.target?.hash, label), text(item.name, label)]))
}

/** The ref as given, or the repository's main branch (Bitbucket's commit listing without one lists every branch). */
async function refOrMainBranch(http: ProviderHttp, { apiRoot, token, repository, signal, ref }: CommitsRequest): Promise<string> {
  if (ref !== null) return ref
  const answer = await http.getJson({
    provider: label,
    repository,
    url: apiUrl(apiRoot, repositoryPath(repository)),
    headers: { authorization: bitbucketAuthorization(token) },
    signal,
  })
  return text((answer.body as { mainbranch?: { name?: unknown } } | null)?.mainbranch?.name, label)
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
/**
 * GET …/commit/{ref} (one commit; the ref a commit id or a branch name) or …/commits/{ref}?pagelen=
 * (the commits reachable from it, newest first), with the repository's tags. Tags first: a
 * repository Bitbucket does not know is a 404 there, so that a missing commit is told apart.
 */
async function readAtRef(http: ProviderHttp, request: CommitsRequest, resource: 'commit' | 'commits', query: Record<string, number> = {}) {
  const { apiRoot, token, repository, signal } = request
  const tagged = await tags(http, request)
  const ref = await refOrMainBranch(http, request)
  const url = withQuery(apiUrl(apiRoot, `${repositoryPath(repository)}/${resource}/${encodeURIComponent(ref)}`), query)
  const missing = () => commitNotFound(label, repository, ref)
  const answer = await http.getJson({
    provider: label,
    repository,
    url,
    headers: { authorization: bitbucketAuthorization(token) },
    signal,
    missing,
  })
  return { answer, tagged, missing }
}

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

  async getCommit(http, request) {
    const { answer, tagged, missing } = await readAtRef(http, request, 'commit')
    if (answer.body === null || typeof answer.body !== 'object') throw missing()
    return withTags([toCommit(answer.body as BitbucketCommit)], tagged)[0]!
  },

  async listCommits(http, request) {
    const { answer, tagged } = await readAtRef(http, request, 'commits', { pagelen: Math.min(request.limit, MAX_COMMITS) })
    return withTags(
      valuesOf(answer).map((item) => toCommit(item as BitbucketCommit)),
      tagged,
    )
  },
}
