import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, afterEach, before, describe, it } from 'node:test'
import type { LightMyRequestResponse } from 'fastify'
import pino from 'pino'
import { buildApp } from '#src/app.ts'
import { loadConfig } from '#src/config.ts'
import { openDatabase } from '#src/platform/db/database.ts'
import { createTestApp, type TestApp, testDatabaseUrl, testSecretBox } from './helpers/app.ts'
import { assertError, assertValidationError } from './helpers/assertions.ts'
import { factories } from './helpers/factories.ts'
import { type FakeKind, type FakeProvider, type FakeRepository, manyBranches, startFakeProvider } from './helpers/fake-git-providers.ts'

const TYPE = { github: 'GITHUB', gitlab: 'GITLAB', bitbucket: 'BITBUCKET' } as const
const KINDS: FakeKind[] = ['github', 'gitlab', 'bitbucket']

interface Branch {
  name: string
  is_default?: boolean
  commit_id?: string
  protected?: boolean
}

/** A repository path of the provider's shape: GitLab's with a subgroup. */
const repositoryPath = (kind: FakeKind) => (kind === 'gitlab' ? `grp-${randomUUID().slice(0, 6)}/sub/app` : `acme-${randomUUID().slice(0, 6)}/app`)

describe('branch listing at GitHub, GitLab and Bitbucket', () => {
  let t: TestApp
  const fakes = {} as Record<FakeKind, FakeProvider>

  before(async () => {
    t = await createTestApp({ BERTH_GIT_ALLOW_PRIVATE_URLS: 'true' })
    for (const kind of KINDS) fakes[kind] = await startFakeProvider(kind)
  })
  after(async () => {
    await t.close()
    for (const kind of KINDS) await fakes[kind].close()
  })
  afterEach(() => {
    for (const kind of KINDS) {
      Object.assign(fakes[kind], {
        rateLimit: undefined,
        secondaryRateLimit: false,
        delayMs: 0,
        failWith: undefined,
        repositoryStatus: undefined,
        omitTotals: false,
      })
    }
  })

  const branchUrl = (kind: FakeKind, organizationId: string, query: Record<string, string>) =>
    `/organization/${organizationId}/account/${kind}/repository/branch?${new URLSearchParams(query)}`

  /** An organization with a git token of the provider that the fake accepts, and a repository in the fake. */
  async function setup(kind: FakeKind, options: { repository?: FakeRepository; secret?: string; workspace?: string } = {}) {
    const f = factories(t.db)
    const { organization, tokens } = await f.organizationWithTokens()
    const secret = options.secret ?? `${kind}-secret-${randomUUID()}`
    fakes[kind].tokens.add(secret)
    const path = repositoryPath(kind)
    fakes[kind].repositories.set(path, options.repository ?? manyBranches(5))
    const gitToken = await f.gitToken(organization.id, {
      type: TYPE[kind],
      token: secret,
      gitApiUrl: fakes[kind].url,
      workspace: kind === 'bitbucket' ? (options.workspace ?? path.split('/')[0]!) : null,
    })
    const list = (query: Record<string, string> = { name: path }, authorization = tokens.read.authorization) =>
      t.app.inject({ method: 'GET', url: branchUrl(kind, organization.id, query), headers: { authorization } })
    return { f, organization, tokens, secret, path, gitToken, list }
  }

  const results = (res: LightMyRequestResponse): Branch[] => {
    assert.equal(res.statusCode, 200, res.body)
    return (res.json() as { results: Branch[] }).results
  }

  const callsFor = (fake: FakeProvider, from: number) => fake.requests.slice(from)

  for (const kind of KINDS) {
    describe(`${TYPE[kind]}`, () => {
      it('lists every branch of a 260-branch repository across pages, names with slashes and non-ASCII characters intact', async () => {
        const repository = manyBranches(260)
        const { list, path, secret } = await setup(kind, { repository })
        const before = fakes[kind].requests.length
        const branches = results(await list())
        assert.equal(branches.length, 260)
        const expected = [...repository.branches].sort((a, b) => (a.name < b.name ? -1 : 1))
        assert.deepEqual(
          branches.map((b) => b.name),
          expected.map((b) => b.name),
        )
        assert.ok(branches.some((b) => b.name === 'fix/日本語/ブランチ-2'))
        assert.ok(branches.some((b) => b.name === 'feature/ünïcødé-4'))
        const main = branches.find((b) => b.name === 'main')!
        assert.equal(main.is_default, true)
        assert.equal(main.commit_id, repository.branches[0]!.sha)
        assert.equal(branches.filter((b) => b.is_default).length, 1)
        for (const branch of branches) assert.equal(branch.commit_id, repository.branches.find((b) => b.name === branch.name)!.sha)
        if (kind === 'bitbucket')
          assert.ok(
            branches.every((b) => b.protected === undefined),
            'Bitbucket branches carry no protection flag',
          )
        else assert.equal(branches.filter((b) => b.protected).length, repository.branches.filter((b) => b.protected).length)

        const calls = callsFor(fakes[kind], before).filter((call) => call.path.endsWith('/branches'))
        assert.equal(calls.length, 3, 'three pages of 100')
        const size = kind === 'bitbucket' ? 'pagelen' : 'per_page'
        for (const call of calls) assert.equal(call.query.get(size), '100')
        assert.deepEqual(calls.map((call) => call.query.get('page') ?? '1').sort(), ['1', '2', '3'])
        const encoded = kind === 'gitlab' ? encodeURIComponent(path) : path
        for (const call of calls) assert.ok(call.path.includes(`/${encoded}/`), call.path)
        // The documented credential header of each provider.
        for (const call of callsFor(fakes[kind], before)) assert.equal(call.authorization, `Bearer ${secret}`)
      })

      it('answers 400 git_token_invalid when the provider rejects the token, without quoting it', async () => {
        const { list, secret } = await setup(kind)
        fakes[kind].tokens.delete(secret)
        const body = assertError(await list(), 400, 'git_token_invalid')
        assert.match(body.message, /401/)
        assert.ok(!body.message.includes(secret))
      })

      it('answers 400 git_token_invalid when the token lacks the scope to read the repository', async () => {
        const { list, secret } = await setup(kind)
        fakes[kind].tokens.delete(secret)
        fakes[kind].scopelessTokens.add(secret)
        const body = assertError(await list(), 400, 'git_token_invalid')
        assert.match(body.message, /403/)
      })

      it('answers 404 repository_not_found for a repository the provider does not have', async () => {
        const { list, path } = await setup(kind)
        const missing = `${path.split('/')[0]}/missing`
        const body = assertError(await list({ name: missing }), 404, 'repository_not_found')
        assert.ok(body.message.includes(missing))
      })

      it('answers 429 rate_limited with Retry-After from the provider', async () => {
        const { list } = await setup(kind)
        fakes[kind].rateLimit = kind === 'bitbucket' ? { retryAfter: 42 } : { resetInSeconds: 120 }
        const res = await list()
        assertError(res, 429, 'rate_limited')
        const retryAfter = Number(res.headers['retry-after'])
        if (kind === 'bitbucket') assert.equal(retryAfter, 42)
        else assert.ok(retryAfter >= 119 && retryAfter <= 121, `Retry-After ${retryAfter}`)
      })

      it('answers 502 bad_gateway when the provider fails', async () => {
        const { list } = await setup(kind)
        fakes[kind].failWith = 503
        const body = assertError(await list(), 502, 'bad_gateway')
        assert.match(body.message, /503/)
      })

      it('asks the provider once per page for identical concurrent requests, and reuses the listing afterwards', async () => {
        const { list } = await setup(kind, { repository: manyBranches(250) })
        fakes[kind].delayMs = 50
        const before = fakes[kind].requests.length
        const answers = await Promise.all(Array.from({ length: 8 }, () => list()))
        const first = results(answers[0]!)
        assert.equal(first.length, 250)
        for (const res of answers) assert.deepEqual(results(res), first)
        const upstream = callsFor(fakes[kind], before)
        assert.equal(upstream.filter((call) => call.path.endsWith('/branches')).length, 3)
        assert.equal(upstream.length, kind === 'gitlab' ? 3 : 4, 'GitHub and Bitbucket also read the repository once')
        assert.deepEqual(results(await list()), first)
        assert.equal(fakes[kind].requests.length, before + upstream.length, 'served from the cache')
      })
    })
  }

  describe('caching', () => {
    it('drops the listings of a git token when it is edited: the next listing uses the new secret', async () => {
      const { list, organization, tokens, gitToken, path } = await setup('github')
      assert.equal(results(await list()).length, 5)
      const before = fakes.github.requests.length
      assert.equal(results(await list()).length, 5)
      assert.equal(fakes.github.requests.length, before, 'cached')
      fakes.github.repositories.get(path)!.branches.push({ name: 'added/after-edit', sha: 'b'.repeat(40) })
      const newSecret = `github-secret-${randomUUID()}`
      fakes.github.tokens.add(newSecret)
      const edited = await t.app.inject({
        method: 'PUT',
        url: `/organization/${organization.id}/gitToken/${gitToken.id}`,
        headers: { authorization: tokens.write.authorization },
        payload: { name: gitToken.name, type: 'GITHUB', token: newSecret, git_api_url: fakes.github.url },
      })
      assert.equal(edited.statusCode, 200, edited.body)
      const branches = results(await list())
      assert.equal(branches.length, 6)
      const calls = callsFor(fakes.github, before)
      assert.ok(calls.length > 0)
      for (const call of calls) assert.equal(call.authorization, `Bearer ${newSecret}`)
    })

    it('stops listing with a git token once it is deleted: 400 as none is left, 404 when named', async () => {
      const { list, organization, tokens, gitToken } = await setup('gitlab')
      assert.equal(results(await list()).length, 5)
      const deleted = await t.app.inject({
        method: 'DELETE',
        url: `/organization/${organization.id}/gitToken/${gitToken.id}`,
        headers: { authorization: tokens.write.authorization },
      })
      assert.equal(deleted.statusCode, 204)
      assertValidationError(await list())
      assertError(await list({ name: 'a/b', gitTokenId: gitToken.id }), 404, 'not_found')
    })
  })

  describe('which git token', () => {
    it('uses the named token, and the only token of the provider when none is named', async () => {
      const { list, gitToken, path } = await setup('github')
      assert.equal(results(await list({ name: path, gitTokenId: gitToken.id })).length, 5)
      assert.equal(results(await list({ name: path })).length, 5)
    })

    it('answers 400 when the organization has no token of the provider', async () => {
      const { organization, tokens } = await factories(t.db).organizationWithTokens()
      const res = await t.app.inject({
        method: 'GET',
        url: branchUrl('gitlab', organization.id, { name: 'a/b' }),
        headers: { authorization: tokens.read.authorization },
      })
      const [error] = assertValidationError(res)
      assert.deepEqual([error!.path, error!.location], ['/gitTokenId', 'query'])
      assert.match(error!.message, /no GITLAB git token/)
    })

    it('answers 400 naming the tokens when the organization has several of the provider and none is named', async () => {
      const { list, f, organization } = await setup('github')
      await f.gitToken(organization.id, { type: 'GITHUB', name: 'second github token' })
      const [error] = assertValidationError(await list())
      assert.match(error!.message, /2 GITHUB git tokens/)
      assert.match(error!.message, /"second github token"/)
    })

    it('answers 400 for a token of another provider', async () => {
      const { list, f, organization, path } = await setup('github')
      const gitlabToken = await f.gitToken(organization.id, { type: 'GITLAB' })
      const [error] = assertValidationError(await list({ name: path, gitTokenId: gitlabToken.id }))
      assert.match(error!.message, /is a GITLAB git token/)
    })

    it("answers 404 for another organization's token, as for one that does not exist", async () => {
      const { list, path } = await setup('github')
      const other = await setup('github')
      assertError(await list({ name: path, gitTokenId: other.gitToken.id }), 404, 'not_found')
      assertError(await list({ name: path, gitTokenId: randomUUID() }), 404, 'not_found')
    })

    it('lists a Bitbucket repository of the token’s workspace by its name alone', async () => {
      const { list, path } = await setup('bitbucket')
      assert.equal(results(await list({ name: path.split('/')[1]! })).length, 5)
    })

    it('answers 400 on /name, calling nobody, when the Bitbucket token’s workspace is not one workspace name', async () => {
      for (const workspace of ['..', '.', 'a/b', ' team']) {
        const { list, path } = await setup('bitbucket', { workspace })
        const before = fakes.bitbucket.requests.length
        const [error] = assertValidationError(await list({ name: path.split('/')[1]! }))
        assert.deepEqual([error!.path, error!.location], ['/name', 'query'], workspace)
        assert.match(error!.message, /workspace/, workspace)
        assert.equal(fakes.bitbucket.requests.length, before, workspace)
        assert.equal(results(await list({ name: path })).length, 5, 'a full workspace/repo name does not need it')
      }
    })

    it('sends a Bitbucket app password (username:secret) as Basic authentication', async () => {
      const secret = `robot:${randomUUID()}`
      const { list } = await setup('bitbucket', { secret })
      const before = fakes.bitbucket.requests.length
      assert.equal(results(await list()).length, 5)
      for (const call of callsFor(fakes.bitbucket, before)) assert.equal(call.authorization, `Basic ${Buffer.from(secret).toString('base64')}`)
    })

    it('follows GitLab’s x-next-page one page at a time when it leaves out the page count', async () => {
      const { list } = await setup('gitlab', { repository: manyBranches(230) })
      fakes.gitlab.omitTotals = true
      const before = fakes.gitlab.requests.length
      assert.equal(results(await list()).length, 230)
      assert.deepEqual(
        callsFor(fakes.gitlab, before).map((call) => call.query.get('page')),
        ['1', '2', '3'],
      )
    })

    it('follows GitHub to a renamed repository on the same host, with the token', async () => {
      const { list, path, secret } = await setup('github')
      const before = fakes.github.requests.length
      fakes.github.moved.set('acme/renamed-away', `${fakes.github.url}/api/v3/repos/${path}`)
      assert.equal(results(await list({ name: 'acme/renamed-away' })).length, 5)
      const calls = callsFor(fakes.github, before)
      assert.ok(calls.some((call) => call.path.includes(`/repos/${path}/branches`)))
      for (const call of calls) assert.equal(call.authorization, `Bearer ${secret}`)
    })

    for (const kind of ['github', 'bitbucket'] as const) {
      it(`refuses a ${TYPE[kind]} redirect to another host with 502, and never calls that host, whose pages would lead the token to it`, async () => {
        const { list } = await setup(kind)
        // A host that answers anyone, and whose pages link to further pages on itself.
        const elsewhere = await startFakeProvider(kind)
        try {
          elsewhere.open = true
          elsewhere.repositories.set('acme/app', manyBranches(250))
          fakes[kind].moved.set('acme/moved-elsewhere', `${elsewhere.url}${kind === 'github' ? '/api/v3/repos' : '/2.0/repositories'}/acme/app`)
          const body = assertError(await list({ name: 'acme/moved-elsewhere' }), 502, 'bad_gateway')
          assert.match(body.message, /redirected .* to another host/)
          assert.deepEqual(elsewhere.requests, [], 'nothing reached the other host, with or without the token')
        } finally {
          await elsewhere.close()
        }
      })
    }

    it('lists a GitLab project by its numeric id', async () => {
      const { list } = await setup('gitlab')
      fakes.gitlab.repositories.set('4242', manyBranches(3))
      assert.equal(results(await list({ name: '4242' })).length, 3)
    })
  })

  describe('pagination and limits', () => {
    it('answers 429 with Retry-After 60 for GitHub’s secondary rate limit, a 403 only its message tells apart', async () => {
      const { list } = await setup('github')
      fakes.github.secondaryRateLimit = true
      const res = await list()
      assertError(res, 429, 'rate_limited')
      assert.equal(res.headers['retry-after'], '60')
    })

    it('fetches GitLab’s pages concurrently, at most four at once, when it tells the page count', async () => {
      const { list } = await setup('gitlab', { repository: manyBranches(950) })
      fakes.gitlab.delayMs = 30
      fakes.gitlab.maxInFlight = 0
      assert.equal(results(await list()).length, 950)
      assert.ok(fakes.gitlab.maxInFlight > 1, `at most ${fakes.gitlab.maxInFlight} call(s) at once`)
      assert.ok(fakes.gitlab.maxInFlight <= 4, `${fakes.gitlab.maxInFlight} calls at once`)
    })

    for (const kind of ['github', 'bitbucket'] as const) {
      it(`stops paging ${TYPE[kind]} once the repository call failed, rather than go on behind the error`, async () => {
        const { list } = await setup(kind, { repository: manyBranches(450) })
        fakes[kind].repositoryStatus = 500
        fakes[kind].delayMs = 40
        const before = fakes[kind].requests.length
        assertError(await list(), 502, 'bad_gateway')
        // Five pages, 40 ms each, would all have been asked for by now had paging gone on.
        await new Promise((resolve) => setTimeout(resolve, 400))
        const pages = callsFor(fakes[kind], before).filter((call) => call.path.endsWith('/branches'))
        assert.equal(pages.length, 1, 'only the first page, asked for beside the repository')
      })
    }
  })

  describe('requests', () => {
    it('accepts a plain http git_api_url when BERTH_GIT_ALLOW_PRIVATE_URLS=true', async () => {
      const { organization, tokens } = await factories(t.db).organizationWithTokens()
      const res = await t.app.inject({
        method: 'POST',
        url: `/organization/${organization.id}/gitToken`,
        headers: { authorization: tokens.write.authorization },
        payload: { name: 'plain http', type: 'GITLAB', token: 'glpat-secret', git_api_url: 'http://gitlab.example.com' },
      })
      assert.equal(res.statusCode, 201, res.body)
    })

    it('answers 400 naming /name when it is missing or not a repository of the provider', async () => {
      const { list } = await setup('github')
      const [missing] = assertValidationError(await list({}))
      assert.deepEqual([missing!.path, missing!.location], ['/name', 'query'])
      for (const name of ['just-a-name', 'a/b/c', 'a//b', '../b']) {
        const [error] = assertValidationError(await list({ name }))
        assert.deepEqual([error!.path, error!.location], ['/name', 'query'], name)
      }
    })

    it('needs credentials (401) and access to the organization (404); READ is enough', async () => {
      const { organization, path, list } = await setup('github')
      assertError(await t.app.inject({ method: 'GET', url: branchUrl('github', organization.id, { name: path }) }), 401, 'unauthenticated')
      const stranger = await factories(t.db).organizationWithTokens()
      assertError(await list({ name: path }, stranger.tokens.admin.authorization), 404, 'not_found')
    })
  })
})

