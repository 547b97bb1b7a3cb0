/**
 * Loopback stand-ins for GitHub, GitLab and Bitbucket Cloud that follow each provider's documented
 * REST API for what branch listing uses: authentication, pagination, errors and rate limits.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface FakeBranch {
  name: string
  sha: string
  protected?: boolean
}

export interface FakeCommit {
  sha: string
  message: string
  authorName: string
  /** author@example.com when absent. */
  authorEmail?: string
  /** ISO 8601. */
  date: string
}

export interface FakeRepository {
  defaultBranch: string
  branches: FakeBranch[]
  /** The history, newest first, one line: the commits reachable from a commit are those after it here. */
  commits?: FakeCommit[]
  tags?: { name: string; sha: string }[]
  /** The web address the repository listings give for it (a loopback git server's); the fake's own address when absent. */
  url?: string
  /** Its webhooks, as the hooks API lists, creates and edits them (events in the provider's words). */
  hooks?: FakeHook[]
}

export interface FakeHook {
  id: string
  url: string
  active: boolean
  events: string[]
  /** What the last write gave as the secret (GitLab's `token`); never listed back. */
  secret?: string
}

export interface SeenRequest {
  method: string
  /** The raw path, as sent (percent-encoding kept). */
  path: string
  query: URLSearchParams
  authorization: string | undefined
}

export type FakeKind = 'github' | 'gitlab' | 'bitbucket'

export interface FakeProvider {
  readonly kind: FakeKind
  /** The address to put in a git token's git_api_url. */
  readonly url: string
  /** Repositories by full path (`owner/repo`, `group/sub/project`, `workspace/repo`). */
  readonly repositories: Map<string, FakeRepository>
  /** GitHub and Bitbucket: repositories that moved (renamed or transferred): full path → the address it answers 301 with. */
  readonly moved: Map<string, string>
  /** Credentials it accepts, as the token stored in Berth; a scope-less one gets 403. */
  readonly tokens: Set<string>
  readonly scopelessTokens: Set<string>
  readonly requests: SeenRequest[]
  /** When set, every call is refused as over the rate limit. */
  rateLimit: { resetInSeconds?: number; retryAfter?: number } | undefined
  /** GitHub: every call is refused by a secondary rate limit (403, only the message says so). */
  secondaryRateLimit: boolean
  /** Answers every call without asking for credentials, as a host that wants them would. */
  open: boolean
  /** Milliseconds to wait before answering. */
  delayMs: number
  /** When set, every call fails with this status. */
  failWith: number | undefined
  /** GitHub and Bitbucket: when set, the call for the repository itself (not its branches) fails at once with this status. */
  repositoryStatus: number | undefined
  /** The most calls it has been answering at the same time (set it to 0 to measure afresh). */
  maxInFlight: number
  /** GitLab leaves out x-total and x-total-pages for lists over 10 000 entries; this forces it. */
  omitTotals: boolean
  /** Credentials that read but may not change webhooks (403 on a write, as a token without admin rights on the repository). */
  readOnlyTokens: Set<string>
  close(): Promise<void>
}

const PREFIX: Record<FakeKind, string> = { github: '/api/v3', gitlab: '/api/v4', bitbucket: '/2.0' }

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers })
  res.end(JSON.stringify(body))
}

/** Every credential form the providers document, reduced to the token as Berth stores it. */
function presentedToken(kind: FakeKind, req: IncomingMessage): string | undefined {
  const authorization = req.headers.authorization
  if (kind === 'gitlab' && typeof req.headers['private-token'] === 'string') return req.headers['private-token']
  if (authorization?.startsWith('Bearer ')) return authorization.slice(7)
  if (kind === 'bitbucket' && authorization?.startsWith('Basic ')) return Buffer.from(authorization.slice(6), 'base64').toString('utf8')
  return undefined
}

function page<T>(items: T[], query: URLSearchParams, sizeParam: string, maxSize: number) {
  const size = Math.min(maxSize, Math.max(1, Number(query.get(sizeParam) ?? 30) || 30))
  const number = Math.max(1, Number(query.get('page') ?? 1) || 1)
  const pages = Math.max(1, Math.ceil(items.length / size))
  return { items: items.slice((number - 1) * size, number * size), number, pages, size }
}

