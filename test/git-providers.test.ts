import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { describe, it } from 'node:test'
import { ConfigError, loadConfig } from '#src/config.ts'
import { guardRegistryHost } from '#src/modules/executors/docker/images.ts'
import { gitApiUrlProblem, isPublicAddress } from '#src/modules/git-providers/address-guard.ts'
import { bitbucket, bitbucketAuthorization } from '#src/modules/git-providers/bitbucket.ts'
import { createBranchCache } from '#src/modules/git-providers/branch-cache.ts'
import { github } from '#src/modules/git-providers/github.ts'
import { gitlab } from '#src/modules/git-providers/gitlab.ts'
import { followPages, linkRelations, mapConcurrently, nextPageUrl, runTogether } from '#src/modules/git-providers/pagination.ts'
import { failedCallError, retryAfterSeconds } from '#src/modules/git-providers/provider-errors.ts'
import { createGitTokensService } from '#src/modules/organization-credentials/git-tokens/git-tokens.service.ts'
import { createOrganizationsRepository } from '#src/modules/organizations/organizations.repository.ts'
import { createOrganizationsService } from '#src/modules/organizations/organizations.service.ts'
import type { Principal } from '#src/platform/auth/principal.ts'
import { openDatabase } from '#src/platform/db/database.ts'
import type { AppError } from '#src/platform/http/errors.ts'
import { testDatabaseUrl, testSecretBox } from './helpers/app.ts'

describe('which addresses count as public', () => {
  const cases: [string, boolean][] = [
    ['140.82.112.6', true],
    ['2606:50c0:8000::154', true],
    ['127.0.0.1', false],
    ['127.255.0.9', false],
    ['0.0.0.0', false],
    ['10.0.0.1', false],
    ['172.16.5.4', false],
    ['172.31.255.255', false],
    ['172.32.0.1', true],
    ['192.168.0.1', false],
    ['169.254.169.254', false],
    ['100.64.0.1', false],
    ['100.100.100.200', false],
    ['192.0.0.192', false],
    ['224.0.0.1', false],
    ['255.255.255.255', false],
    ['::', false],
    ['::1', false],
    ['fe80::1', false],
    ['fc00::1', false],
    ['fd00:ec2::254', false],
    ['ff02::1', false],
    ['::ffff:127.0.0.1', false],
    ['::ffff:7f00:1', false],
    ['::ffff:10.1.2.3', false],
    ['::ffff:140.82.112.6', true],
    ['::127.0.0.1', false],
    ['64:ff9b::a9fe:a9fe', false],
    ['64:ff9b::8c52:7006', true],
    ['2002:7f00:1::', false],
    ['2002:8c52:7006::1', true],
    ['not an address', false],
    ['', false],
  ]
  for (const [address, expected] of cases) {
    it(`${JSON.stringify(address)} is ${expected ? '' : 'not '}public`, () => assert.equal(isPublicAddress(address), expected))
  }

  it('judges a git_api_url without DNS: IP literals by their range, names only when they are local by definition, and http as clear text', () => {
    for (const url of [
      'http://127.0.0.1:1/',
      'http://[::1]/',
      'http://0x7f.1/',
      'http://localhost./',
      'http://a.localhost/',
      'http://metadata.google.internal/',
      'http://x.internal/',
    ]) {
      assert.match(gitApiUrlProblem(new URL(url)) ?? '', /loopback, private/, url)
    }
    for (const url of ['http://gitlab.example.com/', 'http://140.82.112.6/']) assert.match(gitApiUrlProblem(new URL(url)) ?? '', /https/, url)
    for (const url of ['https://gitlab.example.com/api/v4', 'https://140.82.112.6/', 'https://api.github.com']) {
      assert.equal(gitApiUrlProblem(new URL(url)), undefined, url)
    }
  })
})