describe('branch listing when the provider is slow or unreachable', () => {
  let t: TestApp
  const fakes = {} as Record<FakeKind, FakeProvider>
  before(async () => {
    t = await createTestApp({ BERTH_GIT_ALLOW_PRIVATE_URLS: 'true', BERTH_GIT_TIMEOUT_MS: '300' })
    for (const kind of KINDS) fakes[kind] = await startFakeProvider(kind)
  })
  after(async () => {
    await t.close()
    for (const kind of KINDS) await fakes[kind].close()
  })
  afterEach(() => {
    for (const kind of KINDS) fakes[kind].delayMs = 0
  })

  async function listWith(kind: FakeKind, gitApiUrl: string, repository: FakeRepository = manyBranches(3)) {
    const f = factories(t.db)
    const { organization, tokens } = await f.organizationWithTokens()
    const secret = `slow-${randomUUID()}`
    const path = kind === 'gitlab' ? 'acme/sub/slow' : 'acme/slow'
    fakes[kind].tokens.add(secret)
    fakes[kind].repositories.set(path, repository)
    await f.gitToken(organization.id, { type: TYPE[kind], token: secret, gitApiUrl, workspace: kind === 'bitbucket' ? 'acme' : null })
    return t.app.inject({
      method: 'GET',
      url: `/organization/${organization.id}/account/${kind}/repository/branch?name=${path}`,
      headers: { authorization: tokens.read.authorization },
    })
  }

  for (const kind of KINDS) {
    it(`answers 504 gateway_timeout when ${TYPE[kind]} is slower than BERTH_GIT_TIMEOUT_MS`, async () => {
      fakes[kind].delayMs = 2000
      const body = assertError(await listWith(kind, fakes[kind].url), 504, 'gateway_timeout')
      assert.match(body.message, /300 ms/)
    })

    it(`answers 504 when ${TYPE[kind]} answers each page in time, but not all of them: the timeout is the listing’s`, async () => {
      // Ten pages at 120 ms each: even four at once (GitLab) take longer than 300 ms.
      fakes[kind].delayMs = 120
      assertError(await listWith(kind, fakes[kind].url, manyBranches(950)), 504, 'gateway_timeout')
    })
  }

  it('answers 502 bad_gateway when nothing listens at the address', async () => {
    const closed = await startFakeProvider('github')
    const url = closed.url
    await closed.close()
    const body = assertError(await listWith('github', url), 502, 'bad_gateway')
    assert.match(body.message, /ECONNREFUSED/)
  })
})

