import assert from 'node:assert/strict'
import { createSign, generateKeyPairSync, type KeyObject } from 'node:crypto'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, it, mock } from 'node:test'
import { exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose'
import { createOidcVerifier } from '#src/platform/auth/oidc-verifier.ts'
import { AppError } from '#src/platform/http/errors.ts'
import { createTestApp, type TestApp } from './helpers/app.ts'
import { assertError } from './helpers/assertions.ts'
import { factories } from './helpers/factories.ts'
import { assertRejected, startOidcProvider, startStaticIssuer, TEST_AUDIENCE, type TestIdentityProvider } from './helpers/oidc-provider.ts'

const now = () => Math.floor(Date.now() / 1000)
const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')
const kidOf = (jwt: string) => JSON.parse(Buffer.from(jwt.split('.')[0]!, 'base64url').toString()).kid

const bearer = (t: TestApp, token: string) => t.app.inject({ method: 'GET', url: '/organization', headers: { authorization: `Bearer ${token}` } })

/** A free loopback port: nothing listens there once this returns. */
async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

/** An RSA key pair with its public JWK as an issuer publishes it. */
function rsaKey(kid: string, modulusLength = 2048): { privateKey: KeyObject; jwk: JWK } {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength })
  return { privateKey, jwk: { ...publicKey.export({ format: 'jwk' }), kid, alg: 'RS256', use: 'sig' } }
}

/** An RS256 JWT signed with node's crypto, which (unlike jose) also signs with keys under 2048 bits. */
function signRs256(privateKey: KeyObject, claims: object, header: object = {}): string {
  const input = `${base64url({ alg: 'RS256', typ: 'at+jwt', ...header })}.${base64url(claims)}`
  return `${input}.${createSign('RSA-SHA256').update(input).sign(privateKey).toString('base64url')}`
}

describe('Bearer keys, reloaded without a cooldown (injected)', () => {
  let idp: TestIdentityProvider
  let t: TestApp
  before(async () => {
    idp = await startOidcProvider()
    t = await createTestApp(idp.env, { oidcCooldownMs: 0 })
  })
  after(async () => {
    await t.close()
    await idp.close()
  })

  it('picks up rotated keys without a restart, and refuses tokens of a key the issuer no longer publishes', async () => {
    const user = await idp.user()
    const before = await idp.accessToken(user)
    assert.equal((await bearer(t, before)).statusCode, 200)

    await idp.rotateKeys()
    const rotated = await idp.accessToken(user)
    assert.notEqual(kidOf(rotated), kidOf(before))
    assert.equal((await bearer(t, rotated)).statusCode, 200)
    await assertRejected(t, before, /unknown key/)
  })
})

describe('Bearer key fetching with the default cooldown', () => {
  let idp: TestIdentityProvider
  let t: TestApp
  before(async () => {
    idp = await startOidcProvider()
    t = await createTestApp(idp.env)
  })
  after(async () => {
    await t.close()
    await idp.close()
  })

  it('does not ask the issuer again for a burst of tokens with unknown kids', async () => {
    const valid = await idp.accessToken(await idp.user())
    assert.equal((await bearer(t, valid)).statusCode, 200)
    const fetchesBefore = idp.jwksFetches()
    assert.equal(fetchesBefore, 1)

    const forged = await Promise.all(
      Array.from({ length: 25 }, (_, i) =>
        idp.forge({ iss: idp.issuer, aud: TEST_AUDIENCE, sub: 'x', exp: now() + 60 }, { header: { kid: `unknown-${i}` } }),
      ),
    )
    const answers = await Promise.all(forged.map((token) => bearer(t, token)))
    for (const res of answers) assert.match(assertError(res, 401, 'unauthenticated').message, /unknown key/)
    assert.equal(idp.jwksFetches(), fetchesBefore)
  })
})

describe('Bearer key rotation within the default cooldown', () => {
  let idp: TestIdentityProvider
  let t: TestApp
  before(async () => {
    idp = await startOidcProvider()
    t = await createTestApp(idp.env)
  })
  after(async () => {
    mock.timers.reset()
    await t.close()
    await idp.close()
  })

  it('refuses a fresh kid as unknown until the cooldown after the last fetch has passed, then accepts it', async () => {
    mock.timers.enable({ apis: ['Date'], now: Date.now() })
    const user = await idp.user()
    assert.equal((await bearer(t, await idp.accessToken(user))).statusCode, 200)
    assert.equal(idp.jwksFetches(), 1)

    await idp.rotateKeys()
    const rotated = await idp.accessToken(user)
    // The window operators must know about: keys are not fetched again within the cooldown.
    await assertRejected(t, rotated, /unknown key/)
    assert.equal(idp.jwksFetches(), 1)

    mock.timers.tick(t.config.auth.oidc!.cooldownMs)
    assert.equal((await bearer(t, rotated)).statusCode, 200)
    assert.equal(idp.jwksFetches(), 2)
  })
})

