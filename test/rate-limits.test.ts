import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { LightMyRequestResponse } from 'fastify'
import { ConfigError, loadConfig } from '#src/config.ts'
import { createTestApp, type TestApp } from './helpers/app.ts'
import { assertError } from './helpers/assertions.ts'
import { until } from './helpers/deployments.ts'
import { factories } from './helpers/factories.ts'

// Limits per credential, per client address before authentication, and (harder) per address on
// failed authentications; 429 in the error shape with Retry-After and the RateLimit fields.

const get = (t: TestApp, url: string, options: { authorization?: string; address?: string; headers?: Record<string, string> } = {}) =>
  t.app.inject({
    method: 'GET',
    url,
    remoteAddress: options.address ?? '203.0.113.1',
    headers: { ...(options.authorization ? { authorization: options.authorization } : {}), ...options.headers },
  })

function assertRateLimited(res: LightMyRequestResponse, reason: RegExp): void {
  const body = assertError(res, 429, 'rate_limited')
  assert.match(body.message, reason)
  const retryAfter = Number(res.headers['retry-after'])
  assert.ok(
    Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60,
    `Retry-After in whole seconds within the window: ${res.headers['retry-after']}`,
  )
}

describe('rate limits per credential', () => {
  let t: TestApp
  let tokens: Awaited<ReturnType<ReturnType<typeof factories>['organizationWithTokens']>>['tokens']
  before(async () => {
    t = await createTestApp({ BERTH_RATE_LIMIT_PER_CREDENTIAL: '3', BERTH_RATE_LIMIT_PER_ADDRESS: '0', BERTH_RATE_LIMIT_WINDOW_MS: '60000' })
    ;({ tokens } = await factories(t.db).organizationWithTokens())
  })
  after(() => t.close())

  it('counts each credential apart, tells what is left in the RateLimit fields, and answers 429 past the limit', async () => {
    for (const remaining of [2, 1, 0]) {
      const res = await get(t, '/organization', { authorization: tokens.read.authorization })
      assert.equal(res.statusCode, 200, res.body)
      assert.equal(res.headers['ratelimit-policy'], '"credential";q=3;w=60')
      assert.match(String(res.headers.ratelimit), new RegExp(`^"credential";r=${remaining};t=\\d+$`))
      assert.equal(res.headers['ratelimit-limit'], '3')
      assert.equal(res.headers['ratelimit-remaining'], String(remaining))
    }
    const refused = await get(t, '/organization', { authorization: tokens.read.authorization })
    assertRateLimited(refused, /too many requests with this credential/)
    assert.match(String(refused.headers.ratelimit), /^"credential";r=0;t=\d+$/)

    // Another token from the same address has its own budget.
    assert.equal((await get(t, '/organization', { authorization: tokens.write.authorization })).statusCode, 200)
    // A request without credentials is refused for that, not counted against anyone.
    assertError(await get(t, '/organization'), 401, 'unauthenticated')
  })
})

describe('rate limits per client address', () => {
  let t: TestApp
  let authorization: string
  before(async () => {
    // A window of 5 s: the four requests that fill it must fall in one window even on a loaded machine.
    t = await createTestApp({ BERTH_RATE_LIMIT_PER_ADDRESS: '3', BERTH_RATE_LIMIT_PER_CREDENTIAL: '0', BERTH_RATE_LIMIT_WINDOW_MS: '5000' })
    authorization = (await factories(t.db).organizationWithTokens()).tokens.read.authorization
  })
  after(() => t.close())

  it('limits every request of an address before authentication, spares health probes, and starts again after the window', async () => {
    const address = '198.51.100.7'
    const answers = [
      await get(t, '/organization', { authorization, address }),
      await get(t, '/openapi.json', { address }),
      await get(t, '/no/such/route', { address }),
    ]
    assert.deepEqual(
      answers.map((res) => res.statusCode),
      [200, 200, 404],
    )
    assert.equal(answers[0]!.headers['ratelimit-policy'], '"address";q=3;w=5')
    assertRateLimited(await get(t, '/organization', { authorization, address }), /too many requests from this address/)
    assertRateLimited(await get(t, '/openapi.json', { address }), /too many requests from this address/)
    for (let i = 0; i < 5; i++) assert.equal((await get(t, '/healthz', { address })).statusCode, 200)
    assert.equal((await get(t, '/organization', { authorization, address: '198.51.100.8' })).statusCode, 200, 'another address')
    await until(
      async () => (await get(t, '/organization', { authorization, address })).statusCode,
      (status) => status === 200,
      { timeoutMs: 15_000, intervalMs: 200, what: 'the address allowed again in a new window' },
    )
  })
})