const sorted = (repository: FakeRepository) => [...repository.branches].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))

function linkTo(base: string, path: string, query: URLSearchParams, pageNumber: number): string {
  const copy = new URLSearchParams(query)
  copy.set('page', String(pageNumber))
  return `${base}${path}?${copy}`
}

/** GitHub and Bitbucket answer a call under a repository that moved with 301 to the same call under its new address. */
function movedAway(fake: FakeProvider, res: ServerResponse, segments: string[], query: URLSearchParams): boolean {
  const movedTo = fake.kind === 'gitlab' ? undefined : fake.moved.get(`${segments[1]}/${segments[2]}`)
  if (!movedTo) return false
  const location = `${movedTo}${segments.length > 3 ? `/${segments.slice(3).join('/')}` : ''}${query.size > 0 ? `?${query}` : ''}`
  json(res, 301, { message: 'Moved Permanently', url: location }, { location })
  return true
}

/** The commit a ref names: HEAD, a branch, a tag, or a commit id (7 characters at least); undefined when none. */
function resolveRef(repository: FakeRepository, ref: string): FakeCommit | undefined {
  const sha =
    ref === 'HEAD'
      ? repository.branches.find((branch) => branch.name === repository.defaultBranch)?.sha
      : (repository.branches.find((branch) => branch.name === ref)?.sha ?? repository.tags?.find((tag) => tag.name === ref)?.sha ?? ref)
  if (sha === undefined) return undefined
  const found = repository.commits?.find((commit) => commit.sha === sha || (sha.length >= 7 && commit.sha.startsWith(sha)))
  if (found) return found
  // A branch head the test gave no commit for: a plain commit of its own.
  return repository.branches.some((branch) => branch.sha === sha)
    ? { sha, message: 'a commit', authorName: 'Fake Author', date: '2024-01-01T00:00:00Z' }
    : undefined
}

/** The commits reachable from a ref, newest first, at most `count`. */
function historyFrom(repository: FakeRepository, ref: string, count: number): FakeCommit[] | undefined {
  const head = resolveRef(repository, ref)
  if (!head) return undefined
  const commits = repository.commits ?? []
  const index = commits.findIndex((commit) => commit.sha === head.sha)
  return (index === -1 ? [head] : commits.slice(index)).slice(0, count)
}

const pageSize = (query: URLSearchParams, name: string) => Math.min(100, Math.max(1, Number(query.get(name) ?? 30) || 30))

function githubCommit(fake: FakeProvider, owner: string, repo: string, commit: FakeCommit) {
  return {
    sha: commit.sha,
    html_url: `${fake.url}/${owner}/${repo}/commit/${commit.sha}`,
    commit: {
      message: commit.message,
      author: { name: commit.authorName, email: commit.authorEmail ?? 'author@example.com', date: commit.date },
      committer: { date: commit.date },
    },
    author: { login: commit.authorName.toLowerCase().replace(/\s+/g, '-'), avatar_url: `${fake.url}/avatars/${commit.sha.slice(0, 7)}` },
  }
}

/** GitHub's commits and tags: GET /repos/{owner}/{repo}/tags, …/commits, …/commits/{ref}. */
function githubCommits(fake: FakeProvider, res: ServerResponse, segments: string[], query: URLSearchParams, repository: FakeRepository) {
  const [, owner, repo, what, ref] = segments as [string, string, string, string, string | undefined]
  if (what === 'tags' && segments.length === 4) {
    return json(
      res,
      200,
      (repository.tags ?? []).map((tag) => ({ name: tag.name, commit: { sha: tag.sha } })),
    )
  }
  if (what === 'commits' && segments.length === 5) {
    const commit = resolveRef(repository, ref!)
    if (!commit) return json(res, 422, { message: `No commit found for SHA: ${ref}` })
    return json(res, 200, githubCommit(fake, owner, repo, commit))
  }
  if (what === 'commits' && segments.length === 4) {
    const history = historyFrom(repository, query.get('sha') ?? 'HEAD', pageSize(query, 'per_page'))
    if (!history) return json(res, 404, { message: 'Not Found' })
    return json(
      res,
      200,
      history.map((commit) => githubCommit(fake, owner, repo, commit)),
    )
  }
  return json(res, 404, { message: 'Not Found' })
}