describe('Bearer with several keys of one type, and unusable keys', () => {
  const first = rsaKey('first')
  const second = rsaKey('second')
  const weak = rsaKey('weak', 1024)
  const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' })
  const ecJwk = ec.publicKey.export({ format: 'jwk' })
  // Published, but its point is not on the curve: no one can import it.
  const broken: JWK = { ...ecJwk, x: ecJwk.y, kid: 'broken', alg: 'ES256', use: 'sig' }
  let issuer: Awaited<ReturnType<typeof startStaticIssuer>>
  let t: TestApp
  before(async () => {
    issuer = await startStaticIssuer([first.jwk, second.jwk, weak.jwk, broken])
    t = await createTestApp(issuer.env)
  })
  after(async () => {
    await t.close()
    await issuer.close()
  })

  const claims = () => ({ iss: issuer.issuer, aud: TEST_AUDIENCE, sub: 'kidless', exp: now() + 60 })

  it('tries each candidate key for a token without kid', async () => {
    for (const key of [first, second]) {
      const res = await bearer(t, signRs256(key.privateKey, claims()))
      assert.equal(res.statusCode, 200, res.body)
    }
  })

  it('refuses a token without kid that no published key verifies as a bad signature', async () => {
    await assertRejected(t, signRs256(rsaKey('stranger').privateKey, claims()), /bad signature/)
  })

  it('refuses a token of a published RSA key under 2048 bits as a key that is not usable, not a server error', async () => {
    await assertRejected(t, signRs256(weak.privateKey, claims(), { kid: 'weak' }), /key not usable/)
  })

  it('refuses a published key that cannot be imported as not usable, every time, without refetching or failing the others', async () => {
    const token = await new SignJWT(claims()).setProtectedHeader({ alg: 'ES256', kid: 'broken', typ: 'at+jwt' }).sign(ec.privateKey)
    const fetches = issuer.jwksFetches()
    await assertRejected(t, token, /key not usable/)
    await assertRejected(t, token, /key not usable/)
    assert.equal((await bearer(t, signRs256(first.privateKey, claims(), { kid: 'first' }))).statusCode, 200)
    assert.equal(issuer.jwksFetches(), fetches, 'an unusable key is not an outage')
  })
})

