import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createTestApp, type TestApp } from './helpers/app.ts'
import { factories } from './helpers/factories.ts'

const EXPECTED = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-resource-policy': 'same-origin',
}

describe('security headers', () => {
  let t: TestApp
  let authorization: string
  before(async () => {
    t = await createTestApp()
    const { tokens } = await factories(t.db).organizationWithTokens()
    authorization = tokens.read.authorization
  })
  after(() => t.close())

  it('are on every response: success, error, unknown route, health, the docs page; and no CORS headers', async () => {
    const responses = [
      await t.app.inject({ method: 'GET', url: '/organization', headers: { authorization } }),
      await t.app.inject({ method: 'GET', url: '/organization' }),
      await t.app.inject({ method: 'GET', url: '/no/such/route', headers: { authorization } }),
      await t.app.inject({ method: 'GET', url: '/healthz' }),
      await t.app.inject({ method: 'GET', url: '/docs/', headers: { origin: 'https://evil.example' } }),
      await t.app.inject({
        method: 'OPTIONS',
        url: '/organization',
        headers: { origin: 'https://evil.example', 'access-control-request-method': 'GET' },
      }),
    ]
    for (const res of responses) {
      for (const [name, value] of Object.entries(EXPECTED))
        assert.equal(res.headers[name], value, `${name} on ${res.statusCode} ${res.body.slice(0, 80)}`)
      assert.ok(res.headers['content-security-policy'], 'a content security policy')
      assert.equal(res.headers['access-control-allow-origin'], undefined, 'no CORS')
    }
    assert.equal(responses[0]!.headers['content-security-policy'], "default-src 'none'; frame-ancestors 'none'")
    assert.notEqual(
      responses[4]!.headers['content-security-policy'],
      "default-src 'none'; frame-ancestors 'none'",
      'the docs page keeps its own policy',
    )
  })
})