describe('rate limits on failed authentications', () => {
  let t: TestApp
  let authorization: string
  before(async () => {
    t = await createTestApp({ BERTH_RATE_LIMIT_FAILED_AUTH: '2', BERTH_TRUST_PROXY: 'true' })
    authorization = (await factories(t.db).organizationWithTokens()).tokens.read.authorization
  })
  after(() => t.close())

  it('stops an address that failed too often from presenting any credential, valid or not, until the window ends', async () => {
    const address = '192.0.2.50'
    assertError(await get(t, '/organization', { authorization: 'Token berth_wrong', address }), 401, 'unauthenticated')
    assertError(await get(t, '/organization', { authorization: 'Bearer x.y.z', address }), 401, 'unauthenticated')
    assertRateLimited(await get(t, '/organization', { authorization, address }), /too many failed authentications from this address/)
    assertRateLimited(await get(t, '/organization', { authorization: 'Token berth_wrong', address }), /failed authentications/)
    // Public routes still answer; other addresses are not affected.
    assert.equal((await get(t, '/openapi.json', { address })).statusCode, 200)
    assert.equal((await get(t, '/organization', { authorization, address: '192.0.2.51' })).statusCode, 200)
  })

  it('counts the client behind a trusted proxy by X-Forwarded-For', async () => {
    const proxy = '10.0.0.1'
    const through = (client: string, token: string) =>
      get(t, '/organization', { authorization: token, address: proxy, headers: { 'x-forwarded-for': client } })
    assertError(await through('192.0.2.60', 'Token berth_wrong'), 401, 'unauthenticated')
    assertError(await through('192.0.2.60', 'Token berth_wrong'), 401, 'unauthenticated')
    assertRateLimited(await through('192.0.2.60', authorization), /failed authentications/)
    assert.equal((await through('192.0.2.61', authorization)).statusCode, 200, 'another client behind the same proxy')
  })
})

describe('CORS', () => {
  const origin = 'https://console.example.com'
  let t: TestApp
  let authorization: string
  before(async () => {
    t = await createTestApp({ BERTH_CORS_ORIGINS: `${origin}, https://other.example.com:8443` })
    authorization = (await factories(t.db).organizationWithTokens()).tokens.read.authorization
  })
  after(() => t.close())

  it('answers the preflight of a configured origin, and sends nothing to another', async () => {
    const preflight = await t.app.inject({
      method: 'OPTIONS',
      url: '/organization',
      headers: { origin, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' },
    })
    assert.equal(preflight.statusCode, 204, preflight.body)
    assert.equal(preflight.headers['access-control-allow-origin'], origin)
    assert.match(String(preflight.headers['access-control-allow-headers']), /authorization/)
    assert.equal(preflight.headers['access-control-allow-credentials'], undefined, 'credentials travel in Authorization, never cookies')

    const res = await get(t, '/organization', { authorization, headers: { origin } })
    assert.equal(res.statusCode, 200)
    assert.equal(res.headers['access-control-allow-origin'], origin)
    assert.match(String(res.headers['access-control-expose-headers']), /etag/)

    const foreign = await get(t, '/organization', { authorization, headers: { origin: 'https://evil.example' } })
    assert.equal(foreign.headers['access-control-allow-origin'], undefined)
  })

  it('refuses origins that are not exactly scheme://host[:port], and other BERTH_TRUST_PROXY values', () => {
    for (const bad of ['console.example.com', 'https://console.example.com/', 'https://console.example.com/app', 'ftp://x.example'])
      assert.throws(() => loadConfig({ BERTH_CORS_ORIGINS: bad }), ConfigError, bad)
    assert.throws(() => loadConfig({ BERTH_TRUST_PROXY: 'yes please' }), ConfigError)
    assert.deepEqual(loadConfig({}).http.corsOrigins, [])
    assert.equal(loadConfig({ BERTH_TRUST_PROXY: '2' }).http.trustProxy, 2)
    assert.equal(loadConfig({ BERTH_TRUST_PROXY: '10.0.0.0/8, 127.0.0.1' }).http.trustProxy, '10.0.0.0/8, 127.0.0.1')
  })
})