describe('Retry-After from the provider', () => {
  const now = Date.parse('2025-01-01T00:00:00Z')
  const headers = (values: Record<string, string>) => new Headers(values)

  it('takes Retry-After in seconds or as an HTTP date', () => {
    assert.equal(retryAfterSeconds(headers({ 'retry-after': '17' }), now), 17)
    assert.equal(retryAfterSeconds(headers({ 'retry-after': 'Wed, 01 Jan 2025 00:01:30 GMT' }), now), 90)
  })

  it("takes a reset time in Unix seconds, measured against the response's Date", () => {
    const providerNow = now + 3_600_000
    const reset = String(providerNow / 1000 + 300)
    assert.equal(retryAfterSeconds(headers({ 'x-ratelimit-reset': reset, date: new Date(providerNow).toUTCString() }), now), 300)
    assert.equal(retryAfterSeconds(headers({ 'ratelimit-reset': String(now / 1000 + 45) }), now), 45)
    assert.equal(retryAfterSeconds(headers({ 'ratelimit-reset': '30' }), now), 30, 'a small value is already a delay')
  })

  it('tells GitHub’s secondary rate limit by its message alone, and asks for a minute rather than the primary reset', () => {
    const context = { provider: 'GitHub', repository: 'acme/app', host: 'api.github.com' }
    const primaryFarAway = headers({ 'x-ratelimit-remaining': '4990', 'x-ratelimit-reset': String(now / 1000 + 3000) })
    const limited = failedCallError(context, 403, primaryFarAway, now, 'You have exceeded a secondary rate limit. Please wait.')
    assert.equal(limited.code, 'rate_limited')
    assert.deepEqual(limited.headers, { 'retry-after': '60' })
    assert.equal(failedCallError(context, 403, primaryFarAway, now, 'Resource not accessible by integration').code, 'git_token_invalid')
    assert.equal(failedCallError(context, 403, primaryFarAway, now).code, 'git_token_invalid')
  })

  it('falls back to a minute, and never answers less than a second', () => {
    assert.equal(retryAfterSeconds(headers({}), now), 60)
    assert.equal(retryAfterSeconds(headers({ 'x-ratelimit-reset': String(now / 1000 - 10) }), now), 1)
  })
})

describe('pagination', () => {
  it("reads a Link header's relations", () => {
    const links = linkRelations(
      '<https://api.github.com/repositories/1/branches?per_page=100&page=2>; rel="next", <https://api.github.com/repositories/1/branches?per_page=100&page=3>; rel="last"',
    )
    assert.equal(links.get('next'), 'https://api.github.com/repositories/1/branches?per_page=100&page=2')
    assert.equal(links.get('last'), 'https://api.github.com/repositories/1/branches?per_page=100&page=3')
    assert.equal(linkRelations(null).size, 0)
  })

  it('refuses a pagination link off the API root’s origin, which would receive the credential, whatever page it is on', () => {
    const root = new URL('https://gitlab.example.com/api/v4')
    const page = new URL('https://gitlab.example.com/api/v4/projects/1/repository/branches')
    assert.equal(nextPageUrl('?page=2', page, root, 'GitLab').href, 'https://gitlab.example.com/api/v4/projects/1/repository/branches?page=2')
    assert.throws(
      () => nextPageUrl('https://evil.example/steal', page, root, 'GitLab'),
      (e: AppError) => e.code === 'bad_gateway',
    )
    const elsewhere = new URL('https://evil.example/projects/1/repository/branches')
    assert.throws(
      () => nextPageUrl('?page=2', elsewhere, root, 'GitLab'),
      (e: AppError) => e.code === 'bad_gateway',
    )
  })

  it('ends a pagination that loops with 502', async () => {
    const first = new URL('https://x.example/a')
    await assert.rejects(
      followPages(
        first,
        async (url) => url,
        () => new URL('https://x.example/a'),
        'GitHub',
      ),
      (e: AppError) => e.code === 'bad_gateway',
    )
  })

  it('runs at most `limit` calls at once, keeps the order, and stops after a failure', async () => {
    let running = 0
    let most = 0
    const never = new AbortController().signal
    const results = await mapConcurrently([1, 2, 3, 4, 5, 6, 7], 3, never, async (n) => {
      running++
      most = Math.max(most, running)
      await new Promise((resolve) => setTimeout(resolve, 8 - n))
      running--
      return n * 10
    })
    assert.deepEqual(results, [10, 20, 30, 40, 50, 60, 70])
    assert.equal(most, 3)
    const started: number[] = []
    await assert.rejects(
      mapConcurrently([1, 2, 3, 4, 5, 6], 1, never, async (n) => {
        started.push(n)
        if (n === 2) throw new Error('boom')
        return n
      }),
      /boom/,
    )
    assert.deepEqual(started, [1, 2])
  })

  /** A call that ends only when its signal aborts, and records that it did. */
  const untilAborted = (ended: string[], name: string) => (signal: AbortSignal) =>
    new Promise<never>((_, reject) =>
      signal.addEventListener('abort', () => {
        ended.push(name)
        reject(signal.reason)
      }),
    )

  it('aborts the calls still running after a failure, and fails only once they have stopped', async () => {
    const ended: string[] = []
    const never = new AbortController().signal
    await assert.rejects(
      runTogether<[never, never]>(never, [untilAborted(ended, 'pages'), async () => Promise.reject(new Error('repository call failed'))]),
      /repository call failed/,
    )
    assert.deepEqual(ended, ['pages'])
    await assert.rejects(
      mapConcurrently([1, 2, 3], 3, never, (n, signal) =>
        n === 3 ? Promise.reject(new Error('page 3 failed')) : untilAborted(ended, `page ${n}`)(signal),
      ),
      /page 3 failed/,
    )
    assert.deepEqual(ended, ['pages', 'page 1', 'page 2'])
  })

  it('stops every call when the outer signal aborts', async () => {
    const ended: string[] = []
    const outer = new AbortController()
    const running = runTogether<[never, never]>(outer.signal, [untilAborted(ended, 'a'), untilAborted(ended, 'b')])
    outer.abort(new Error('deadline'))
    await assert.rejects(running, /deadline/)
    assert.deepEqual(ended, ['a', 'b'])
  })
})

