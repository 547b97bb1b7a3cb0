/**
 * Issue 8, hostile input, route by route: the fixed hostile cases (bodies that are not UTF-8,
 * 10,000 levels of nesting, bodies over 1 MiB, prototype-pollution keys, malformed path
 * parameters and query values, garbage credentials, unknown paths) at every operation of the
 * OpenAPI document, whatever fast-check happens to draw in hostile-input.test.ts, and the inputs of
 * the bugs it found. Every request also passes the harness's checks: no 5xx, the error shape,
 * nothing leaked, and a refused write changes no row.
 */
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { STATUS_CODES } from 'node:http'
import { after, before, describe, it } from 'node:test'
import Fastify, { type FastifyRequest, type LightMyRequestResponse } from 'fastify'
import { sql } from 'kysely'
import {
  ALWAYS_REFUSED,
  AUTH_HEADERS,
  assertNoPollution,
  BASE_BODIES,
  BASE_QUERIES,
  type Body,
  changedTables,
  checkAnswer,
  type Harness,
  HOSTILE_SEGMENTS,
  type HostileRequest,
  type JsonSchema,
  KINDS,
  type Leaf,
  type Method,
  MIB,
  PARAM_KIND,
  paramKind,
  prototypeState,
  type Rendered,
  type Route,
  routeKey,
  sameFamily,
  startHarness,
  UNKNOWN_PATHS,
  UNSERVED_PARAMS,
  webhookProviderOf,
} from './helpers/hostile.ts'

const BODY_METHODS = new Set(['POST', 'PUT', 'DELETE'])

function expect({ res, sent }: { res: LightMyRequestResponse; sent: Rendered }, status: number | number[], code?: string) {
  const statuses = [status].flat()
  const what = () =>
    `${sent.method} ${sent.url.slice(0, 200)}: expected ${statuses.join(' or ')} ${code ?? ''}, got ${res.statusCode} ${res.body.slice(0, 300)}`
  assert.ok(statuses.includes(res.statusCode), what())
  if (code !== undefined) assert.equal(res.json().code, code, what())
}

/** Values a query parameter of this schema must refuse with 400, as they go on the wire. */
function badQueryValues(schema: JsonSchema): string[] {
  // PostgreSQL can neither store nor compare NUL.
  return ['%00', 'a%00b', ...badValuesOfType(schema)]
}

function badValuesOfType(schema: JsonSchema): string[] {
  if (schema.type === 'integer' || schema.type === 'number') {
    return [
      '1e309',
      '-1e309',
      '99999999999999999999',
      'NaN',
      'Infinity',
      'abc',
      '1.5',
      ...(schema.maximum === undefined ? [] : [String(schema.maximum + 1)]),
      ...(schema.minimum === undefined ? [] : [String(schema.minimum - 1)]),
    ]
  }
  if (schema.type === 'boolean') return ['maybe', '2', 'yes%00']
  if (schema.enum)
    return ['NOPE', '%00', `${String(schema.enum[0])}%00`, String(schema.enum[0]).toLowerCase()].filter((v) => !schema.enum!.includes(v))
  if (schema.format === 'uuid')
    return ['x', '%00', '..%2F..%2F', '00000000-0000-4000-8000-00000000000Z', `${'0'.repeat(8)}-0000-4000-8000-${'0'.repeat(13)}`]
  if (schema.format === 'date-time') return ['yesterday', '2024-13-45T99%3A99%3A99Z', '1e309']
  const values: string[] = []
  if (schema.maxLength !== undefined) values.push('x'.repeat(schema.maxLength + 1))
  if (schema.minLength !== undefined && schema.minLength > 0) values.push('')
  return values
}