describe('branch listings of an edited or deleted git token', () => {
  let t: TestApp
  let fake: FakeProvider
  before(async () => {
    // Room for two listings: one left behind by a changed token would push out another.
    t = await createTestApp({ BERTH_GIT_ALLOW_PRIVATE_URLS: 'true', BERTH_GIT_CACHE_MAX_ENTRIES: '2' })
    fake = await startFakeProvider('github')
  })
  after(async () => {
    await t.close()
    await fake.close()
  })

  for (const change of ['PUT', 'DELETE'] as const) {
    it(`leave the cache at once (${change}), making room for other listings`, async () => {
      const f = factories(t.db)
      const { organization, tokens } = await f.organizationWithTokens()
      const [changed, kept] = [`changed-${randomUUID()}`, `kept-${randomUUID()}`]
      for (const secret of [changed, kept]) fake.tokens.add(secret)
      const changedToken = await f.gitToken(organization.id, { token: changed, gitApiUrl: fake.url })
      const keptToken = await f.gitToken(organization.id, { token: kept, gitApiUrl: fake.url })
      for (const name of ['acme/a', 'acme/b', 'acme/c']) fake.repositories.set(name, manyBranches(3))
      const list = async (name: string, gitTokenId: string) => {
        const res = await t.app.inject({
          method: 'GET',
          url: `/organization/${organization.id}/account/github/repository/branch?${new URLSearchParams({ name, gitTokenId })}`,
          headers: { authorization: tokens.read.authorization },
        })
        assert.equal(res.statusCode, 200, res.body)
      }

      await list('acme/b', keptToken.id)
      await list('acme/a', changedToken.id)
      const res = await t.app.inject({
        method: change,
        url: `/organization/${organization.id}/gitToken/${changedToken.id}`,
        headers: { authorization: tokens.write.authorization },
        ...(change === 'PUT' ? { payload: { name: changedToken.name, type: 'GITHUB', token: changed, git_api_url: fake.url } } : {}),
      })
      assert.ok(res.statusCode < 300, res.body)
      await list('acme/c', keptToken.id)
      const before = fake.requests.length
      await list('acme/b', keptToken.id)
      assert.equal(fake.requests.length, before, 'acme/b is still cached: acme/a’s listing left with its token')
    })
  }
})

