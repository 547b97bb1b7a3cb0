import assert from 'node:assert/strict'
import { createHmac, createPublicKey, generateKeyPairSync } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { SignJWT } from 'jose'
import { Configuration, OrganizationMainCallsApi } from 'qovery-typescript-axios'
import { createTestApp, type TestApp } from './helpers/app.ts'
import { assertError } from './helpers/assertions.ts'
import { factories, uniqueName } from './helpers/factories.ts'
import { assertRejected, startOidcProvider, TEST_AUDIENCE, type TestIdentityProvider } from './helpers/oidc-provider.ts'

const now = () => Math.floor(Date.now() / 1000)
const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')

describe('Bearer JWTs from a real OpenID provider', () => {
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

  const call = (token: string, method: 'GET' | 'POST' = 'GET', url = '/organization', payload?: object) =>
    t.app.inject({ method, url, headers: { authorization: `Bearer ${token}` }, ...(payload ? { payload } : {}) })

  it("lists exactly the user's organizations, and answers 404 for another user's", async () => {
    const alice = await idp.accessToken(await idp.user({ name: 'Alice' }))
    const bob = await idp.accessToken(await idp.user({ name: 'Bob' }))
    const created = await call(alice, 'POST', '/organization', { name: uniqueName('alice org'), plan: 'FREE' })
    assert.equal(created.statusCode, 201, created.body)
    const organization = created.json()
    // An organization nobody of these users belongs to exists too, and must not show.
    await factories(t.db).organization()

    const listed = await call(alice)
    assert.equal(listed.statusCode, 200, listed.body)
    assert.deepEqual(
      listed.json().results.map((o: { id: string }) => o.id),
      [organization.id],
    )
    assert.deepEqual((await call(bob)).json().results, [])
    assertError(await call(bob, 'GET', `/organization/${organization.id}`), 404, 'not_found')
  })

  for (const alg of ['RS256', 'PS256', 'ES256', 'EdDSA'] as const) {
    it(`accepts a token the provider signed with ${alg}`, async () => {
      const token = await idp.accessToken(await idp.user({ alg }))
      assert.equal(JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString()).alg, alg)
      assert.equal((await call(token)).statusCode, 200)
    })
  }

  it('creates the user on first sight from the standard claims, and follows a changed name or email', async () => {
    const user = await idp.user({ name: 'Grace Hopper', email: 'grace@example.com' })
    const first = await call(await idp.accessToken(user), 'GET', '/account')
    assert.equal(first.statusCode, 200, first.body)
    const account = first.json()
    assert.equal(account.name, 'Grace Hopper')
    assert.equal(account.email, 'grace@example.com')

    const again = await call(await idp.accessToken(user), 'GET', '/account')
    assert.equal(again.json().id, account.id)

    const renamed = await idp.forge({ iss: idp.issuer, aud: TEST_AUDIENCE, sub: user.subject, exp: now() + 60, name: 'Rear Admiral Hopper' })
    const changed = (await call(renamed, 'GET', '/account')).json()
    assert.equal(changed.id, account.id)
    assert.equal(changed.name, 'Rear Admiral Hopper')
    // A token without the claim keeps what is known.
    assert.equal(changed.email, 'grace@example.com')
  })

  it('answers 403 on /account to an API token, which is no person', async () => {
    const { tokens } = await factories(t.db).organizationWithTokens()
    const res = await t.app.inject({ method: 'GET', url: '/account', headers: { authorization: tokens.admin.authorization } })
    assertError(res, 403, 'forbidden')
  })

  it('refuses an expired token, saying it expired', async () => {
    const token = await idp.forge({ iss: idp.issuer, aud: TEST_AUDIENCE, sub: 'expired-user', iat: now() - 600, exp: now() - 120 })
    await assertRejected(t, token, /expired/)
  })

  it('forgives a little clock skew on exp', async () => {
    const token = await idp.forge({ iss: idp.issuer, aud: TEST_AUDIENCE, sub: uniqueName('skewed'), exp: now() - 5 })
    assert.equal((await call(token)).statusCode, 200)
  })

  it('forgives a little clock skew on nbf', async () => {
    const token = await idp.forge({ iss: idp.issuer, aud: TEST_AUDIENCE, sub: uniqueName('early'), nbf: now() + 5, exp: now() + 60 })
    assert.equal((await call(token)).statusCode, 200)
  })

  it('refuses a token that is not valid yet', async () => {
    const token = await idp.forge({ iss: idp.issuer, aud: TEST_AUDIENCE, sub: 'early-user', nbf: now() + 600, exp: now() + 1200 })
    await assertRejected(t, token, /not yet valid/)
  })

  it('refuses a token the provider issued for another audience', async () => {
    const token = await idp.accessToken(await idp.user(), { resource: 'https://other-api.test/' })
    await assertRejected(t, token, /wrong audience/)
  })

  it('refuses a token claiming another issuer, even signed with the right key', async () => {
    const token = await idp.forge({ iss: 'https://evil.example.com', aud: TEST_AUDIENCE, sub: 'someone', exp: now() + 60 })
    await assertRejected(t, token, /wrong issuer/)
  })

  it('refuses a token without a subject or without an expiry', async () => {
    await assertRejected(t, await idp.forge({ iss: idp.issuer, aud: TEST_AUDIENCE, exp: now() + 60 }), /"sub" claim is missing/)
    await assertRejected(t, await idp.forge({ iss: idp.issuer, aud: TEST_AUDIENCE, sub: 'no-expiry' }), /"exp" claim is missing/)
  })

  it('refuses an unsigned token (alg none)', async () => {
    const token = `${base64url({ alg: 'none', typ: 'JWT' })}.${base64url({ iss: idp.issuer, aud: TEST_AUDIENCE, sub: 'unsigned', exp: now() + 60 })}.`
    await assertRejected(t, token, /algorithm not allowed/)
  })

  it("refuses an HS256 token whose HMAC key is the provider's public key (key confusion)", async () => {
    const publicPem = createPublicKey({ key: idp.publicRsaKey(), format: 'jwk' }).export({ type: 'spki', format: 'pem' })
    const header = base64url({ alg: 'HS256', typ: 'JWT', kid: idp.publicRsaKey().kid })
    const payload = base64url({ iss: idp.issuer, aud: TEST_AUDIENCE, sub: 'confused', exp: now() + 60 })
    const signature = createHmac('sha256', publicPem).update(`${header}.${payload}`).digest('base64url')
    await assertRejected(t, `${header}.${payload}.${signature}`, /algorithm not allowed/)
  })

  it('refuses a token whose claims were changed after signing', async () => {
    const [header, , signature] = (await idp.accessToken(await idp.user())).split('.')
    const payload = base64url({ iss: idp.issuer, aud: TEST_AUDIENCE, sub: 'impostor', exp: now() + 60 })
    await assertRejected(t, `${header}.${payload}.${signature}`, /bad signature/)
  })

  it('refuses a token signed by a key the issuer does not publish', async () => {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 })
    const token = await new SignJWT({ sub: 'stranger' })
      .setProtectedHeader({ alg: 'RS256', kid: 'not-a-key-of-the-issuer' })
      .setIssuer(idp.issuer)
      .setAudience(TEST_AUDIENCE)
      .setExpirationTime('5m')
      .sign(privateKey)
    await assertRejected(t, token, /unknown key/)
  })

  for (const [claims, marker] of [
    [{ nonce: 'n-0S6_WzA2Mj' }, /ID token.*"nonce"/],
    [{ at_hash: 'HK6E_P6Dh8Y93mRNtsDB1Q' }, /ID token.*"at_hash"/],
    [{ typ: 'ID' }, /ID token.*"typ": "ID"/],
  ] as const) {
    it(`refuses an ID token sent as an access token (${Object.keys(claims)[0]} claim)`, async () => {
      const token = await idp.forge({ iss: idp.issuer, aud: TEST_AUDIENCE, sub: uniqueName('login'), exp: now() + 60, ...claims })
      await assertRejected(t, token, marker)
    })
  }

  for (const typ of ['JWT', 'at+jwt', 'application/at+jwt']) {
    it(`accepts the "typ" header ${typ}`, async () => {
      const token = await idp.forge({ iss: idp.issuer, aud: TEST_AUDIENCE, sub: uniqueName('typed'), exp: now() + 60 }, { header: { typ } })
      assert.equal((await call(token)).statusCode, 200)
    })
  }

  it('refuses a JWT whose "typ" header names another kind of token', async () => {
    const token = await idp.forge(
      { iss: idp.issuer, aud: TEST_AUDIENCE, sub: uniqueName('logout'), exp: now() + 60 },
      { header: { typ: 'logout+jwt' } },
    )
    await assertRejected(t, token, /not an access token: its "typ" header/)
  })

  it('refuses a JWT sent with the Token scheme, and an API token sent as Bearer', async () => {
    const jwt = await idp.accessToken(await idp.user())
    const asToken = await t.app.inject({ method: 'GET', url: '/organization', headers: { authorization: `Token ${jwt}` } })
    assert.match(assertError(asToken, 401, 'unauthenticated').message, /malformed API token/)
    const { tokens } = await factories(t.db).organizationWithTokens()
    const asBearer = await call(tokens.admin.token)
    assert.match(assertError(asBearer, 401, 'unauthenticated').message, /invalid Bearer token: malformed/)
    assert.ok(!asBearer.body.includes(tokens.admin.token))
  })

  for (const token of ['not-a-jwt', 'a.b', 'a.b.c.d.e', `bm90IGpzb24.${base64url({ sub: 'x' })}.c2ln`]) {
    it(`refuses the malformed Bearer credential "${token.slice(0, 20)}"`, async () => {
      const res = await call(token)
      assert.match(assertError(res, 401, 'unauthenticated').message, /malformed/)
    })
  }

  it('keeps accepting API tokens beside Bearer', async () => {
    const { tokens } = await factories(t.db).organizationWithTokens()
    const res = await t.app.inject({ method: 'GET', url: '/organization', headers: { authorization: tokens.read.authorization } })
    assert.equal(res.statusCode, 200)
  })

  it('lets a user create an API token in its organization, recorded as created by the user', async () => {
    const token = await idp.accessToken(await idp.user({ name: 'Token Maker' }))
    const organization = (await call(token, 'POST', '/organization', { name: uniqueName('maker org'), plan: 'FREE' })).json()
    const created = await call(token, 'POST', `/organization/${organization.id}/apiToken`, { name: 'ci', role: 'WRITE' })
    assert.equal(created.statusCode, 201, created.body)
    // The JWT's short life is not inherited: the token lasts until it is deleted or its creator leaves.
    assert.equal(created.json().expired_at, null)
    const apiToken = created.json().token as string
    const used = await t.app.inject({ method: 'GET', url: `/organization/${organization.id}`, headers: { authorization: `Token ${apiToken}` } })
    assert.equal(used.statusCode, 200)
    const listed = await call(token, 'GET', `/organization/${organization.id}/apiToken?creatorName=maker`)
    assert.deepEqual(
      listed.json().results.map((r: { name: string }) => r.name),
      ['ci'],
    )
  })

  it('serves the official client calling listOrganization with an access token', async () => {
    const listening = await createTestApp({ ...idp.env })
    try {
      const basePath = await listening.listen()
      const accessToken = await idp.accessToken(await idp.user({ name: 'Client User' }))
      const name = uniqueName('client org')
      const created = await call(accessToken, 'POST', '/organization', { name, plan: 'FREE' })
      assert.equal(created.statusCode, 201)

      const api = new OrganizationMainCallsApi(new Configuration({ basePath, accessToken }))
      const { status, data } = await api.listOrganization()
      assert.equal(status, 200)
      assert.deepEqual(
        data.results?.map((o) => o.name),
        [name],
      )
    } finally {
      await listening.close()
    }
  })
})
