import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { generateApiToken } from '#src/platform/auth/api-token-codec.ts'
import { createTestApp, type TestApp } from './helpers/app.ts'
import { assertError, UUID } from './helpers/assertions.ts'
import { factories } from './helpers/factories.ts'

describe('authentication', () => {
  let t: TestApp
  before(async () => {
    t = await createTestApp()
  })
  after(async () => t.close())

  const listOrganizations = (headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url: '/organization', headers })

  it('answers 401 in the error shape when the Authorization header is missing', async () => {
    const res = await listOrganizations()
    const body = assertError(res, 401, 'unauthenticated')
    assert.deepEqual(Object.keys(body).sort(), ['code', 'detail', 'error', 'message', 'request_id', 'status'])
    assert.equal(body.status, 401)
    assert.equal(body.error, 'Unauthorized')
    assert.equal(body.detail, body.message)
    assert.equal(body.request_id, res.headers['x-request-id'])
    assert.match(body.message, /missing credentials/)
  })

  it('answers 401 when the Authorization header is empty', async () => {
    assertError(await listOrganizations({ authorization: '' }), 401, 'unauthenticated')
  })

  for (const header of ['Basic x', 'Token', 'Token ', 'Bearer', 'Token a b', 'Tokenx abc', 'berth_abc']) {
    it(`answers 401 to the malformed Authorization header "${header}"`, async () => {
      const body = assertError(await listOrganizations({ authorization: header }), 401, 'unauthenticated')
      assert.match(body.message, /malformed/)
    })
  }

  it('answers 401 to a well-formed API token that the server never issued', async () => {
    const body = assertError(await listOrganizations({ authorization: `Token ${generateApiToken()}` }), 401, 'unauthenticated')
    assert.match(body.message, /unknown or revoked/)
  })

  it('answers 401 to a real token with one character changed (bad checksum)', async () => {
    const f = factories(t.db)
    const organization = await f.organization()
    const { token } = await f.apiToken(organization.id, 'ADMIN')
    const last = token.at(-1)!
    const tampered = `${token.slice(0, -1)}${last === 'a' ? 'b' : 'a'}`
    const body = assertError(await listOrganizations({ authorization: `Token ${tampered}` }), 401, 'unauthenticated')
    assert.match(body.message, /malformed API token/)
    // The untampered token still works, so the 401 is about the checksum.
    assert.equal((await listOrganizations({ authorization: `Token ${token}` })).statusCode, 200)
  })

  it('answers 401 to an expired token and says that it expired', async () => {
    const f = factories(t.db)
    const organization = await f.organization()
    const expired = await f.apiToken(organization.id, 'ADMIN', { expiredAt: new Date(Date.now() - 60_000) })
    const body = assertError(await listOrganizations({ authorization: expired.authorization }), 401, 'unauthenticated')
    assert.match(body.message, /expired/)
  })

  it('accepts a token whose expiry is still in the future', async () => {
    const f = factories(t.db)
    const organization = await f.organization()
    const token = await f.apiToken(organization.id, 'READ', { expiredAt: new Date(Date.now() + 3_600_000) })
    const res = await listOrganizations({ authorization: token.authorization })
    assert.equal(res.statusCode, 200)
  })

  it('answers 401 to a token on the first request after it was deleted', async () => {
    const { organization, tokens } = await factories(t.db).organizationWithTokens()
    assert.equal((await listOrganizations({ authorization: tokens.read.authorization })).statusCode, 200)

    const deleted = await t.app.inject({
      method: 'DELETE',
      url: `/organization/${organization.id}/apiToken/${tokens.read.id}`,
      headers: { authorization: tokens.admin.authorization },
    })
    assert.equal(deleted.statusCode, 204)

    const body = assertError(await listOrganizations({ authorization: tokens.read.authorization }), 401, 'unauthenticated')
    assert.match(body.message, /unknown or revoked/)
    // Other tokens of the organization keep working.
    assert.equal((await listOrganizations({ authorization: tokens.admin.authorization })).statusCode, 200)
  })

  it('answers 401 to a Bearer credential, saying Bearer is not configured', async () => {
    const body = assertError(await listOrganizations({ authorization: 'Bearer x' }), 401, 'unauthenticated')
    assert.match(body.message, /Bearer/)
    assert.match(body.message, /not configured/)
  })

  it('accepts the Token scheme in any letter case', async () => {
    const { organization, tokens } = await factories(t.db).organizationWithTokens()
    for (const scheme of ['token', 'TOKEN', 'ToKeN']) {
      const res = await listOrganizations({ authorization: `${scheme} ${tokens.read.token}` })
      assert.equal(res.statusCode, 200, `scheme ${scheme}: ${res.body}`)
      assert.deepEqual(
        res.json().results.map((o: { id: string }) => o.id),
        [organization.id],
      )
    }
  })

  it('authenticates before validating, so an unauthenticated caller gets 401 rather than 400', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/organization/not-a-uuid/apiToken',
      headers: { 'content-type': 'application/json' },
      payload: '{"name": 5}',
    })
    assertError(res, 401, 'unauthenticated')
  })

  it('serves /healthz without credentials', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/healthz' })
    assert.equal(res.statusCode, 200)
    assert.deepEqual(res.json(), { status: 'ok' })
  })

  it('serves /openapi.json without credentials', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/openapi.json' })
    assert.equal(res.statusCode, 200)
    assert.equal(res.json().openapi, '3.1.0')
  })

  it('echoes a safe incoming x-request-id on successes and errors alike', async () => {
    const { tokens } = await factories(t.db).organizationWithTokens()
    const ok = await listOrganizations({ authorization: tokens.read.authorization, 'x-request-id': 'abc-123' })
    assert.equal(ok.statusCode, 200)
    assert.equal(ok.headers['x-request-id'], 'abc-123')

    const failed = await listOrganizations({ 'x-request-id': 'abc-123' })
    const body = assertError(failed, 401, 'unauthenticated')
    assert.equal(body.request_id, 'abc-123')
  })

  it('keeps an x-request-id of exactly 128 safe characters', async () => {
    const id = `req.1:${'x'.repeat(122)}`
    assert.equal(id.length, 128)
    const res = await listOrganizations({ 'x-request-id': id })
    assert.equal(res.headers['x-request-id'], id)
  })

  for (const [label, unsafe] of [
    ['with spaces', 'abc 123'],
    ['longer than 128 characters', 'a'.repeat(129)],
    ['with a non-ASCII character', 'abc\u00e9'],
    ['with a slash', 'a/b'],
  ] as const) {
    it(`replaces an incoming x-request-id ${label} with a fresh id`, async () => {
      const res = await listOrganizations({ 'x-request-id': unsafe })
      const body = assertError(res, 401, 'unauthenticated')
      assert.notEqual(res.headers['x-request-id'], unsafe)
      assert.match(String(res.headers['x-request-id']), UUID)
      assert.equal(body.request_id, res.headers['x-request-id'])
    })
  }

  it('gives each request its own id when none is sent', async () => {
    const [a, b] = await Promise.all([listOrganizations(), listOrganizations()])
    assert.match(String(a!.headers['x-request-id']), UUID)
    assert.match(String(b!.headers['x-request-id']), UUID)
    assert.notEqual(a!.headers['x-request-id'], b!.headers['x-request-id'])
  })
})
