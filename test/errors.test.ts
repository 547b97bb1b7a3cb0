import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { buildApp } from '#src/app.ts'
import { loadConfig } from '#src/config.ts'
import { generateApiToken } from '#src/platform/auth/api-token-codec.ts'
import { openDatabase } from '#src/platform/db/database.ts'
import { createTestApp, type TestApp, testSecretBox } from './helpers/app.ts'
import { assertError, assertValidationError } from './helpers/assertions.ts'
import { factories, uniqueName } from './helpers/factories.ts'

describe('error responses', () => {
  let t: TestApp
  before(async () => {
    t = await createTestApp()
  })
  after(async () => t.close())

  const postOrganization = (authorization: string, payload: string, contentType = 'application/json') =>
    t.app.inject({ method: 'POST', url: '/organization', headers: { authorization, 'content-type': contentType }, payload })

  describe('unknown routes', () => {
    it('answers 404 route_not_found without credentials', async () => {
      const body = assertError(await t.app.inject({ method: 'GET', url: '/no/such/route?x=1' }), 404, 'route_not_found')
      assert.match(body.message, /GET \/no\/such\/route/)
      assert.doesNotMatch(body.message, /x=1/)
    })

    it('answers 404 route_not_found with valid credentials', async () => {
      const { tokens } = await factories(t.db).organizationWithTokens()
      assertError(
        await t.app.inject({ method: 'GET', url: '/organisation', headers: { authorization: tokens.admin.authorization } }),
        404,
        'route_not_found',
      )
    })

    it('answers 404 route_not_found with bad credentials rather than 401', async () => {
      assertError(await t.app.inject({ method: 'GET', url: '/v1/organization', headers: { authorization: 'Token nope' } }), 404, 'route_not_found')
    })

    it('answers 404 route_not_found for a method the path does not serve', async () => {
      const { tokens } = await factories(t.db).organizationWithTokens()
      assertError(
        await t.app.inject({ method: 'PATCH', url: '/organization', headers: { authorization: tokens.admin.authorization } }),
        404,
        'route_not_found',
      )
    })
  })

  describe('request bodies', () => {
    it('answers 400 invalid_json to malformed JSON', async () => {
      const { tokens } = await factories(t.db).organizationWithTokens()
      for (const payload of ['{"name": "x", "plan":', '{name: "x"}', "{'a': 1}", 'nope']) {
        assertError(await postOrganization(tokens.admin.authorization, payload), 400, 'invalid_json')
      }
    })

    it('answers 400 to a body that uses __proto__ and creates nothing', async () => {
      const { tokens } = await factories(t.db).organizationWithTokens()
      const name = uniqueName('poisoned')
      const res = await postOrganization(tokens.admin.authorization, `{"__proto__": {"x": 1}, "name": "${name}", "plan": "FREE"}`)
      assertError(res, 400, 'invalid_json')
      const list = await t.app.inject({ method: 'GET', url: '/organization', headers: { authorization: tokens.admin.authorization } })
      assert.equal(
        list.json().results.some((o: { name: string }) => o.name === name),
        false,
      )
    })

    it('answers 400 to a body that uses constructor.prototype', async () => {
      const { tokens } = await factories(t.db).organizationWithTokens()
      const res = await postOrganization(
        tokens.admin.authorization,
        `{"constructor": {"prototype": {"x": 1}}, "name": "${uniqueName('c')}", "plan": "FREE"}`,
      )
      assertError(res, 400, 'invalid_json')
    })

    it('answers 415 to a text/plain body', async () => {
      const { tokens } = await factories(t.db).organizationWithTokens()
      const res = await postOrganization(tokens.admin.authorization, JSON.stringify({ name: uniqueName('text'), plan: 'FREE' }), 'text/plain')
      assertError(res, 415, 'unsupported_media_type')
    })

    it('answers 415 to a form-encoded body', async () => {
      const { tokens } = await factories(t.db).organizationWithTokens()
      const res = await postOrganization(tokens.admin.authorization, 'name=x&plan=FREE', 'application/x-www-form-urlencoded')
      assertError(res, 415, 'unsupported_media_type')
    })

    it('answers 415 to a body sent without a content type', async () => {
      const { tokens } = await factories(t.db).organizationWithTokens()
      const res = await t.app.inject({
        method: 'POST',
        url: '/organization',
        headers: { authorization: tokens.admin.authorization },
        payload: Buffer.from(JSON.stringify({ name: uniqueName('untyped'), plan: 'FREE' })),
      })
      assertError(res, 415, 'unsupported_media_type')
    })

    it('accepts a JSON content type with a charset parameter', async () => {
      const { tokens } = await factories(t.db).organizationWithTokens()
      const res = await postOrganization(
        tokens.admin.authorization,
        JSON.stringify({ name: uniqueName('charset'), plan: 'FREE' }),
        'application/json; charset=utf-8',
      )
      assert.equal(res.statusCode, 201, res.body)
    })

    it('answers 413 to a body over 1 MiB', async () => {
      const { tokens } = await factories(t.db).organizationWithTokens()
      const payload = JSON.stringify({ name: uniqueName('huge'), plan: 'FREE', description: 'x'.repeat(1024 * 1024) })
      assert.ok(Buffer.byteLength(payload) > 1024 * 1024)
      assertError(await postOrganization(tokens.admin.authorization, payload), 413, 'payload_too_large')
    })

    it('answers 400 to an empty JSON body where a body is required', async () => {
      const { tokens } = await factories(t.db).organizationWithTokens()
      const errors = assertValidationError(await postOrganization(tokens.admin.authorization, ''))
      assert.deepEqual(errors, [{ path: '', message: 'must be object', location: 'body' }])
    })

    it('accepts an empty body with content-type application/json on DELETE', async () => {
      const { organization, tokens } = await factories(t.db).organizationWithTokens()
      const res = await t.app.inject({
        method: 'DELETE',
        url: `/organization/${organization.id}/apiToken/${tokens.read.id}`,
        headers: { authorization: tokens.admin.authorization, 'content-type': 'application/json' },
        payload: '',
      })
      assert.equal(res.statusCode, 204, res.body)
      const org = await t.app.inject({
        method: 'DELETE',
        url: `/organization/${organization.id}`,
        headers: { authorization: tokens.admin.authorization, 'content-type': 'application/json' },
      })
      assert.equal(org.statusCode, 204, org.body)
    })

    it('strips unknown body fields instead of rejecting them', async () => {
      const { organization, tokens } = await factories(t.db).organizationWithTokens()
      const name = uniqueName('extra')
      const res = await postOrganization(tokens.admin.authorization, JSON.stringify({ name, plan: 'FREE', favourite_colour: 'blue', owner: 'me' }))
      assert.equal(res.statusCode, 201, res.body)
      assert.equal(res.json().name, name)
      assert.equal('favourite_colour' in res.json(), false)

      const token = await t.app.inject({
        method: 'POST',
        url: `/organization/${organization.id}/apiToken`,
        headers: { authorization: tokens.admin.authorization },
        payload: { name: uniqueName('extra'), role: 'READ', permissions: ['everything'] },
      })
      assert.equal(token.statusCode, 201, token.body)
      assert.equal(token.json().role, 'READ')
    })

    it('does not coerce body values to the declared type', async () => {
      const { tokens } = await factories(t.db).organizationWithTokens()
      const cases: [Record<string, unknown>, string][] = [
        [{ name: 12345, plan: 'FREE' }, '/name'],
        [{ name: true, plan: 'FREE' }, '/name'],
        [{ name: uniqueName('n'), plan: 'FREE', admin_emails: 'ops@example.com' }, '/admin_emails'],
        [{ name: uniqueName('n'), plan: 'FREE', description: false }, '/description'],
        [{ name: uniqueName('n'), plan: 'FREE', description: 0 }, '/description'],
        [{ name: uniqueName('n'), plan: ['FREE'] }, '/plan'],
      ]
      for (const [payload, path] of cases) {
        const errors = assertValidationError(await postOrganization(tokens.admin.authorization, JSON.stringify(payload)))
        assert.ok(
          errors.some((e) => e.path === path),
          `${JSON.stringify(payload)} gave ${JSON.stringify(errors)}`,
        )
      }
    })

    it('answers 400 to a body that is not an object', async () => {
      const { tokens } = await factories(t.db).organizationWithTokens()
      for (const payload of ['[]', '"text"', '42', 'null']) {
        const errors = assertValidationError(await postOrganization(tokens.admin.authorization, payload))
        assert.deepEqual(
          errors.map((e) => e.path),
          [''],
          payload,
        )
      }
    })
  })

  describe('validation errors', () => {
    it('lists every invalid field with a JSON-pointer path and its location', async () => {
      const { tokens } = await factories(t.db).organizationWithTokens()
      const errors = assertValidationError(
        await postOrganization(
          tokens.admin.authorization,
          JSON.stringify({ name: '', plan: 'GOLD', description: 5, admin_emails: ['ok@example.com', 7] }),
        ),
      )
      const paths = new Set(errors.map((e) => e.path))
      for (const path of ['/name', '/plan', '/description', '/admin_emails/1']) assert.ok(paths.has(path), `${path} missing from ${[...paths]}`)
      // One error per bad value: a nullable field is not reported once per alternative, and a bad
      // array element is reported at the element, not again at the array.
      assert.deepEqual(errors.map((e) => e.path).sort(), ['/admin_emails/1', '/description', '/name', '/plan'])
      assert.equal(errors.find((e) => e.path === '/description')?.message, 'must be string or null')
      for (const error of errors) {
        assert.equal(error.location, 'body')
        assert.ok(error.message.length > 0)
      }
    })

    it('names required fields by their own pointer', async () => {
      const { tokens } = await factories(t.db).organizationWithTokens()
      const errors = assertValidationError(await postOrganization(tokens.admin.authorization, '{}'))
      assert.deepEqual(errors.map((e) => e.path).sort(), ['/name', '/plan'])
      for (const error of errors) assert.equal(error.message, 'is required')
    })

    it('summarises the invalid fields in the message', async () => {
      const { tokens } = await factories(t.db).organizationWithTokens()
      const body = assertError(
        await postOrganization(tokens.admin.authorization, JSON.stringify({ name: uniqueName('n'), plan: 'GOLD' })),
        400,
        'validation_failed',
      )
      assert.match(body.message, /\/plan/)
    })

    it('reports an invalid query parameter with location query', async () => {
      const { organization, tokens } = await factories(t.db).organizationWithTokens()
      const res = await t.app.inject({
        method: 'GET',
        url: `/organization/${organization.id}/apiToken?name=${'x'.repeat(256)}`,
        headers: { authorization: tokens.admin.authorization },
      })
      const errors = assertValidationError(res)
      assert.deepEqual(
        errors.map((e) => [e.path, e.location]),
        [['/name', 'query']],
      )
    })
  })

  describe('paths', () => {
    it('answers 400 bad_request in the error shape to a malformed percent-encoding in the path', async () => {
      const { tokens } = await factories(t.db).organizationWithTokens()
      for (const url of ['/organization/%zz', '/organization/%E0%A4%A', '/organization/%c0%af/apiToken']) {
        const body = assertError(
          await t.app.inject({ method: 'GET', url, headers: { authorization: tokens.read.authorization } }),
          400,
          'bad_request',
        )
        assert.doesNotMatch(body.message, /FST_|%/)
      }
    })

    it('answers 400 bad_request in the error shape to an over-long path segment', async () => {
      const { tokens } = await factories(t.db).organizationWithTokens()
      const res = await t.app.inject({
        method: 'GET',
        url: `/organization/${'a'.repeat(300)}`,
        headers: { authorization: tokens.read.authorization },
      })
      assertError(res, 400, 'bad_request')
    })

    it('keeps the status of another client error raised by the HTTP layer, in the error shape', async () => {
      const res = await t.app.inject({ method: 'GET', url: '/docs/static/index.css', headers: { range: 'bytes=999999999-' } })
      assertError(res, 416, 'client_error')
    })

    it('keeps a caller-supplied request id on a router-level error', async () => {
      const res = await t.app.inject({ method: 'GET', url: '/organization/%zz', headers: { 'x-request-id': 'trace-42' } })
      assert.equal(assertError(res, 400, 'bad_request').request_id, 'trace-42')
    })

    for (const url of ['//organization', '/organization/']) {
      it(`serves ${url} like /organization`, async () => {
        const { organization, tokens } = await factories(t.db).organizationWithTokens()
        const res = await t.app.inject({ method: 'GET', url, headers: { authorization: tokens.read.authorization } })
        assert.equal(res.statusCode, 200, res.body)
        assert.deepEqual(
          res.json().results.map((o: { id: string }) => o.id),
          [organization.id],
        )
      })
    }

    it('serves a trailing slash after a path parameter', async () => {
      const { organization, tokens } = await factories(t.db).organizationWithTokens()
      const res = await t.app.inject({
        method: 'GET',
        url: `/organization/${organization.id}/`,
        headers: { authorization: tokens.read.authorization },
      })
      assert.equal(res.statusCode, 200, res.body)
      assert.equal(res.json().id, organization.id)
    })
  })
})

describe('server errors', () => {
  it('answer 503 in the error shape without leaking internals when the database is unreachable', async () => {
    const databaseUrl = 'postgres://berth_user:hunter2secret@127.0.0.1:1/berth_unreachable'
    const config = loadConfig({ DATABASE_URL: databaseUrl, BERTH_LOG_LEVEL: 'silent' })
    const db = openDatabase(databaseUrl, 1)
    const app = await buildApp({ config, db, secrets: testSecretBox() })
    try {
      await app.ready()
      const res = await app.inject({
        method: 'GET',
        url: '/organization',
        headers: { authorization: `Token ${generateApiToken()}`, 'x-request-id': 'boom-1' },
      })
      assert.equal(res.statusCode, 503, res.body)
      assert.equal(res.headers['retry-after'], '5')
      const body = assertError(res, 503, 'service_unavailable')
      assert.equal(body.request_id, 'boom-1')
      for (const secret of ['hunter2secret', 'berth_user', '127.0.0.1', 'ECONNREFUSED', 'berth_unreachable', 'at ', '.ts', 'stack']) {
        assert.equal(res.body.includes(secret), false, `the body leaks "${secret}": ${res.body}`)
      }
    } finally {
      await app.close()
      await db.destroy()
    }
  })
})