describe('provider API roots and repository names', () => {
  it('GitHub: the public API, Enterprise Server under /api/v3, Enterprise Cloud at the root of its api. host', () => {
    assert.equal(github.apiRoot(null).href, 'https://api.github.com/')
    assert.equal(github.apiRoot('https://github.com').href, 'https://api.github.com/')
    assert.equal(github.apiRoot('https://ghe.example.com').href, 'https://ghe.example.com/api/v3')
    assert.equal(github.apiRoot('https://ghe.example.com/api/v3/').href, 'https://ghe.example.com/api/v3')
    assert.equal(github.apiRoot('https://api.acme.ghe.com').href, 'https://api.acme.ghe.com/')
    assert.equal(github.apiRoot('https://user:pw@ghe.example.com/?x=1#y').href, 'https://ghe.example.com/api/v3')
  })

  it('GitLab: /api/v4 under the instance, added when missing', () => {
    assert.equal(gitlab.apiRoot(null).href, 'https://gitlab.com/api/v4')
    assert.equal(gitlab.apiRoot('https://gitlab.example.com/api/v4').href, 'https://gitlab.example.com/api/v4')
    assert.equal(gitlab.apiRoot('https://example.com/gitlab/').href, 'https://example.com/gitlab/api/v4')
  })

  it('Bitbucket: the Cloud 2.0 API', () => {
    assert.equal(bitbucket.apiRoot(null).href, 'https://api.bitbucket.org/2.0')
    assert.equal(bitbucket.apiRoot('https://bitbucket.org').href, 'https://api.bitbucket.org/2.0')
    assert.equal(bitbucket.apiRoot('https://bb.example.com/2.0').href, 'https://bb.example.com/2.0')
  })

  it('reads each provider’s repository names', () => {
    assert.deepEqual(github.repository('acme/app', null), { path: 'acme/app' })
    assert.deepEqual(github.repository(' /acme/app.git/ ', null), { path: 'acme/app' })
    for (const name of ['app', 'a/b/c', 'a//b', './b', 'a/..']) assert.ok('problem' in github.repository(name, null), name)
    assert.deepEqual(gitlab.repository('group/sub/project', null), { path: 'group/sub/project' })
    assert.deepEqual(gitlab.repository('1234', null), { path: '1234' })
    assert.ok('problem' in gitlab.repository('project', null))
    assert.deepEqual(bitbucket.repository('repo', 'team'), { path: 'team/repo' })
    assert.deepEqual(bitbucket.repository('other/repo', 'team'), { path: 'other/repo' })
    assert.ok('problem' in bitbucket.repository('repo', null))
    assert.ok('problem' in bitbucket.repository('a/b/c', 'team'))
    for (const workspace of ['..', '.', '', 'a/b', 'team ']) assert.ok('problem' in bitbucket.repository('repo', workspace), workspace)
  })

  it('sends a Bitbucket access token as Bearer and username:app-password as Basic', () => {
    assert.equal(bitbucketAuthorization('ATCTT3xFfGN0abc'), 'Bearer ATCTT3xFfGN0abc')
    assert.equal(bitbucketAuthorization('robot:app-pass'), `Basic ${Buffer.from('robot:app-pass').toString('base64')}`)
  })
})