/** GET /user/repos, /projects?membership=true, /repositories[/{workspace}]: every repository of the fake, by path, one page of `size`. */
function repositoryPage(fake: FakeProvider, query: URLSearchParams, sizeParam: string, workspace?: string) {
  const names = [...fake.repositories.keys()].filter((name) => workspace === undefined || name.startsWith(`${workspace}/`)).sort()
  return { ...page(names, query, sizeParam, 100), total: names.length }
}

const webUrl = (fake: FakeProvider, name: string) => fake.repositories.get(name)?.url ?? `${fake.url}/${name}`

function githubRepositories(fake: FakeProvider, res: ServerResponse, query: URLSearchParams, path: string) {
  const { items, number, pages } = repositoryPage(fake, query, 'per_page')
  const links: Record<string, string> = number < pages ? { link: `<${linkTo(fake.url, path, query, number + 1)}>; rel="next"` } : {}
  json(
    res,
    200,
    items.map((name, index) => ({
      id: 1000 + index + (number - 1) * 100,
      name: name.split('/').at(-1),
      full_name: name,
      html_url: webUrl(fake, name),
      private: true,
      default_branch: fake.repositories.get(name)!.defaultBranch,
    })),
    links,
  )
}

function github(fake: FakeProvider, res: ServerResponse, segments: string[], query: URLSearchParams, path: string) {
  if (segments[0] === 'user' && segments[1] === 'repos' && segments.length === 2) return githubRepositories(fake, res, query, path)
  // GET /repos/{owner}/{repo} and GET /repos/{owner}/{repo}/branches
  if (segments[0] !== 'repos' || segments.length < 3) return json(res, 404, { message: 'Not Found' })
  if (movedAway(fake, res, segments, query)) return
  const repository = fake.repositories.get(`${segments[1]}/${segments[2]}`)
  if (!repository) return json(res, 404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' })
  if (segments.length === 3) return json(res, 200, { full_name: `${segments[1]}/${segments[2]}`, default_branch: repository.defaultBranch })
  if (segments[3] === 'tags' || segments[3] === 'commits') return githubCommits(fake, res, segments, query, repository)
  if (segments.length !== 4 || segments[3] !== 'branches') return json(res, 404, { message: 'Not Found' })
  const { items, number, pages } = page(sorted(repository), query, 'per_page', 100)
  const links: string[] = []
  if (number < pages)
    links.push(`<${linkTo(fake.url, path, query, number + 1)}>; rel="next"`, `<${linkTo(fake.url, path, query, pages)}>; rel="last"`)
  if (number > 1) links.push(`<${linkTo(fake.url, path, query, number - 1)}>; rel="prev"`, `<${linkTo(fake.url, path, query, 1)}>; rel="first"`)
  json(
    res,
    200,
    items.map((branch) => ({
      name: branch.name,
      commit: { sha: branch.sha, url: `${fake.url}/commits/${branch.sha}` },
      protected: !!branch.protected,
    })),
    links.length > 0 ? { link: links.join(', ') } : {},
  )
}

const gitlabCommit = (fake: FakeProvider, project: string, commit: FakeCommit) => ({
  id: commit.sha,
  short_id: commit.sha.slice(0, 8),
  title: commit.message.split('\n', 1)[0],
  message: commit.message,
  author_name: commit.authorName,
  author_email: commit.authorEmail ?? 'author@example.com',
  authored_date: commit.date,
  created_at: commit.date,
  web_url: `${fake.url}/${project}/-/commit/${commit.sha}`,
})

/** GitLab's commits and tags: GET /projects/:id/repository/tags, …/commits, …/commits/:sha. */
function gitlabCommits(fake: FakeProvider, res: ServerResponse, segments: string[], query: URLSearchParams) {
  const repository = fake.repositories.get(segments[1]!)
  if (!repository) return json(res, 404, { message: '404 Project Not Found' })
  if (segments[3] === 'tags' && segments.length === 4) {
    return json(
      res,
      200,
      (repository.tags ?? []).map((tag) => ({ name: tag.name, target: tag.sha, commit: { id: tag.sha } })),
    )
  }
  if (segments.length === 5) {
    const commit = resolveRef(repository, segments[4]!)
    return commit ? json(res, 200, gitlabCommit(fake, segments[1]!, commit)) : json(res, 404, { message: '404 Commit Not Found' })
  }
  const history = historyFrom(repository, query.get('ref_name') ?? 'HEAD', pageSize(query, 'per_page'))
  if (!history) return json(res, 404, { message: '404 Not Found' })
  return json(
    res,
    200,
    history.map((commit) => gitlabCommit(fake, segments[1]!, commit)),
  )
}

function gitlab(fake: FakeProvider, res: ServerResponse, segments: string[], query: URLSearchParams, path: string) {
  if (segments[0] === 'projects' && segments.length === 1) {
    const { items, number, pages } = repositoryPage(fake, query, 'per_page')
    return json(
      res,
      200,
      items.map((name, index) => ({
        id: 2000 + index,
        name: name.split('/').at(-1),
        path_with_namespace: name,
        web_url: webUrl(fake, name),
        default_branch: fake.repositories.get(name)!.defaultBranch,
        visibility: 'private',
      })),
      { 'x-page': String(number), 'x-next-page': number < pages ? String(number + 1) : '' },
    )
  }
  if (segments[0] === 'projects' && segments[2] === 'repository' && (segments[3] === 'tags' || segments[3] === 'commits')) {
    return gitlabCommits(fake, res, segments, query)
  }
  // GET /projects/{url-encoded path}/repository/branches
  if (segments[0] !== 'projects' || segments[2] !== 'repository' || segments[3] !== 'branches' || segments.length !== 4) {
    return json(res, 404, { error: '404 Not Found' })
  }
  const repository = fake.repositories.get(segments[1]!)
  if (!repository) return json(res, 404, { message: '404 Project Not Found' })
  const { items, number, pages, size } = page(sorted(repository), query, 'per_page', 100)
  const headers: Record<string, string> = {
    'x-page': String(number),
    'x-per-page': String(size),
    'x-next-page': number < pages ? String(number + 1) : '',
    'x-prev-page': number > 1 ? String(number - 1) : '',
    link: [number < pages ? `<${linkTo(fake.url, path, query, number + 1)}>; rel="next"` : '', `<${linkTo(fake.url, path, query, 1)}>; rel="first"`]
      .filter(Boolean)
      .join(', '),
  }
  if (!fake.omitTotals) Object.assign(headers, { 'x-total': String(repository.branches.length), 'x-total-pages': String(pages) })
  json(
    res,
    200,
    items.map((branch) => ({
      name: branch.name,
      merged: false,
      protected: !!branch.protected,
      default: branch.name === repository.defaultBranch,
      developers_can_push: false,
      developers_can_merge: false,
      can_push: true,
      web_url: `${fake.url}/-/tree/${encodeURIComponent(branch.name)}`,
      commit: { id: branch.sha, short_id: branch.sha.slice(0, 8), title: 'a commit' },
    })),
    headers,
  )
}

function bitbucket(fake: FakeProvider, res: ServerResponse, segments: string[], query: URLSearchParams, path: string) {
  // GET /repositories/{workspace}/{repo_slug} and GET /repositories/{workspace}/{repo_slug}/refs/branches
  const notFound = () => json(res, 404, { type: 'error', error: { message: 'Repository not found' } })
  if (segments[0] === 'repositories' && segments.length <= 2) {
    const workspace = segments[1] || undefined
    if (workspace !== undefined && ![...fake.repositories.keys()].some((name) => name.startsWith(`${workspace}/`))) return notFound()
    const { items, number, pages, total } = repositoryPage(fake, query, 'pagelen', workspace)
    return json(res, 200, {
      size: total,
      page: number,
      ...(number < pages ? { next: linkTo(fake.url, path, query, number + 1) } : {}),
      values: items.map((name) => ({
        type: 'repository',
        uuid: `{${name}}`,
        name: name.split('/').at(-1),
        full_name: name,
        is_private: true,
        mainbranch: { type: 'branch', name: fake.repositories.get(name)!.defaultBranch },
        links: { html: { href: webUrl(fake, name) } },
      })),
    })
  }
  if (segments[0] !== 'repositories' || segments.length < 3) return notFound()
  if (movedAway(fake, res, segments, query)) return
  const fullName = `${segments[1]}/${segments[2]}`
  const repository = fake.repositories.get(fullName)
  if (!repository) return notFound()
  if (segments.length === 3) {
    return json(res, 200, { type: 'repository', full_name: fullName, mainbranch: { type: 'branch', name: repository.defaultBranch } })
  }
  if (segments[3] === 'commit' || segments[3] === 'commits' || (segments[3] === 'refs' && segments[4] === 'tags')) {
    return bitbucketCommits(fake, res, segments, query, repository)
  }
  if (segments.length !== 5 || segments[3] !== 'refs' || segments[4] !== 'branches') return notFound()
  const { items, number, pages, size } = page(sorted(repository), query, 'pagelen', 100)
  json(res, 200, {
    size: repository.branches.length,
    page: number,
    pagelen: size,
    ...(number < pages ? { next: linkTo(fake.url, path, query, number + 1) } : {}),
    values: items.map((branch) => ({
      type: 'branch',
      name: branch.name,
      target: { type: 'commit', hash: branch.sha },
      links: { self: { href: `${fake.url}/branches/${encodeURIComponent(branch.name)}` } },
    })),
  })
}

const bitbucketCommit = (fake: FakeProvider, fullName: string, commit: FakeCommit) => ({
  type: 'commit',
  hash: commit.sha,
  date: commit.date,
  message: commit.message,
  author: {
    type: 'author',
    raw: `${commit.authorName} <${commit.authorEmail ?? 'author@example.com'}>`,
    user: { display_name: commit.authorName, links: { avatar: { href: `${fake.url}/avatars/${commit.sha.slice(0, 7)}` } } },
  },
  links: { html: { href: `${fake.url}/${fullName}/commits/${commit.sha}` } },
})

/** Bitbucket's commits and tags: GET /repositories/{workspace}/{repo}/refs/tags, …/commit/{commit}, …/commits/{revision}. */
function bitbucketCommits(fake: FakeProvider, res: ServerResponse, segments: string[], query: URLSearchParams, repository: FakeRepository) {
  const fullName = `${segments[1]}/${segments[2]}`
  const missing = () => json(res, 404, { type: 'error', error: { message: 'Commit not found' } })
  if (segments[3] === 'refs') {
    return json(res, 200, {
      pagelen: 100,
      page: 1,
      values: (repository.tags ?? []).map((tag) => ({ type: 'tag', name: tag.name, target: { type: 'commit', hash: tag.sha } })),
    })
  }
  if (segments[3] === 'commit' && segments.length === 5) {
    const commit = resolveRef(repository, segments[4]!)
    return commit ? json(res, 200, bitbucketCommit(fake, fullName, commit)) : missing()
  }
  if (segments[3] === 'commits' && segments.length === 5) {
    const history = historyFrom(repository, segments[4]!, pageSize(query, 'pagelen'))
    return history ? json(res, 200, { pagelen: history.length, values: history.map((commit) => bitbucketCommit(fake, fullName, commit)) }) : missing()
  }
  return missing()
}

const HANDLERS = { github, gitlab, bitbucket }

/** GitHub's secondary rate limit: a 403 whose headers show the primary limit far from exhausted. */
function secondaryRateLimited(res: ServerResponse) {
  json(
    res,
    403,
    {
      message: 'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.',
      documentation_url: 'https://docs.github.com/rest/using-the-rest-api/rate-limits-for-the-rest-api#about-secondary-rate-limits',
    },
    { 'x-ratelimit-limit': '5000', 'x-ratelimit-remaining': '4990', 'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + 3000) },
  )
}

function rateLimited(fake: FakeProvider, res: ServerResponse) {
  const limit = fake.rateLimit!
  const resetAt = Math.floor(Date.now() / 1000) + (limit.resetInSeconds ?? 0)
  const retryAfter: Record<string, string> = limit.retryAfter === undefined ? {} : { 'retry-after': String(limit.retryAfter) }
  if (fake.kind === 'github') {
    // Primary rate limit: 403 (or 429) with x-ratelimit-remaining 0 and the reset as a Unix time.
    return json(
      res,
      403,
      { message: 'API rate limit exceeded' },
      { 'x-ratelimit-limit': '5000', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(resetAt), ...retryAfter },
    )
  }
  if (fake.kind === 'gitlab') {
    return json(
      res,
      429,
      { message: 'Retry later' },
      { 'ratelimit-limit': '2000', 'ratelimit-remaining': '0', 'ratelimit-reset': String(resetAt), ...retryAfter },
    )
  }
  return json(res, 429, { type: 'error', error: { message: 'Rate limit for this resource has been exceeded' } }, retryAfter)
}

/** Starts a fake of `kind` on a free loopback port. */
export async function startFakeProvider(kind: FakeKind): Promise<FakeProvider> {
  const server: Server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const fake: FakeProvider = {
    kind,
    url,
    repositories: new Map(),
    moved: new Map(),
    tokens: new Set(),
    scopelessTokens: new Set(),
    requests: [],
    rateLimit: undefined,
    secondaryRateLimit: false,
    open: false,
    delayMs: 0,
    failWith: undefined,
    repositoryStatus: undefined,
    maxInFlight: 0,
    omitTotals: false,
    readOnlyTokens: new Set(),
    async close() {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }

  let inFlight = 0
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => respond(req, res, Buffer.concat(chunks).toString('utf8')))
  })
  const respond = (req: IncomingMessage, res: ServerResponse, text: string) => {
    const [rawPath, search] = (req.url ?? '/').split('?') as [string, string | undefined]
    const query = new URLSearchParams(search ?? '')
    const token = presentedToken(kind, req)
    fake.requests.push({ method: req.method ?? 'GET', path: rawPath, query, authorization: req.headers.authorization })
    inFlight++
    fake.maxInFlight = Math.max(fake.maxInFlight, inFlight)
    res.on('close', () => inFlight--)
    const segments = rawPath
      .slice(PREFIX[kind].length + 1)
      .split('/')
      .map(decodeURIComponent)
    const isRepositoryCall = segments.length === 3 && (segments[0] === 'repos' || segments[0] === 'repositories')
    if (isRepositoryCall && fake.repositoryStatus !== undefined) return json(res, fake.repositoryStatus, { message: 'Server Error' })
    const answer = () => {
      if (res.destroyed) return
      if (!rawPath.startsWith(`${PREFIX[kind]}/`)) return json(res, 404, { message: 'Not Found' })
      if (fake.open) return HANDLERS[kind](fake, res, segments, query, rawPath)
      if (token === undefined || !(fake.tokens.has(token) || fake.scopelessTokens.has(token))) {
        return json(
          res,
          401,
          { message: kind === 'gitlab' ? '401 Unauthorized' : 'Bad credentials' },
          kind === 'bitbucket' ? { 'www-authenticate': 'Basic realm="Bitbucket.org HTTP"' } : {},
        )
      }
      if (fake.rateLimit) return rateLimited(fake, res)
      if (fake.secondaryRateLimit) return secondaryRateLimited(res)
      if (fake.scopelessTokens.has(token)) return json(res, 403, { message: 'Resource not accessible by personal access token' })
      if (fake.failWith !== undefined) return json(res, fake.failWith, { message: 'Server Error' })
      const method = req.method ?? 'GET'
      if (method !== 'GET' && fake.readOnlyTokens.has(token)) return json(res, 403, { message: 'Must have admin rights to Repository.' })
      if (hooksCall(fake, res, method, segments, text)) return
      return HANDLERS[kind](fake, res, segments, query, rawPath)
    }
    if (fake.delayMs > 0) {
      // Forgotten when the caller goes away first, so that no timer outlives the fake.
      const timer = setTimeout(answer, fake.delayMs)
      res.on('close', () => clearTimeout(timer))
    } else answer()
  }
  return fake
}

