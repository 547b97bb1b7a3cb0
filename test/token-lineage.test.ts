/**
 * Issue 23: a leaked API token can leave no copy of itself behind. What a token minted (tokens,
 * and the tokens those minted, in any organization) is revoked with it, at once in every process;
 * organizations it created stay, managed by the ADMINs of its organization; lists name each
 * token's creator; and minting is bounded per tree of organizations.
 */
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { createTestApp, type TestApp } from './helpers/app.ts'
import { assertError } from './helpers/assertions.ts'
import { factories, uniqueName } from './helpers/factories.ts'
import { memberCalls } from './helpers/members.ts'
import { startOidcProvider, type TestIdentityProvider } from './helpers/oidc-provider.ts'

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE'

interface Minted {
  id: string
  name: string
  token: string
  authorization: string
}

describe('what an API token minted goes with it', () => {
  let idp: TestIdentityProvider
  // Two replicas on one database, each remembering the tokens it authenticated.
  let a: TestApp
  let b: TestApp
  before(async () => {
    idp = await startOidcProvider()
    a = await createTestApp(idp.env)
    b = await createTestApp(idp.env)
  })
  after(async () => {
    await a?.close()
    await b?.close()
    await idp?.close()
  })

  const call = (t: TestApp, authorization: string, method: Method, url: string, payload?: object) =>
    t.app.inject({ method, url, headers: { authorization }, ...(payload ? { payload } : {}) })

  async function mint(by: string, organizationId: string, role = 'ADMIN'): Promise<Minted> {
    const res = await call(a, by, 'POST', `/organization/${organizationId}/apiToken`, { name: uniqueName('minted'), role })
    assert.equal(res.statusCode, 201, res.body)
    const body = res.json()
    return { id: body.id, name: body.name, token: body.token, authorization: `Token ${body.token}` }
  }

  async function createOrganization(by: string): Promise<string> {
    const res = await call(a, by, 'POST', '/organization', { name: uniqueName('made by a token'), plan: 'FREE' })
    assert.equal(res.statusCode, 201, res.body)
    return res.json().id
  }

  const status = async (t: TestApp, authorization: string) => (await call(t, authorization, 'GET', '/organization')).statusCode

  async function untilRejected(t: TestApp, authorization: string): Promise<void> {
    const deadline = Date.now() + 5_000
    while ((await status(t, authorization)) !== 401) {
      assert.ok(Date.now() < deadline, 'another replica still accepts a revoked token')
      await sleep(10)
    }
  }

  const listed = async (authorization: string) => {
    const res = await call(a, authorization, 'GET', '/organization')
    assert.equal(res.statusCode, 200, res.body)
    return (res.json().results as { id: string }[]).map((o) => o.id)
  }

  it('revokes every token a deleted token minted, and theirs, in every organization, at once in every replica', async () => {
    const { organization, tokens } = await factories(a.db).organizationWithTokens()
    const leaked = await mint(tokens.admin.authorization, organization.id)
    const child = await mint(leaked.authorization, organization.id, 'WRITE')
    const grandchild = await mint(child.authorization, organization.id, 'READ')
    const elsewhere = await createOrganization(leaked.authorization)
    const away = await mint(leaked.authorization, elsewhere)
    const awayChild = await mint(away.authorization, elsewhere, 'DEPLOY')
    const descendants = [child, grandchild, away, awayChild]
    // Both replicas have seen, and may remember, every one of them.
    for (const t of [a, b]) for (const token of [leaked, ...descendants]) assert.equal(await status(t, token.authorization), 200)

    const res = await call(a, tokens.admin.authorization, 'DELETE', `/organization/${organization.id}/apiToken/${leaked.id}`)
    assert.equal(res.statusCode, 204, res.body)
    for (const token of [leaked, ...descendants]) {
      assertError(await call(a, token.authorization, 'GET', '/organization'), 401, 'unauthenticated')
    }
    for (const token of [leaked, ...descendants]) await untilRejected(b, token.authorization)
    const left = await a.db
      .selectFrom('apiTokens')
      .select('id')
      .where(
        'id',
        'in',
        [leaked, ...descendants].map((token) => token.id),
      )
      .execute()
    assert.deepEqual(left, [])
    // The tokens beside it are untouched, and the organization it created is still there.
    assert.equal(await status(a, tokens.write.authorization), 200)
    assert.equal((await call(a, tokens.admin.authorization, 'GET', `/organization/${elsewhere}`)).statusCode, 200)
  })

  it('revokes a removed member’s tokens and what they minted, in the organizations its organization manages too', async () => {
    const { person, organizationOf, put, remove } = memberCalls(
      () => a,
      () => idp,
    )
    const alice = await person('alice')
    const bob = await person('bob')
    const home = await organizationOf(alice)
    assert.equal((await put(alice, home, bob.id, { role: 'ADMIN' })).statusCode, 200)
    const bobsToken = await mint(bob.authorization, home)
    const managed = await createOrganization(bobsToken.authorization)
    // Bob's own JWT mints in the managed organization, as the ADMIN of its manager.
    const direct = await mint(bob.authorization, managed)
    const directChild = await mint(direct.authorization, managed, 'READ')
    const aliceThere = await mint(alice.authorization, managed)

    assert.equal((await remove(alice, home, bob.id)).statusCode, 204)
    for (const token of [bobsToken, direct, directChild]) {
      assertError(await call(a, token.authorization, 'GET', '/organization'), 401, 'unauthenticated')
      await untilRejected(b, token.authorization)
    }
    assert.equal(await status(a, aliceThere.authorization), 200)
    assertError(await call(a, bob.authorization, 'GET', `/organization/${managed}`), 404, 'not_found')
    assert.ok((await listed(alice.authorization)).includes(managed))
  })

  it('lowers a demoted member’s tokens in a managed organization to its own membership there, or revokes them', async () => {
    const { person, organizationOf, put } = memberCalls(
      () => a,
      () => idp,
    )
    const alice = await person('alice')
    const bob = await person('bob')
    const carol = await person('carol')
    const home = await organizationOf(alice)
    for (const who of [bob, carol]) assert.equal((await put(alice, home, who.id, { role: 'ADMIN' })).statusCode, 200)
    const managed = await createOrganization((await mint(alice.authorization, home)).authorization)
    // Carol is also a WRITE member of the managed organization itself; Bob is not.
    assert.equal((await put(alice, managed, carol.id, { role: 'WRITE' })).statusCode, 200)
    const bobs = await mint(bob.authorization, managed)
    const carols = await mint(carol.authorization, managed)

    for (const who of [bob, carol]) assert.equal((await put(alice, home, who.id, { role: 'DEPLOY' })).statusCode, 200)
    assertError(await call(a, bobs.authorization, 'GET', '/organization'), 401, 'unauthenticated')
    const row = await a.db.selectFrom('apiTokens').select('role').where('id', '=', carols.id).executeTakeFirstOrThrow()
    assert.equal(row.role, 'WRITE')
    await untilRejected(b, bobs.authorization)
  })

  it('names the creator of each listed token: a token, a user, or none', async () => {
    const { person, organizationOf } = memberCalls(
      () => a,
      () => idp,
    )
    const alice = await person('alice')
    const home = await organizationOf(alice)
    const byAlice = await mint(alice.authorization, home)
    const byToken = await mint(byAlice.authorization, home, 'READ')
    const byCommand = await factories(a.db).apiToken(home, 'READ')
    const res = await call(a, alice.authorization, 'GET', `/organization/${home}/apiToken`)
    assert.equal(res.statusCode, 200, res.body)
    const creators = new Map((res.json().results as { id: string; created_by: unknown }[]).map((token) => [token.id, token.created_by]))
    assert.deepEqual(creators.get(byAlice.id), { kind: 'user', id: alice.id, name: alice.name })
    assert.deepEqual(creators.get(byToken.id), { kind: 'api_token', id: byAlice.id, name: byAlice.name })
    assert.equal(creators.get(byCommand.id), null)
  })

  describe('organizations created by an API token', () => {
    it('stay after their creator is revoked, listed for and managed by the ADMINs of its organization only', async () => {
      const { organization, tokens } = await factories(a.db).organizationWithTokens()
      const creator = await mint(tokens.admin.authorization, organization.id)
      const created = await createOrganization(creator.authorization)
      const project = await call(a, creator.authorization, 'POST', `/organization/${created}/project`, { name: uniqueName('p') })
      assert.equal(project.statusCode, 200, project.body)
      assert.equal((await call(a, tokens.admin.authorization, 'DELETE', `/organization/${organization.id}/apiToken/${creator.id}`)).statusCode, 204)

      // Another ADMIN token of the creator's organization sees it and manages it.
      const admin = await factories(a.db).apiToken(organization.id, 'ADMIN')
      assert.deepEqual(await listed(admin.authorization), [organization.id, created])
      assert.equal((await call(a, admin.authorization, 'GET', `/project/${project.json().id}`)).statusCode, 200)
      const edited = await call(a, admin.authorization, 'PUT', `/organization/${created}`, { name: uniqueName('adopted'), plan: 'FREE' })
      assert.equal(edited.statusCode, 200, edited.body)
      const minted = await mint(admin.authorization, created, 'READ')
      assert.equal(await status(a, minted.authorization), 200)
      // Lower roles of that organization do not.
      for (const token of [tokens.write, tokens.deploy, tokens.read]) {
        assert.deepEqual(await listed(token.authorization), [organization.id])
        assertError(await call(a, token.authorization, 'GET', `/organization/${created}`), 404, 'not_found')
      }
      // Nor does anyone else.
      const stranger = await factories(a.db).organizationWithTokens()
      assertError(await call(a, stranger.tokens.admin.authorization, 'GET', `/organization/${created}`), 404, 'not_found')
    })

    it('are managed down the tree: an organization created by a token of a managed one is managed too', async () => {
      const { person, organizationOf } = memberCalls(
        () => a,
        () => idp,
      )
      const alice = await person('alice')
      const home = await organizationOf(alice)
      const first = await createOrganization((await mint(alice.authorization, home)).authorization)
      const second = await createOrganization((await mint(alice.authorization, first)).authorization)
      assert.deepEqual(await listed(alice.authorization), [home, first, second])
      assert.equal((await call(a, alice.authorization, 'GET', `/organization/${second}/member`)).statusCode, 200)
    })

    it('keep their managing organization from being deleted before them (409), and nothing is deleted', async () => {
      const { organization, tokens } = await factories(a.db).organizationWithTokens()
      const created = await createOrganization(tokens.admin.authorization)
      const refused = assertError(await call(a, tokens.admin.authorization, 'DELETE', `/organization/${organization.id}`), 409, 'conflict')
      assert.match(refused.message, /manages 1 organization/)
      assert.equal(await status(a, tokens.read.authorization), 200)
      assert.equal((await call(a, tokens.admin.authorization, 'DELETE', `/organization/${created}`)).statusCode, 204)
      assert.equal((await call(a, tokens.admin.authorization, 'DELETE', `/organization/${organization.id}`)).statusCode, 204)
    })
  })
})