describe('the branch cache', () => {
  const deferred = <T>() => {
    let resolve!: (value: T) => void
    let reject!: (error: unknown) => void
    const promise = new Promise<T>((res, rej) => {
      resolve = res
      reject = rej
    })
    return { promise, resolve, reject }
  }

  it('shares a load in flight, keeps its value for the TTL, then loads again', async () => {
    let now = 0
    const cache = createBranchCache<string>({ ttlMs: 1000, maxEntries: 10 }, () => now)
    let loads = 0
    const pending = deferred<string>()
    const load = () => {
      loads++
      return pending.promise
    }
    const both = Promise.all([cache.get('k', 't1', load), cache.get('k', 't1', load)])
    pending.resolve('v')
    assert.deepEqual(await both, ['v', 'v'])
    assert.equal(loads, 1)
    now = 999
    assert.equal(await cache.get('k', 't1', async () => 'other'), 'v')
    now = 2000
    assert.equal(await cache.get('k', 't1', async () => 'fresh'), 'fresh')
  })

  it('does not keep a failed load', async () => {
    const cache = createBranchCache<string>({ ttlMs: 1000, maxEntries: 10 }, () => 0)
    await assert.rejects(
      cache.get('k', 't', async () => Promise.reject(new Error('down'))),
      /down/,
    )
    assert.equal(await cache.get('k', 't', async () => 'ok'), 'ok')
  })

  it('keeps at most maxEntries, dropping the least recently used', async () => {
    const cache = createBranchCache<string>({ ttlMs: 1000, maxEntries: 2 }, () => 0)
    await cache.get('a', 't', async () => 'a')
    await cache.get('b', 't', async () => 'b')
    await cache.get('a', 't', async () => 'a2')
    await cache.get('c', 't', async () => 'c')
    assert.equal(cache.size, 2)
    assert.equal(await cache.get('a', 't', async () => 'reloaded'), 'a')
    assert.equal(await cache.get('b', 't', async () => 'reloaded'), 'reloaded')
  })

  it('drops a git token’s entries, a load in flight included', async () => {
    const cache = createBranchCache<string>({ ttlMs: 1000, maxEntries: 10 }, () => 0)
    await cache.get('a', 't1', async () => 'a')
    await cache.get('b', 't2', async () => 'b')
    const pending = deferred<string>()
    const inFlight = cache.get('c', 't1', () => pending.promise)
    cache.dropGitToken('t1')
    pending.resolve('c')
    await inFlight
    assert.equal(cache.size, 1)
    assert.equal(await cache.get('a', 't1', async () => 'a2'), 'a2')
    assert.equal(await cache.get('c', 't1', async () => 'c2'), 'c2')
    assert.equal(await cache.get('b', 't2', async () => 'b2'), 'b')
  })
})

describe('git token changes', () => {
  it('tell the branch listing to forget a token when it is edited or deleted', async () => {
    const db = openDatabase(testDatabaseUrl(), 2)
    try {
      const organizations = createOrganizationsService({ repo: createOrganizationsRepository(db) })
      const changed: string[] = []
      const gitTokens = createGitTokensService({
        db,
        organizations,
        secrets: testSecretBox(),
        onGitTokenChanged: (id) => changed.push(id),
      })
      const organization = await organizations.findOrCreateByName(`org ${randomUUID()}`)
      const admin: Principal = {
        kind: 'api_token',
        apiTokenId: randomUUID(),
        name: 'test',
        organizationId: organization.id,
        role: 'ADMIN',
        expiresAt: null,
      } as Principal
      const input = { name: 'gh', description: null, type: 'GITHUB' as const, token: 'ghp_x', workspace: null, gitApiUrl: null }
      const token = await gitTokens.create(admin, organization.id, input)
      assert.deepEqual(changed, [])
      await gitTokens.update(admin, organization.id, token.id, { ...input, token: 'ghp_y' })
      assert.deepEqual(changed, [token.id])
      await gitTokens.delete(admin, organization.id, token.id)
      assert.deepEqual(changed, [token.id, token.id])
    } finally {
      await db.destroy()
    }
  })
})

