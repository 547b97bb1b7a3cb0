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

export interface FakeRepository {
  defaultBranch: string
  branches: FakeBranch[]
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

function github(fake: FakeProvider, res: ServerResponse, segments: string[], query: URLSearchParams, path: string) {
  // GET /repos/{owner}/{repo} and GET /repos/{owner}/{repo}/branches
  if (segments[0] !== 'repos' || segments.length < 3) return json(res, 404, { message: 'Not Found' })
  if (movedAway(fake, res, segments, query)) return
  const repository = fake.repositories.get(`${segments[1]}/${segments[2]}`)
  if (!repository) return json(res, 404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' })
  if (segments.length === 3) return json(res, 200, { full_name: `${segments[1]}/${segments[2]}`, default_branch: repository.defaultBranch })
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

function gitlab(fake: FakeProvider, res: ServerResponse, segments: string[], query: URLSearchParams, path: string) {
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
  if (segments[0] !== 'repositories' || segments.length < 3) return notFound()
  if (movedAway(fake, res, segments, query)) return
  const fullName = `${segments[1]}/${segments[2]}`
  const repository = fake.repositories.get(fullName)
  if (!repository) return notFound()
  if (segments.length === 3) {
    return json(res, 200, { type: 'repository', full_name: fullName, mainbranch: { type: 'branch', name: repository.defaultBranch } })
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
    async close() {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }

  let inFlight = 0
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
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
      return HANDLERS[kind](fake, res, segments, query, rawPath)
    }
    if (fake.delayMs > 0) {
      // Forgotten when the caller goes away first, so that no timer outlives the fake.
      const timer = setTimeout(answer, fake.delayMs)
      res.on('close', () => clearTimeout(timer))
    } else answer()
  })
  return fake
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