describe('hostile input at every route, case by case', () => {
  let h: Harness
  let prototypes: string
  before(async () => {
    prototypes = prototypeState()
    h = await startHarness()
  })
  after(async () => h?.close())

  /** A valid request to the route (its own method, real ids, ADMIN token, its base body) with these changes. */
  const valid = (route: Route, changes: Partial<HostileRequest> = {}): HostileRequest => ({
    method: route.method,
    route: routeKey(route),
    params: {},
    query: BASE_QUERIES[routeKey(route)] ?? [],
    auth: { admin: true },
    headers: {},
    body: BASE_BODIES[routeKey(route)] ? { base: [] } : { none: true },
    ...changes,
  })

  /** The route's body (a small object when it takes none) with `value` added under a key of its own. */
  const withValue = (value: Leaf, contentType?: string): Body => ({ base: [{ key: 'note', at: [], value }], contentType })

  const bodyRoutes = () => h.routes.filter((route) => BODY_METHODS.has(route.method))

  it('knows a valid body for each operation of the OpenAPI document that takes one', () => {
    assert.ok(h.routes.length >= 30, `only ${h.routes.length} operations in the document`)
    const withBody = h.routes.filter((route) => route.bodySchema !== undefined).map(routeKey)
    assert.deepEqual(
      withBody.filter((key) => !BASE_BODIES[key]),
      [],
      'operations without a base body in test/helpers/hostile.ts',
    )
    assert.deepEqual(
      Object.keys(BASE_BODIES).filter((key) => !withBody.includes(key)),
      [],
      'base bodies for operations that the document does not list with a body',
    )
    for (const route of h.routes) for (const name of route.pathParams) assert.ok(PARAM_KIND[name], `no fixture for path parameter ${name}`)
  })

  it('accepts each base body as it is, so that one change makes it hostile', async () => {
    // Routes of service kinds Berth does not serve yet answer 404: no resource of theirs exists.
    const served = (r: Route) => !r.pathParams.some((name) => UNSERVED_PARAMS.has(name))
    // PUT /account edits the calling user's own account: the harness's API token has none (403; test/memberships.test.ts).
    for (const route of h.routes.filter((r) => BASE_BODIES[routeKey(r)] && served(r) && routeKey(r) !== 'PUT /account')) {
      const answer = await h.send(valid(route))
      const { res } = answer
      if (ALWAYS_REFUSED.has(routeKey(route))) {
        expect(answer, 400, 'validation_failed')
        continue
      }
      // A conflict (nothing to cancel) comes after validation: the body itself was accepted.
      assert.ok(
        res.statusCode < 300 || (res.statusCode === 409 && res.json().code === 'conflict'),
        `${routeKey(route)}: ${res.statusCode} ${res.body}`,
      )
    }
  })

  it('answers a JSON body that is not UTF-8 with 400 invalid_json on every operation that reads a body', async () => {
    const sequences = [[0xff], [0xc3, 0x28], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xe0, 0xa4]]
    for (const route of bodyRoutes()) {
      for (const [i, bytes] of sequences.entries()) {
        const contentType = i % 2 === 0 ? 'application/json' : 'application/json; charset=utf-8'
        const answer = await h.send(valid(route, { body: withValue({ bytes }, contentType) }))
        assert.ok(answer.sent.invalidUtf8)
        expect(answer, 400, 'invalid_json')
      }
    }
    // Well-formed multi-byte UTF-8 is read as it is.
    const projects = h.routeMap.get('POST /organization/{organizationId}/project')!
    const name = `é🚀 ${Date.now()}`
    const accepted = await h.send(valid(projects, { body: { base: [{ set: ['name'], value: { json: name } }] } }))
    expect(accepted, [200, 201])
    assert.equal(accepted.res.json().name, name)
  })

  it('answers 10,000 levels of nesting with 400, and the server stays up', async () => {
    for (const route of bodyRoutes()) {
      const unclosed = await h.send(valid(route, { body: { value: { deep: 10_000, open: '[', leaf: '0', closed: false } } }))
      expect(unclosed, 400, 'invalid_json')
      const closed = await h.send(valid(route, { body: withValue({ deep: 10_000, open: '{', leaf: '"\\u0000"', closed: true }) }))
      expect(closed, 400, 'validation_failed')
      if (route.bodySchema) {
        const whole = await h.send(valid(route, { body: { value: { deep: 10_000, open: '[', leaf: '0', closed: true } } }))
        expect(whole, 400, 'validation_failed')
      }
    }
    const health = await h.t.app.inject({ method: 'GET', url: '/healthz' })
    assert.equal(health.statusCode, 200)
  })

  it('answers a body over 1 MiB with 413 payload_too_large, and reads one of exactly the limit', async () => {
    assert.equal(h.t.config.http.bodyLimit, MIB)
    for (const route of bodyRoutes()) {
      expect(await h.send(valid(route, { body: withValue({ long: MIB, char: 'a' }) })), 413, 'payload_too_large')
    }
    const projects = h.routeMap.get('POST /organization/{organizationId}/project')!
    const padding = (bytes: number) => 'a'.repeat(bytes - '{"name":""}'.length)
    const atLimit = await h.send(valid(projects, { body: { text: `{"name":"${padding(MIB)}"}` } }))
    expect(atLimit, 400, 'validation_failed')
    const overLimit = await h.send(valid(projects, { body: { text: `{"name":"${padding(MIB + 1)}"}` } }))
    expect(overLimit, 413, 'payload_too_large')
  })

  it('refuses __proto__ and constructor.prototype keys with 400 invalid_json on every operation, and pollutes nothing', async () => {
    const polluting: Leaf[] = [
      { raw: '{"__proto__":{"polluted":true}}' },
      { raw: '{"constructor":{"prototype":{"polluted":true}}}' },
      { raw: '[{"a":{"__proto__":{"polluted":true}}}]' },
    ]
    for (const route of bodyRoutes()) {
      for (const leaf of polluting) {
        expect(await h.send(valid(route, { body: { value: leaf } })), 400, 'invalid_json')
        expect(await h.send(valid(route, { body: withValue(leaf) })), 400, 'invalid_json')
      }
      const rootKey = await h.send(
        valid(route, {
          body: BASE_BODIES[routeKey(route)]
            ? { base: [{ key: '__proto__', at: [], value: { json: { polluted: true } } }] }
            : { text: '{"__proto__":{"polluted":true}}' },
        }),
      )
      expect(rootKey, 400, 'invalid_json')
    }
    for (const route of h.routes) {
      const query: [string, string][] = [
        ['__proto__[polluted]', 'true'],
        ['constructor[prototype][polluted]', 'true'],
        ['__proto__', 'x'],
      ]
      await h.send(valid(route, { query }))
    }
    assertNoPollution(prototypes)
  })

  it('answers hostile path parameters with 400 or 404 on every operation', async () => {
    // Each hostile segment and each other kind's id at a third of the parameters, every one of
    // them across the document (all of them everywhere takes too long).
    let n = 0
    for (const route of h.routes) {
      for (const name of route.pathParams) {
        // A kind word, not an id (getIngressDeploymentStatus's serviceType): its own test covers it.
        if (UNSERVED_PARAMS.has(name)) continue
        n++
        // A webhook cannot verify a delivery to an organization it does not know: 401, as for a wrong
        // signature, so that nothing tells an organization that exists from one that does not.
        const webhook = webhookProviderOf(route.template) !== undefined
        for (const raw of HOSTILE_SEGMENTS.filter((_, i) => (i + n) % 3 === 0)) {
          const answer = await h.send(valid(route, { params: { [name]: { raw } } }))
          // A dot segment is resolved away before routing (light-my-request resolves %2e%2e too):
          // the request goes to another route.
          if (!['.', '..', '%2e%2e'].includes(raw)) expect(answer, webhook ? [400, 401, 404] : [400, 404])
        }
        const [status, code] = webhook ? [401, 'unauthenticated'] : [404, 'not_found']
        expect(await h.send(valid(route, { params: { [name]: { uuid: randomUUID() } } })), status, code)
        const own = paramKind(route.template, name)
        for (const other of KINDS.filter((kind, i) => !sameFamily(own, kind, name) && (i + n) % 3 === 0)) {
          expect(await h.send(valid(route, { params: { [name]: { other } } })), status, code)
        }
      }
    }
  })

  it('answers invalid query values with 400 validation_failed on every operation that declares a query', async () => {
    let checked = 0
    for (const route of h.routes) {
      for (const param of route.queryParams) {
        const values = badQueryValues(param.schema)
        assert.ok(values.length > 0, `no bad value for ${routeKey(route)} ?${param.name} ${JSON.stringify(param.schema)}`)
        for (const value of values) {
          const others = (BASE_QUERIES[routeKey(route)] ?? []).filter(([name]) => name !== param.name)
          const answer = await h.send(valid(route, { query: [...others, [param.name, value]] }))
          expect(answer, 400, 'validation_failed')
          assert.ok(
            answer.res.json().errors.some((e: { location?: string }) => e.location === 'query'),
            `${routeKey(route)} ?${param.name}=${value.slice(0, 40)}: ${answer.res.body}`,
          )
          checked++
        }
      }
    }
    assert.ok(checked > 50, `only ${checked} query values checked`)
  })

  it('answers missing, malformed, unknown and near-miss credentials with 401 on every operation', async () => {
    const mangles = ['suffix', 'truncate', 'flip', 'upper', 'spaces'] as const
    for (const [i, route] of h.routes.entries()) {
      const auths: HostileRequest['auth'][] = [
        { none: true },
        ...mangles.map((mangled) => ({ mangled })),
        // Every garbage header at a third of the operations each, all of them across the document.
        ...AUTH_HEADERS.filter((_, j) => (i + j) % 3 === 0).map((header) => ({ header })),
      ]
      for (const auth of auths) {
        expect(await h.send(valid(route, { auth })), 401, 'unauthenticated')
      }
    }
  })

  it('answers unknown paths and methods in the error shape', async () => {
    const methods: Method[] = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD']
    for (const path of UNKNOWN_PATHS) {
      for (const method of methods) {
        for (const auth of [{ admin: true }, { none: true }] as const) {
          const { res } = await h.send({ method, route: path, params: {}, query: [], auth, headers: {}, body: { none: true } })
          // `/organization/` is `/organization`, and `//organization` too; everything else is no route.
          if (res.statusCode < 400) assert.match(path, /^\/+organization\/?$/, `${method} ${path}: ${res.statusCode}`)
        }
      }
    }
    for (const route of h.routes) {
      const wrong = (['PATCH', 'OPTIONS'] as const).map((method) => h.send(valid(route, { method })))
      for (const answer of await Promise.all(wrong)) expect(answer, 404, 'route_not_found')
    }
  })

  it('answers Bearer JWTs that the issuer signed with hostile claims with 200 or 401, storing no claim PostgreSQL cannot take', async () => {
    const account = h.routeMap.get('GET /account')!
    const projects = h.routeMap.get('POST /organization/{organizationId}/project')!
    const now = Math.floor(Date.now() / 1000)
    const refused: Record<string, unknown>[] = [
      { sub: '\u0000' },
      { sub: 'a\u0000b' },
      { sub: '\ud800' },
      { sub: 'x'.repeat(256) },
      { sub: 42 },
      { sub: '' },
      { nbf: 1e21 },
      { exp: -1e21 },
      { exp: now - 3600 },
      { exp: '9999999999' },
      { aud: ['someone else'] },
      { iss: 'https://elsewhere.example' },
    ]
    for (const forged of refused) {
      for (const route of [account, projects]) expect(await h.send(valid(route, { auth: { forged } })), 401, 'unauthenticated')
    }
    const member = { sub: '@member' }
    const accepted: Record<string, unknown>[] = [
      { ...member, name: 'a\u0000b', email: 'x\u0000@example.com' },
      { ...member, name: '\ud800', preferred_username: '\udfff' },
      { ...member, name: `${'a'.repeat(254)}🚀`, email: `${'e'.repeat(400)}@example.com` },
      { ...member, name: "'; DROP TABLE users; --", email: '<script>@x' },
      { sub: `new-${Date.now()}`, name: 42, email: { a: 1 } },
    ]
    for (const forged of accepted) {
      const answer = await h.send(valid(account, { auth: { forged } }))
      expect(answer, 200)
      const { name, email } = answer.res.json() as { name?: string; email?: string }
      for (const text of [name, email]) {
        if (text !== undefined && text !== null)
          assert.ok(!/\0|[\uD800-\uDFFF]/.test(text.replace(/[\uD800-\uDBFF][\uDC00-\uDFFF]/g, '')), `stored ${JSON.stringify(text)}`)
      }
      expect(await h.send(valid(projects, { auth: { forged } })), forged.sub === '@member' ? [200, 201] : 404)
    }
  })

  describe('regressions: inputs that found bugs', () => {
    it('refuses a JSON body that is not UTF-8 instead of reading U+FFFD into it (redeploy was queued)', async () => {
      // fast-check seed 913910726: 202 RESTART_QUEUED, with a deployment request row written.
      const found: HostileRequest = {
        method: 'POST',
        route: 'POST /environment/{environmentId}/redeploy',
        params: { environmentId: { other: 'environment' } },
        query: [],
        auth: { admin: true },
        headers: {},
        body: { value: { bytes: [255] }, contentType: 'application/json; charset=utf-8' },
      }
      const answer = await h.send(found)
      assert.deepEqual(answer.sent.payload, Buffer.from([0x22, 0x61, 0xff, 0x62, 0x22]))
      expect(answer, 400, 'invalid_json')
      // …and in a field of a body that is otherwise valid: no project named with U+FFFD.
      const projects = h.routeMap.get('POST /organization/{organizationId}/project')!
      const named = await h.send(valid(projects, { body: { base: [{ set: ['name'], value: { bytes: [0xc3, 0x28] } }] } }))
      expect(named, 400, 'invalid_json')
    })

    it('refuses a helm source that names no chart with 400 on create and edit (building the input threw, 500)', async () => {
      // fast-check seed -204752649: PUT /helm/{helmId} with "source": {}.
      for (const route of ['PUT /helm/{helmId}', 'POST /environment/{environmentId}/helm']) {
        const answer = await h.send(valid(h.routeMap.get(route)!, { body: { base: [{ set: ['source'], value: { json: {} } }] } }))
        expect(answer, 400, 'validation_failed')
        assert.deepEqual(
          answer.res.json().errors.map((error: { path: string }) => error.path),
          ['/source'],
        )
      }
    })

    it('refuses a JWT whose subject is NUL with 401 (the user lookup failed with 500)', async () => {
      // fast-check: {"auth":{"forged":{"sub":"\u0000"}}}; PostgreSQL refused the NUL in the lookup.
      const answer = await h.send(valid(h.routeMap.get('GET /account')!, { auth: { forged: { sub: '\u0000' } } }))
      expect(answer, 401, 'unauthenticated')
      assert.match(answer.res.json().message, /"sub" claim/)
    })

    it('refuses a JWT whose nbf is far beyond any date with 401 (formatting the time threw, 500)', async () => {
      // fast-check: {"auth":{"forged":{"email":"a…a@example.com","nbf":1e+21}}}; Date#toISOString threw a RangeError.
      const forged = { email: `${'a'.repeat(400)}@example.com`, nbf: 1e21 }
      const answer = await h.send(valid(h.routeMap.get('POST /organization/{organizationId}/helmRepository')!, { auth: { forged } }))
      expect(answer, 401, 'unauthenticated')
      assert.match(answer.res.json().message, /not yet valid/)
    })

    it('refuses NUL in a query value with 400 validation_failed (the token listing filter failed with 500)', async () => {
      // fast-check seed 21: {"route":"GET /organization/{organizationId}/apiToken","query":[["creatorName","%00"],["name",""]]}.
      const listing = h.routeMap.get('GET /organization/{organizationId}/apiToken')!
      const found = await h.send(
        valid(listing, {
          query: [
            ['creatorName', '%00'],
            ['name', ''],
          ],
        }),
      )
      expect(found, 400, 'validation_failed')
      assert.deepEqual(found.res.json().errors, [
        { path: '/creatorName', message: 'must not contain NUL characters or unpaired surrogates', location: 'query' },
      ])
      expect(await h.send(valid(listing, { query: [['name', 'a%00b']] })), 400, 'validation_failed')
    })

    it('names the NUL of a body nested deeper than the call stack goes, rather than calling the body not JSON', async () => {
      // A property run's 10,000-level body with a NUL at the bottom: the recursive search for it
      // overflowed the stack, and Fastify's JSON parser turned the RangeError into "not valid JSON".
      const organizations = h.routeMap.get('POST /organization')!
      const answer = await h.send(
        valid(organizations, { body: { base: [{ set: ['name'], value: { deep: 10_000, open: '{', leaf: '"\\u0000"', closed: true } }] } }),
      )
      expect(answer, 400, 'validation_failed')
      assert.equal(answer.res.json().errors[0].path, `/name${'/a'.repeat(10_000)}`)
      assert.equal(answer.res.json().errors[0].location, 'body')
    })
  })

  describe('the checks themselves', () => {
    it('snapshot every table but the migrations, see a change in any of them, and ignore token-usage times', async () => {
      const w = await h.world()
      const before = await h.snapshot()
      for (const table of ['organizations', 'api_tokens', 'projects', 'environments', 'services', 'deployment_requests', 'users']) {
        assert.ok(before[table], `no snapshot of ${table}`)
      }
      assert.equal(before.berth_migrations, undefined)
      await sql`update api_tokens set last_used_at = now()`.execute(h.t.db)
      assert.deepEqual(changedTables(before, await h.snapshot()), [])
      await sql`update projects set description = 'changed behind the API' where id = ${w.ids.project}`.execute(h.t.db)
      await sql`update users set name = name || '!' where id = ${w.ids.user}`.execute(h.t.db)
      assert.deepEqual(changedTables(before, await h.snapshot()), ['projects', 'users'])
    })

    it('refuse a 5xx, an error not in the error shape, a leak, and an answer that shows the credential', async () => {
      const w = { ...(await h.world()), secret: 'the-admin-token-secret' }
      const bare = Fastify()
      bare.addHook('onRequest', async (request, reply) => {
        reply.header('x-request-id', request.id)
      })
      const error = (request: FastifyRequest, status: number, message: string) => ({
        status,
        error: STATUS_CODES[status],
        message,
        detail: message,
        code: status === 500 ? 'internal_error' : 'bad_request',
        request_id: request.id,
      })
      bare.get('/fine', async (request, reply) => reply.code(400).send(error(request, 400, 'a fine error')))
      bare.get('/server-error', async (request, reply) => reply.code(500).send(error(request, 500, 'internal server error')))
      bare.get('/html', async (_request, reply) => reply.code(400).type('text/html').send('<h1>Bad Request</h1>'))
      bare.get('/extra-field', async (request, reply) => reply.code(400).send({ ...error(request, 400, 'x'), stack: 'Error: x' }))
      bare.get('/status-field', async (request, reply) => reply.code(404).send(error(request, 400, 'x')))
      bare.get('/stack', async (request, reply) =>
        reply.code(400).send(error(request, 400, 'TypeError: x\n    at Object.<anonymous> (/srv/berth/src/app.ts:12:3)')),
      )
      bare.get('/sql', async (request, reply) => reply.code(400).send(error(request, 400, 'relation "api_tokens" does not exist')))
      bare.get('/echo', async (request) => ({ seen: request.headers.authorization }))
      bare.get('/own-token', async () => ({ token: 'the-admin-token-secret' }))
      const sent = (url: string, authorization = 'Token a-credential-long-enough'): Rendered => ({
        method: 'GET',
        url,
        headers: { authorization },
        route: undefined,
        invalidUtf8: false,
      })
      const check = async (url: string) => {
        const rendered = sent(url)
        checkAnswer(await bare.inject({ method: 'GET', url, headers: rendered.headers }), rendered, w)
      }
      await check('/fine')
      for (const url of ['/server-error', '/html', '/extra-field', '/status-field', '/stack', '/sql', '/echo', '/own-token']) {
        await assert.rejects(check(url), assert.AssertionError, `${url} passed the checks`)
      }
      // What the request carried itself may come back (the path of a 404, say).
      const own = sent('/sql')
      own.headers['x-note'] = 'relation "api_tokens"'
      checkAnswer(await bare.inject({ method: 'GET', url: '/sql', headers: own.headers }), own, w)
      await bare.close()
    })
  })

  it('leaves every built-in prototype as it was', () => {
    assertNoPollution(prototypes)
  })
})