describe('BERTH_ALLOW_PRIVATE_URLS, the one address opt-in', () => {
  it('is read under its name, and under its old name BERTH_GIT_ALLOW_PRIVATE_URLS when the new one is unset', () => {
    assert.equal(loadConfig({ BERTH_ALLOW_PRIVATE_URLS: 'true' }).outbound.allowPrivateUrls, true)
    assert.equal(loadConfig({ BERTH_GIT_ALLOW_PRIVATE_URLS: 'true' }).outbound.allowPrivateUrls, true)
    assert.equal(loadConfig({ BERTH_ALLOW_PRIVATE_URLS: '', BERTH_GIT_ALLOW_PRIVATE_URLS: '1' }).outbound.allowPrivateUrls, true)
    assert.equal(loadConfig({ BERTH_ALLOW_PRIVATE_URLS: 'false', BERTH_GIT_ALLOW_PRIVATE_URLS: 'false' }).outbound.allowPrivateUrls, false)
  })

  it('is named by a refused pull from a private address, and not offered for a registry name that does not resolve', async () => {
    const said: string[] = []
    await assert.rejects(
      guardRegistryHost('pull', '127.0.0.1:5000/app:1', false, (line) => said.push(line)),
      /BERTH_ALLOW_PRIVATE_URLS=true/,
    )
    await assert.rejects(
      guardRegistryHost('pull', 'registry.berth-test.invalid/app:1', false, (line) => said.push(line)),
      (error: Error) => {
        assert.match(error.message, /does not resolve/)
        assert.match(error.message, /DNS/)
        assert.doesNotMatch(error.message, /ALLOW_PRIVATE_URLS=true/)
        return true
      },
    )
    assert.equal(said.length, 2)
  })

  it('refuses to start when the two names disagree, naming both', () => {
    assert.throws(
      () => loadConfig({ BERTH_ALLOW_PRIVATE_URLS: 'false', BERTH_GIT_ALLOW_PRIVATE_URLS: 'true' }),
      (e: Error) => e instanceof ConfigError && e.message.includes('BERTH_ALLOW_PRIVATE_URLS') && e.message.includes('BERTH_GIT_ALLOW_PRIVATE_URLS'),
    )
  })
})

describe('BERTH_GIT_* settings', () => {
  it('default to a 10 s timeout, a 30 s cache of 1000 listings, and no private addresses', () => {
    assert.deepEqual({ ...loadConfig({}).git }, { timeoutMs: 10_000, cacheTtlMs: 30_000, cacheMaxEntries: 1000 })
    assert.equal(loadConfig({}).outbound.allowPrivateUrls, false)
  })

  it('read the environment, and name the variable when a value is wrong', () => {
    const git = loadConfig({
      BERTH_GIT_TIMEOUT_MS: '2500',
      BERTH_GIT_CACHE_TTL_MS: '0',
      BERTH_GIT_CACHE_MAX_ENTRIES: '5',
    }).git
    assert.deepEqual({ ...git }, { timeoutMs: 2500, cacheTtlMs: 0, cacheMaxEntries: 5 })
    for (const [name, value] of [
      ['BERTH_GIT_TIMEOUT_MS', '0'],
      ['BERTH_GIT_TIMEOUT_MS', 'soon'],
      ['BERTH_GIT_CACHE_TTL_MS', '-1'],
      ['BERTH_GIT_CACHE_MAX_ENTRIES', '0'],
      ['BERTH_GIT_ALLOW_PRIVATE_URLS', 'yes please'],
      ['BERTH_ALLOW_PRIVATE_URLS', 'yes please'],
    ] as const) {
      assert.throws(
        () => loadConfig({ [name]: value }),
        (e: Error) => e instanceof ConfigError && e.message.includes(name),
        `${name}=${value}`,
      )
    }
  })
})