/** The hooks API: GitHub /repos/{o}/{r}/hooks[/{id}], GitLab /projects/{id}/hooks[/{id}], Bitbucket /repositories/{w}/{r}/hooks[/{uuid}]. */
function hooksCall(fake: FakeProvider, res: ServerResponse, method: string, segments: string[], text: string): boolean {
  const at = fake.kind === 'gitlab' ? 2 : 3
  if (segments[at] !== 'hooks' || segments.length > at + 2) return false
  const repository = fake.repositories.get(fake.kind === 'gitlab' ? segments[1]! : `${segments[1]}/${segments[2]}`)
  if (!repository) {
    json(res, 404, { message: 'Not Found' })
    return true
  }
  repository.hooks ??= []
  const hookId = segments[at + 1]
  let body: Record<string, unknown> = {}
  try {
    body = text === '' ? {} : (JSON.parse(text) as Record<string, unknown>)
  } catch {
    json(res, 400, { message: 'Problems parsing JSON' })
    return true
  }
  const wire = (hook: FakeHook) =>
    fake.kind === 'github'
      ? {
          id: Number(hook.id),
          name: 'web',
          active: hook.active,
          events: hook.events,
          config: { url: hook.url, content_type: 'json', secret: '********' },
        }
      : fake.kind === 'gitlab'
        ? {
            id: Number(hook.id),
            url: hook.url,
            push_events: hook.events.includes('push_events'),
            merge_requests_events: hook.events.includes('merge_requests_events'),
            alert_status: hook.active ? 'executable' : 'disabled',
          }
        : { uuid: hook.id, url: hook.url, active: hook.active, events: hook.events, secret_set: hook.secret !== undefined }
  const fromBody = (hook: FakeHook): FakeHook => {
    if (fake.kind === 'github') {
      const config = (body.config ?? {}) as Record<string, unknown>
      return {
        ...hook,
        url: typeof config.url === 'string' ? config.url : hook.url,
        secret: typeof config.secret === 'string' ? config.secret : hook.secret,
        active: typeof body.active === 'boolean' ? body.active : hook.active,
        events: Array.isArray(body.events) ? (body.events as string[]) : hook.events,
      }
    }
    if (fake.kind === 'gitlab') {
      const events = ['push_events', 'merge_requests_events'].filter((event) =>
        typeof body[event] === 'boolean' ? body[event] === true : hook.events.includes(event),
      )
      return {
        ...hook,
        url: typeof body.url === 'string' ? body.url : hook.url,
        secret: typeof body.token === 'string' ? body.token : hook.secret,
        active: true,
        events,
      }
    }
    return {
      ...hook,
      url: typeof body.url === 'string' ? body.url : hook.url,
      secret: typeof body.secret === 'string' ? body.secret : hook.secret,
      active: typeof body.active === 'boolean' ? body.active : hook.active,
      events: Array.isArray(body.events) ? (body.events as string[]) : hook.events,
    }
  }
  if (hookId === undefined && method === 'GET') {
    const listed = repository.hooks.map(wire)
    json(res, 200, fake.kind === 'bitbucket' ? { pagelen: 100, page: 1, size: listed.length, values: listed } : listed)
    return true
  }
  if (hookId === undefined && method === 'POST') {
    const id = fake.kind === 'bitbucket' ? `{${repository.hooks.length + 1}-hook}` : String(100 + repository.hooks.length)
    // GitHub's default events are push only; GitLab's push_events default to true.
    const made = fromBody({ id, url: '', active: true, events: fake.kind === 'gitlab' ? ['push_events'] : ['push'] })
    repository.hooks.push(made)
    json(res, 201, wire(made))
    return true
  }
  const index = repository.hooks.findIndex((hook) => hook.id === hookId)
  const editing = fake.kind === 'github' ? 'PATCH' : 'PUT'
  if (index === -1 || (method !== editing && method !== 'GET')) {
    json(res, 404, { message: 'Not Found' })
    return true
  }
  if (method === editing) repository.hooks[index] = fromBody(repository.hooks[index]!)
  json(res, 200, wire(repository.hooks[index]!))
  return true
}

/**
 * `count` branches whose names have slashes and non-ASCII characters, plus `main`, each on its own
 * commit; every tenth is protected.
 */
export function manyBranches(count: number): FakeRepository {
  const branches: FakeBranch[] = [{ name: 'main', sha: sha(0), protected: true }]
  const shapes = [
    (i: number) => `feature/ünïcødé-${i}`,
    (i: number) => `release/v1.${i}`,
    (i: number) => `fix/日本語/ブランチ-${i}`,
    (i: number) => `team/a/b/c-${i}`,
  ]
  for (let i = 1; i < count; i++) branches.push({ name: shapes[i % shapes.length]!(i), sha: sha(i), protected: i % 10 === 0 })
  return { defaultBranch: 'main', branches }
}

const sha = (i: number) => i.toString(16).padStart(40, 'a')