describe('minting limits', () => {
  let t: TestApp
  before(async () => {
    t = await createTestApp({ BERTH_TOKEN_MINTS_PER_MINUTE: '3' })
  })
  after(async () => t?.close())

  const mint = (authorization: string, organizationId: string) =>
    t.app.inject({
      method: 'POST',
      url: `/organization/${organizationId}/apiToken`,
      headers: { authorization },
      payload: { name: uniqueName('bounded'), role: 'READ' },
    })
  const createOrganization = (authorization: string) =>
    t.app.inject({ method: 'POST', url: '/organization', headers: { authorization }, payload: { name: uniqueName('bounded org'), plan: 'FREE' } })

  it('refuses minting past the limit of the tree of organizations with 429, Retry-After and nothing minted', async () => {
    const { organization, tokens } = await factories(t.db).organizationWithTokens()
    // A created organization counts, and so do tokens minted in it: it is one tree.
    const created = await createOrganization(tokens.admin.authorization)
    assert.equal(created.statusCode, 201, created.body)
    assert.equal((await mint(tokens.admin.authorization, created.json().id)).statusCode, 201)
    assert.equal((await mint(tokens.write.authorization, organization.id)).statusCode, 201)
    const count = async () =>
      (await t.db.selectFrom('apiTokens').select('id').where('organizationId', 'in', [organization.id, created.json().id]).execute()).length
    const before = await count()

    for (const refused of [
      await mint(tokens.read.authorization, organization.id),
      await mint(tokens.admin.authorization, created.json().id),
      await createOrganization(tokens.admin.authorization),
    ]) {
      const body = assertError(refused, 429, 'rate_limited')
      assert.match(body.message, /minted/)
      const retryAfter = Number(refused.headers['retry-after'])
      assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60, `Retry-After ${refused.headers['retry-after']}`)
    }
    assert.equal(await count(), before)
  })

  it('counts per tree: another organization keeps its budget, and callers refused access spend none', async () => {
    const mine = await factories(t.db).organizationWithTokens()
    const theirs = await factories(t.db).organizationWithTokens()
    for (let i = 0; i < 5; i++) assertError(await mint(theirs.tokens.admin.authorization, mine.organization.id), 404, 'not_found')
    for (let i = 0; i < 5; i++) assertError(await mint(mine.tokens.read.authorization, randomUUID()), 404, 'not_found')
    for (let i = 0; i < 3; i++) assert.equal((await mint(mine.tokens.admin.authorization, mine.organization.id)).statusCode, 201)
    assert.equal((await mint(theirs.tokens.admin.authorization, theirs.organization.id)).statusCode, 201)
  })
})