describe('Bearer with an unreachable or misbehaving issuer', () => {
  it('answers 503 to Bearer requests while API tokens keep working, and recovers when the issuer comes back', async () => {
    const port = await closedPort()
    const t = await createTestApp({ BERTH_OIDC_ISSUER: `http://127.0.0.1:${port}`, BERTH_OIDC_AUDIENCE: TEST_AUDIENCE }, { oidcCooldownMs: 0 })
    let idp: TestIdentityProvider | undefined
    try {
      const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' })
      const token = await new SignJWT({ sub: 'someone' })
        .setProtectedHeader({ alg: 'ES256', kid: 'k' })
        .setIssuer(`http://127.0.0.1:${port}`)
        .setAudience(TEST_AUDIENCE)
        .setExpirationTime('5m')
        .sign(privateKey)
      const res = await bearer(t, token)
      const body = assertError(res, 503, 'service_unavailable')
      assert.match(body.message, /issuer cannot be reached/)
      assert.ok(Number(res.headers['retry-after']) >= 1)
      assert.ok(!res.body.includes(token))

      const { tokens } = await factories(t.db).organizationWithTokens()
      const apiToken = await t.app.inject({ method: 'GET', url: '/organization', headers: { authorization: tokens.read.authorization } })
      assert.equal(apiToken.statusCode, 200)

      // The issuer starts after Berth did: discovery is retried, no restart needed.
      idp = await startOidcProvider({ port })
      const recovered = await bearer(t, await idp.accessToken(await idp.user()))
      assert.equal(recovered.statusCode, 200, recovered.body)
    } finally {
      await t.close()
      await idp?.close()
    }
  })

  it('keeps accepting tokens of the keys it holds while the issuer is down', async () => {
    const idp = await startOidcProvider()
    const t = await createTestApp(idp.env, { oidcCooldownMs: 0 })
    try {
      const token = await idp.accessToken(await idp.user())
      assert.equal((await bearer(t, token)).statusCode, 200)
      await idp.close()

      const unknown = await bearer(t, await idp.forge({ iss: idp.issuer, aud: TEST_AUDIENCE, sub: 'x', exp: now() + 60 }, { header: { kid: 'new' } }))
      assertError(unknown, 503, 'service_unavailable')
      const held = await bearer(t, token)
      assert.equal(held.statusCode, 200, held.body)
    } finally {
      await t.close()
    }
  })

  it('answers 503 when the discovery document names another issuer', async () => {
    const key = rsaKey('k')
    const issuer = await startStaticIssuer([key.jwk], (document) => ({ ...document, issuer: 'https://impostor.example.com' }))
    const t = await createTestApp(issuer.env)
    try {
      const res = await bearer(t, signRs256(key.privateKey, { iss: issuer.issuer, aud: TEST_AUDIENCE, sub: 'x', exp: now() + 60 }, { kid: 'k' }))
      assertError(res, 503, 'service_unavailable')
      assert.equal(issuer.jwksFetches(), 0)
    } finally {
      await t.close()
      await issuer.close()
    }
  })

  it('answers 503 when the issuer is up but its key set cannot be fetched', async () => {
    let jwksRequests = 0
    const server = createServer((req, res) => {
      const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
      if (req.url === '/.well-known/openid-configuration') {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ issuer, jwks_uri: `${issuer}/jwks` }))
      } else {
        jwksRequests++
        res.writeHead(500).end()
      }
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    const t = await createTestApp({ BERTH_OIDC_ISSUER: issuer, BERTH_OIDC_AUDIENCE: TEST_AUDIENCE })
    try {
      const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' })
      const token = await new SignJWT({ sub: 'someone' })
        .setProtectedHeader({ alg: 'ES256', kid: 'k' })
        .setIssuer(issuer)
        .setAudience(TEST_AUDIENCE)
        .setExpirationTime('5m')
        .sign(privateKey)
      for (let i = 0; i < 3; i++) assertError(await bearer(t, token), 503, 'service_unavailable')
      // Within the cooldown a failing issuer is asked once, not once per request.
      assert.equal(jwksRequests, 1)
    } finally {
      await t.close()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  })
})

describe('the OpenID Connect verifier', () => {
  const issuer = 'https://id.example.test'

  /** A verifier whose requests reach a stub of the issuer answering with `jwksUri` and `keys`. */
  async function verifierWith(jwksUri: string) {
    const { privateKey, publicKey } = await generateKeyPair('ES256')
    const keys = [{ ...(await exportJWK(publicKey)), kid: 'k', alg: 'ES256' }]
    mock.method(globalThis, 'fetch', async (input: string | URL | Request) => {
      const url = String(input instanceof Request ? input.url : input)
      const body = url.endsWith('/openid-configuration') ? { issuer, jwks_uri: jwksUri } : { keys }
      return new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } })
    })
    const problems: string[] = []
    const verifier = createOidcVerifier({ issuer, audience: TEST_AUDIENCE, cooldownMs: 1000, onIssuerError: (error) => problems.push(String(error)) })
    const token = await new SignJWT({ sub: 'someone' })
      .setProtectedHeader({ alg: 'ES256', kid: 'k' })
      .setIssuer(issuer)
      .setAudience(TEST_AUDIENCE)
      .setExpirationTime('5m')
      .sign(privateKey)
    return { verifier, token, problems }
  }

  after(() => mock.restoreAll())

  it('refuses keys served over plain http by an https issuer', async () => {
    const { verifier, token, problems } = await verifierWith('http://id.example.test/jwks')
    await assert.rejects(verifier.verify(token), (e: unknown) => e instanceof AppError && e.code === 'service_unavailable')
    assert.match(problems.join('\n'), /jwks_uri that is not https/)
    mock.restoreAll()
  })

  it('takes keys served over https from an https issuer', async () => {
    const { verifier, token } = await verifierWith('https://id.example.test/jwks')
    assert.equal((await verifier.verify(token)).subject, 'someone')
    mock.restoreAll()
  })
})