describe('git_api_url into the server’s own network, with BERTH_GIT_ALLOW_PRIVATE_URLS unset', () => {
  let t: TestApp
  let fake: FakeProvider
  before(async () => {
    t = await createTestApp()
    fake = await startFakeProvider('github')
  })
  after(async () => {
    await t.close()
    await fake.close()
  })

  it('refuses to list with a stored token whose git_api_url is, or resolves to, a loopback address, and never calls it', async () => {
    const port = new URL(fake.url).port
    for (const gitApiUrl of [fake.url, `http://localhost:${port}`, `http://[::ffff:127.0.0.1]:${port}`, `http://[::1]:${port}`]) {
      const f = factories(t.db)
      const { organization, tokens } = await f.organizationWithTokens()
      const secret = `private-${randomUUID()}`
      fake.tokens.add(secret)
      fake.repositories.set('acme/app', manyBranches(3))
      // Stored as a server that allowed private URLs would have; the guard applies at listing time too.
      await f.gitToken(organization.id, { type: 'GITHUB', token: secret, gitApiUrl })
      const res = await t.app.inject({
        method: 'GET',
        url: `/organization/${organization.id}/account/github/repository/branch?name=acme/app`,
        headers: { authorization: tokens.read.authorization },
      })
      const body = assertError(res, 400, 'bad_request')
      assert.match(body.message, /BERTH_ALLOW_PRIVATE_URLS=true/, gitApiUrl)
    }
    assert.equal(fake.requests.length, 0, 'no call reached the loopback server')
  })

  it('refuses to list with a stored token whose git_api_url is plain http, before any call', async () => {
    const f = factories(t.db)
    const { organization, tokens } = await f.organizationWithTokens()
    // Stored as a server that allowed private URLs would have: the listing must refuse it too.
    await f.gitToken(organization.id, { type: 'GITHUB', token: `ghp_${randomUUID()}`, gitApiUrl: 'http://ghe.example.com' })
    const res = await t.app.inject({
      method: 'GET',
      url: `/organization/${organization.id}/account/github/repository/branch?name=acme/app`,
      headers: { authorization: tokens.read.authorization },
    })
    const body = assertError(res, 400, 'bad_request')
    assert.match(body.message, /plain http: the token would travel in clear text/)
  })

  it('refuses a plain http git_api_url on create and edit: the token would travel in clear', async () => {
    const { organization, tokens } = await factories(t.db).organizationWithTokens()
    const payload = (name: string, gitApiUrl: string) => ({ name, type: 'GITLAB', token: 'glpat-secret', git_api_url: gitApiUrl })
    const created = await t.app.inject({
      method: 'POST',
      url: `/organization/${organization.id}/gitToken`,
      headers: { authorization: tokens.write.authorization },
      payload: payload('over https', 'https://gitlab.example.com'),
    })
    assert.equal(created.statusCode, 201, created.body)
    for (const [method, url] of [
      ['POST', `/organization/${organization.id}/gitToken`],
      ['PUT', `/organization/${organization.id}/gitToken/${(created.json() as { id: string }).id}`],
    ] as const) {
      const res = await t.app.inject({
        method,
        url,
        headers: { authorization: tokens.write.authorization },
        payload: payload('over http', 'http://gitlab.example.com'),
      })
      const errors = assertValidationError(res)
      assert.deepEqual(
        errors.map((e) => e.path),
        ['/git_api_url'],
        method,
      )
      assert.match(errors[0]!.message, /https/)
      assert.match(errors[0]!.message, /BERTH_ALLOW_PRIVATE_URLS/)
    }
  })

  it('refuses loopback, private, link-local and metadata addresses as git_api_url on create and edit', async () => {
    const { organization, tokens } = await factories(t.db).organizationWithTokens()
    const request = (method: 'POST' | 'PUT', url: string, gitApiUrl: string, name = `gitlab ${randomUUID()}`) =>
      t.app.inject({
        method,
        url,
        headers: { authorization: tokens.write.authorization },
        payload: { name, type: 'GITLAB', token: 'glpat-secret', git_api_url: gitApiUrl },
      })
    const created = await request('POST', `/organization/${organization.id}/gitToken`, 'https://gitlab.example.com')
    assert.equal(created.statusCode, 201, created.body)
    const id = (created.json() as { id: string }).id
    for (const gitApiUrl of [
      'http://127.0.0.1:8080',
      'http://2130706433/',
      'http://localhost/',
      'http://gitlab.localhost/',
      'http://[::1]/',
      'http://[::ffff:7f00:1]/',
      'http://[::ffff:10.0.0.1]/',
      'http://[64:ff9b::a9fe:a9fe]/',
      'http://10.1.2.3/',
      'http://172.16.0.1/',
      'http://192.168.1.10/',
      'http://169.254.169.254/latest/meta-data',
      'http://metadata.google.internal/',
      'http://100.100.100.200/',
      'http://[fd00:ec2::254]/',
      'http://[fe80::1]/',
      'http://0.0.0.0/',
    ]) {
      for (const [method, url] of [
        ['POST', `/organization/${organization.id}/gitToken`],
        ['PUT', `/organization/${organization.id}/gitToken/${id}`],
      ] as const) {
        const errors = assertValidationError(await request(method, url, gitApiUrl))
        assert.deepEqual(
          errors.map((e) => e.path),
          ['/git_api_url'],
          `${method} ${gitApiUrl}`,
        )
        assert.match(errors[0]!.message, /BERTH_ALLOW_PRIVATE_URLS/)
      }
    }
  })
})

describe('branch listing logs', () => {
  it('never writes a git token to the log, whatever the provider answers', async () => {
    const lines: string[] = []
    const logger = pino({ level: 'trace' }, { write: (line: string) => lines.push(line) })
    const config = loadConfig({ DATABASE_URL: testDatabaseUrl(), BERTH_GIT_ALLOW_PRIVATE_URLS: 'true', BERTH_GIT_TIMEOUT_MS: '300' })
    const db = openDatabase(config.database.url!, 2)
    const app = await buildApp({ config, db, secrets: testSecretBox(), logger })
    const fake = await startFakeProvider('gitlab')
    try {
      const f = factories(db)
      const { organization, tokens } = await f.organizationWithTokens()
      const secret = `glpat-${randomUUID()}`
      await f.gitToken(organization.id, { type: 'GITLAB', token: secret, gitApiUrl: fake.url })
      fake.repositories.set('g/app', manyBranches(3))
      const list = () =>
        app.inject({
          method: 'GET',
          url: `/organization/${organization.id}/account/gitlab/repository/branch?name=g/app`,
          headers: { authorization: tokens.read.authorization },
        })
      assert.equal((await list()).statusCode, 400, 'rejected token')
      fake.tokens.add(secret)
      fake.failWith = 500
      assert.equal((await list()).statusCode, 502)
      fake.failWith = undefined
      fake.delayMs = 1000
      assert.equal((await list()).statusCode, 504)
      fake.delayMs = 0
      assert.equal((await list()).statusCode, 200)
      assert.ok(lines.length >= 8, 'the requests were logged')
      for (const line of lines) assert.ok(!line.includes(secret), line)
    } finally {
      await app.close()
      await db.destroy()
      await fake.close()
    }
  })
})
