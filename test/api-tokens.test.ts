import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { sql } from 'kysely'
import { digestApiToken, isWellFormedApiToken } from '#src/platform/auth/api-token-codec.ts'
import { ROLE_IDS, ROLES, type Role } from '#src/platform/auth/roles.ts'
import { createTestApp, type TestApp } from './helpers/app.ts'
import { assertError, assertIsoTimestamp, assertValidationError, UUID } from './helpers/assertions.ts'
import { factories, uniqueName } from './helpers/factories.ts'

interface TokenBody {
  id: string
  name: string
  description: string
  role: Role
  role_name: string
  role_id: string
  token_start: string
  created_at: string
  updated_at: string
  expired_at: string | null
  last_used_at: string | null
  created_by?: { kind: string; id: string; name: string } | null
  token?: string
}

const LISTED_FIELDS = [
  'created_at',
  'description',
  'expired_at',
  'id',
  'last_used_at',
  'name',
  'role',
  'role_id',
  'role_name',
  'token_start',
  'updated_at',
]

describe('organization API tokens', () => {
  let t: TestApp
  before(async () => {
    t = await createTestApp()
  })
  after(async () => t.close())

  const tokensUrl = (organizationId: string) => `/organization/${organizationId}/apiToken`

  const create = (organizationId: string, authorization: string, payload: Record<string, unknown>) =>
    t.app.inject({ method: 'POST', url: tokensUrl(organizationId), headers: { authorization }, payload })

  const list = async (organizationId: string, authorization: string, query = ''): Promise<TokenBody[]> => {
    const res = await t.app.inject({ method: 'GET', url: `${tokensUrl(organizationId)}${query}`, headers: { authorization } })
    assert.equal(res.statusCode, 200, res.body)
    return res.json().results
  }

  const remove = (organizationId: string, apiTokenId: string, authorization: string) =>
    t.app.inject({ method: 'DELETE', url: `${tokensUrl(organizationId)}/${apiTokenId}`, headers: { authorization } })

  const listOrganizations = (authorization: string) => t.app.inject({ method: 'GET', url: '/organization', headers: { authorization } })

  describe('POST /organization/{organizationId}/apiToken', () => {
    it('creates a token, returning it once with its id, name, description, role and dates', async () => {
      const { organization, tokens } = await factories(t.db).organizationWithTokens()
      const name = uniqueName('ci')
      const res = await create(organization.id, tokens.admin.authorization, { name, description: 'for CI', role: 'DEPLOY' })
      assert.equal(res.statusCode, 201)
      const body = res.json() as TokenBody
      assert.deepEqual(Object.keys(body).sort(), [...LISTED_FIELDS, 'token'].sort())
      assert.equal(typeof body.token, 'string')
      assert.equal(isWellFormedApiToken(body.token!), true)
      assert.match(body.id, UUID)
      assert.equal(body.name, name)
      assert.equal(body.description, 'for CI')
      assert.equal(body.role, 'DEPLOY')
      assert.equal(body.role_name, 'DEPLOY')
      assert.equal(body.role_id, ROLE_IDS.DEPLOY)
      assert.equal(body.token_start, body.token!.slice(0, 10))
      assertIsoTimestamp(body.created_at, 'created_at')
      assertIsoTimestamp(body.updated_at, 'updated_at')
      assert.equal(body.expired_at, null)
      assert.equal(body.last_used_at, null)
    })

    it('returns a token that authenticates at once, in the organization it was made for', async () => {
      const { organization, tokens } = await factories(t.db).organizationWithTokens()
      const res = await create(organization.id, tokens.admin.authorization, { name: uniqueName('fresh'), role: 'READ' })
      assert.equal(res.statusCode, 201)
      const listed = await listOrganizations(`Token ${res.json().token}`)
      assert.equal(listed.statusCode, 200)
      assert.deepEqual(
        listed.json().results.map((o: { id: string }) => o.id),
        [organization.id],
      )
    })

    it('describes a token created without a description as an empty string', async () => {
      const { organization, tokens } = await factories(t.db).organizationWithTokens()
      const res = await create(organization.id, tokens.admin.authorization, { name: uniqueName('plain') })
      assert.equal(res.statusCode, 201)
      assert.equal(res.json().description, '')
    })

    it('gives the ADMIN role when no role is asked for', async () => {
      const { organization, tokens } = await factories(t.db).organizationWithTokens()
      const res = await create(organization.id, tokens.admin.authorization, { name: uniqueName('default') })
      assert.equal(res.statusCode, 201)
      assert.equal(res.json().role, 'ADMIN')
      assert.equal(res.json().role_id, ROLE_IDS.ADMIN)
      // And the new token really acts as an ADMIN: it may create organizations.
      const org = await t.app.inject({
        method: 'POST',
        url: '/organization',
        headers: { authorization: `Token ${res.json().token}` },
        payload: { name: uniqueName('by default admin'), plan: 'FREE' },
      })
      assert.equal(org.statusCode, 201)
    })

    it('accepts the deprecated scope ADMIN', async () => {
      const { organization, tokens } = await factories(t.db).organizationWithTokens()
      const res = await create(organization.id, tokens.admin.authorization, { name: uniqueName('scoped'), scope: 'ADMIN' })
      assert.equal(res.statusCode, 201)
      assert.equal(res.json().role, 'ADMIN')
    })

    it('refuses a scope other than ADMIN', async () => {
      const { organization, tokens } = await factories(t.db).organizationWithTokens()
      const errors = assertValidationError(await create(organization.id, tokens.admin.authorization, { name: uniqueName('scoped'), scope: 'READ' }))
      assert.equal(errors[0]!.path, '/scope')
    })

    for (const role of ROLES) {
      it(`picks the ${role} role from its built-in role_id`, async () => {
        const { organization, tokens } = await factories(t.db).organizationWithTokens()
        const res = await create(organization.id, tokens.admin.authorization, { name: uniqueName('by id'), role_id: ROLE_IDS[role] })
        assert.equal(res.statusCode, 201)
        assert.equal(res.json().role, role)
        assert.equal(res.json().role_id, ROLE_IDS[role])
      })
    }

    it('reads a role_id written in upper case', async () => {
      const { organization, tokens } = await factories(t.db).organizationWithTokens()
      const res = await create(organization.id, tokens.admin.authorization, { name: uniqueName('upper'), role_id: ROLE_IDS.READ.toUpperCase() })
      assert.equal(res.statusCode, 201)
      assert.equal(res.json().role, 'READ')
    })

    it('answers 400 naming /role_id for a role_id that is not a built-in role', async () => {
      const { organization, tokens } = await factories(t.db).organizationWithTokens()
      const errors = assertValidationError(
        await create(organization.id, tokens.admin.authorization, { name: uniqueName('x'), role_id: randomUUID() }),
      )
      assert.equal(errors[0]!.path, '/role_id')
      assert.equal(errors[0]!.location, 'body')
    })

    it('answers 400 for a role_id that is not a uuid', async () => {
      const { organization, tokens } = await factories(t.db).organizationWithTokens()
      const errors = assertValidationError(await create(organization.id, tokens.admin.authorization, { name: uniqueName('x'), role_id: 'admin' }))
      assert.equal(errors[0]!.path, '/role_id')
    })

    it('answers 400 when role and role_id name different roles', async () => {
      const { organization, tokens } = await factories(t.db).organizationWithTokens()
      const name = uniqueName('disagree')
      assertValidationError(await create(organization.id, tokens.admin.authorization, { name, role: 'READ', role_id: ROLE_IDS.WRITE }))
      assertValidationError(await create(organization.id, tokens.admin.authorization, { name, role: 'READ', scope: 'ADMIN' }))
      // Nothing was created.
      assert.equal(
        (await list(organization.id, tokens.admin.authorization)).some((token) => token.name === name),
        false,
      )
    })

    it('accepts role and role_id that agree', async () => {
      const { organization, tokens } = await factories(t.db).organizationWithTokens()
      const res = await create(organization.id, tokens.admin.authorization, { name: uniqueName('agree'), role: 'WRITE', role_id: ROLE_IDS.WRITE })
      assert.equal(res.statusCode, 201)
      assert.equal(res.json().role, 'WRITE')
    })

    it('accepts role_id: null, as the official client sends it', async () => {
      const { organization, tokens } = await factories(t.db).organizationWithTokens()
      const bare = await create(organization.id, tokens.admin.authorization, {
        name: uniqueName('null id'),
        role_id: null,
        scope: null,
        description: null,
      })
      assert.equal(bare.statusCode, 201, bare.body)
      assert.equal(bare.json().role, 'ADMIN')
      const withRole = await create(organization.id, tokens.admin.authorization, { name: uniqueName('null id'), role: 'READ', role_id: null })
      assert.equal(withRole.statusCode, 201)
      assert.equal(withRole.json().role, 'READ')
    })

    it('answers 400 naming /expired_at for an expiry in the past', async () => {
      const { organization, tokens } = await factories(t.db).organizationWithTokens()
      const errors = assertValidationError(
        await create(organization.id, tokens.admin.authorization, {
          name: uniqueName('stale'),
          expired_at: new Date(Date.now() - 60_000).toISOString(),
        }),
      )
      assert.equal(errors[0]!.path, '/expired_at')
    })

    it('answers 400 for an expiry that is not a date-time', async () => {
      const { organization, tokens } = await factories(t.db).organizationWithTokens()
      const errors = assertValidationError(
        await create(organization.id, tokens.admin.authorization, { name: uniqueName('x'), expired_at: 'tomorrow' }),
      )
      assert.equal(errors[0]!.path, '/expired_at')
    })

    it('returns an expiry in the future, and the token works until then', async () => {
      const { organization, tokens } = await factories(t.db).organizationWithTokens()
      const expiry = new Date(Date.now() + 7 * 86_400_000)
      expiry.setUTCMilliseconds(0)
      const res = await create(organization.id, tokens.admin.authorization, { name: uniqueName('expiring'), expired_at: expiry.toISOString() })
      assert.equal(res.statusCode, 201)
      assert.equal(res.json().expired_at, expiry.toISOString())
      assert.equal((await listOrganizations(`Token ${res.json().token}`)).statusCode, 200)
      const listed = (await list(organization.id, tokens.admin.authorization)).find((token) => token.id === res.json().id)
      assert.equal(listed?.expired_at, expiry.toISOString())
    })

    it("gives a token made by an expiring token the caller's expiry when none is requested", async () => {
      const f = factories(t.db)
      const organization = await f.organization()
      const callerExpiry = new Date(Date.now() + 3_600_000)
      callerExpiry.setUTCMilliseconds(0)
      const caller = await f.apiToken(organization.id, 'ADMIN', { expiredAt: callerExpiry })
      const res = await create(organization.id, caller.authorization, { name: uniqueName('child') })
      assert.equal(res.statusCode, 201, res.body)
      assert.equal(res.json().expired_at, callerExpiry.toISOString())
    })

    it('answers 400 naming /expired_at when an expiring token asks for a later expiry', async () => {
      const f = factories(t.db)
      const organization = await f.organization()
      const caller = await f.apiToken(organization.id, 'ADMIN', { expiredAt: new Date(Date.now() + 3_600_000) })
      const name = uniqueName('outliving')
      const errors = assertValidationError(
        await create(organization.id, caller.authorization, { name, expired_at: new Date(Date.now() + 7_200_000).toISOString() }),
      )
      assert.deepEqual(
        errors.map((e) => e.path),
        ['/expired_at'],
      )
      const earlier = new Date(Date.now() + 1_800_000)
      earlier.setUTCMilliseconds(0)
      const ok = await create(organization.id, caller.authorization, { name, expired_at: earlier.toISOString() })
      assert.equal(ok.statusCode, 201, ok.body)
      assert.equal(ok.json().expired_at, earlier.toISOString())
    })

    it('answers 409 for a name already used in the organization, in any letter case', async () => {
      const { organization, tokens } = await factories(t.db).organizationWithTokens()
      const name = uniqueName('Deploy Bot')
      assert.equal((await create(organization.id, tokens.admin.authorization, { name })).statusCode, 201)
      for (const again of [name, name.toUpperCase(), ` ${name.toLowerCase()} `]) {
        assertError(await create(organization.id, tokens.admin.authorization, { name: again }), 409, 'conflict')
      }
    })

    it('allows the same name in two organizations', async () => {
      const a = await factories(t.db).organizationWithTokens()
      const b = await factories(t.db).organizationWithTokens()
      const name = uniqueName('shared')
      assert.equal((await create(a.organization.id, a.tokens.admin.authorization, { name })).statusCode, 201)
      assert.equal((await create(b.organization.id, b.tokens.admin.authorization, { name })).statusCode, 201)
    })

    it('answers 400 for a missing or blank name', async () => {
      const { organization, tokens } = await factories(t.db).organizationWithTokens()
      assert.deepEqual(assertValidationError(await create(organization.id, tokens.admin.authorization, {})), [
        { path: '/name', message: 'is required', location: 'body' },
      ])
      assert.equal(assertValidationError(await create(organization.id, tokens.admin.authorization, { name: ' ' }))[0]!.path, '/name')
    })

    for (const role of ['WRITE', 'DEPLOY', 'READ'] as const) {
      it(`lets a WRITE token create a ${role} token`, async () => {
        const { organization, tokens } = await factories(t.db).organizationWithTokens()
        const res = await create(organization.id, tokens.write.authorization, { name: uniqueName('by write'), role })
        assert.equal(res.statusCode, 201)
        assert.equal(res.json().role, role)
      })
    }

    it('refuses a WRITE token creating an ADMIN token, whether asked by role or by default', async () => {
      const { organization, tokens } = await factories(t.db).organizationWithTokens()
      assertError(await create(organization.id, tokens.write.authorization, { name: uniqueName('escalate'), role: 'ADMIN' }), 403, 'forbidden')
      assertError(
        await create(organization.id, tokens.write.authorization, { name: uniqueName('escalate'), role_id: ROLE_IDS.ADMIN }),
        403,
        'forbidden',
      )
      assertError(await create(organization.id, tokens.write.authorization, { name: uniqueName('escalate') }), 403, 'forbidden')
    })

    it('lets a READ token create READ tokens only', async () => {
      const { organization, tokens } = await factories(t.db).organizationWithTokens()
      const ok = await create(organization.id, tokens.read.authorization, { name: uniqueName('by read'), role: 'READ' })
      assert.equal(ok.statusCode, 201)
      for (const role of ['DEPLOY', 'WRITE', 'ADMIN'] as const) {
        assertError(await create(organization.id, tokens.read.authorization, { name: uniqueName('escalate'), role }), 403, 'forbidden')
      }
    })

    it('lets a DEPLOY token create DEPLOY and READ tokens but not WRITE', async () => {
      const { organization, tokens } = await factories(t.db).organizationWithTokens()
      assert.equal((await create(organization.id, tokens.deploy.authorization, { name: uniqueName('d'), role: 'DEPLOY' })).statusCode, 201)
      assert.equal((await create(organization.id, tokens.deploy.authorization, { name: uniqueName('d'), role: 'READ' })).statusCode, 201)
      assertError(await create(organization.id, tokens.deploy.authorization, { name: uniqueName('d'), role: 'WRITE' }), 403, 'forbidden')
    })

    it("answers 404 for another organization's path and creates nothing there", async () => {
      const mine = await factories(t.db).organizationWithTokens()
      const theirs = await factories(t.db).organizationWithTokens()
      const name = uniqueName('intruder')
      assertError(await create(theirs.organization.id, mine.tokens.admin.authorization, { name, role: 'READ' }), 404, 'not_found')
      assert.equal(
        (await list(theirs.organization.id, theirs.tokens.admin.authorization)).some((token) => token.name === name),
        false,
      )
    })

    it('lets the token that created an organization mint tokens in it', async () => {
      const { tokens } = await factories(t.db).organizationWithTokens()
      const created = await t.app.inject({
        method: 'POST',
        url: '/organization',
        headers: { authorization: tokens.admin.authorization },
        payload: { name: uniqueName('child'), plan: 'FREE' },
      })
      assert.equal(created.statusCode, 201)
      const childId = created.json().id as string
      const res = await create(childId, tokens.admin.authorization, { name: uniqueName('child token'), role: 'READ' })
      assert.equal(res.statusCode, 201)
      const listed = await listOrganizations(`Token ${res.json().token}`)
      assert.deepEqual(
        listed.json().results.map((o: { id: string }) => o.id),
        [childId],
      )
    })
  })

  describe('GET /organization/{organizationId}/apiToken', () => {
    it('never returns the token itself, and includes newly created tokens', async () => {
      const { organization, tokens } = await factories(t.db).organizationWithTokens()
      const created = await create(organization.id, tokens.admin.authorization, { name: uniqueName('listed') })
      assert.equal(created.statusCode, 201)
      const secret = created.json().token as string
      const res = await t.app.inject({ method: 'GET', url: tokensUrl(organization.id), headers: { authorization: tokens.admin.authorization } })
      assert.equal(res.statusCode, 200)
      assert.equal(res.body.includes(secret), false)
      for (const token of Object.values(tokens)) assert.equal(res.body.includes(token.token), false)
      const results = res.json().results as TokenBody[]
      for (const token of results) {
        assert.deepEqual(Object.keys(token).sort(), [...LISTED_FIELDS, 'created_by'].sort())
        assert.equal('token' in token, false)
      }
      const listed = results.find((token) => token.id === created.json().id)
      assert.ok(listed, 'the new token is not listed')
      const { token: _secret, ...withoutSecret } = created.json() as TokenBody
      assert.deepEqual(listed, { ...withoutSecret, created_by: { kind: 'api_token', id: tokens.admin.id, name: tokens.admin.name } })
      // Tokens of `berth token create` (here: the factory's) have no creator.
      assert.equal(results.find((token) => token.id === tokens.read.id)?.created_by, null)
    })

    it('shows an ADMIN every token of the organization', async () => {
      const { organization, tokens } = await factories(t.db).organizationWithTokens()
      const byWrite = await create(organization.id, tokens.write.authorization, { name: uniqueName('w'), role: 'READ' })
      assert.equal(byWrite.statusCode, 201)
      const listed = await list(organization.id, tokens.admin.authorization)
      assert.deepEqual(listed.map((token) => token.id).sort(), [...Object.values(tokens).map((token) => token.id), byWrite.json().id].sort())
    })

    it('shows a WRITE token only the tokens it created', async () => {
      const { organization, tokens } = await factories(t.db).organizationWithTokens()
      const mine = await Promise.all(
        (['WRITE', 'READ'] as const).map((role) => create(organization.id, tokens.write.authorization, { name: uniqueName('mine'), role })),
      )
      const byAdmin = await create(organization.id, tokens.admin.authorization, { name: uniqueName('not mine'), role: 'READ' })
      assert.equal(byAdmin.statusCode, 201)
      const listed = await list(organization.id, tokens.write.authorization)
      assert.deepEqual(listed.map((token) => token.id).sort(), mine.map((res) => res.json().id).sort())
    })

    it('shows a READ token that created nothing an empty list', async () => {
      const { organization, tokens } = await factories(t.db).organizationWithTokens()
      assert.deepEqual(await list(organization.id, tokens.read.authorization), [])
    })

    it('filters by name, case-insensitively and by substring', async () => {
      const { organization, tokens } = await factories(t.db).organizationWithTokens()
      const tag = randomUUID().slice(0, 8)
      const deployBot = await create(organization.id, tokens.admin.authorization, { name: `deploy-bot ${tag}` })
      await create(organization.id, tokens.admin.authorization, { name: `ci ${tag}` })
      const listed = await list(organization.id, tokens.admin.authorization, `?name=${encodeURIComponent(`DEPLOY-BOT ${tag}`)}`)
      assert.deepEqual(
        listed.map((token) => token.id),
        [deployBot.json().id],
      )
      assert.equal((await list(organization.id, tokens.admin.authorization, `?name=${tag}`)).length, 2)
    })

    it('treats % and _ in the name filter literally', async () => {
      const { organization, tokens } = await factories(t.db).organizationWithTokens()
      const percent = await create(organization.id, tokens.admin.authorization, { name: uniqueName('100% bot') })
      assert.deepEqual(
        (await list(organization.id, tokens.admin.authorization, '?name=%25')).map((token) => token.id),
        [percent.json().id],
      )
      assert.deepEqual(await list(organization.id, tokens.admin.authorization, '?name=_'), [])
    })

    it('filters by the name of the creating token', async () => {
      const { organization, tokens } = await factories(t.db).organizationWithTokens()
      const byWrite = await create(organization.id, tokens.write.authorization, { name: uniqueName('child'), role: 'READ' })
      await create(organization.id, tokens.admin.authorization, { name: uniqueName('child'), role: 'READ' })
      const listed = await list(organization.id, tokens.admin.authorization, `?creatorName=${encodeURIComponent(tokens.write.name)}`)
      assert.deepEqual(
        listed.map((token) => token.id),
        [byWrite.json().id],
      )
    })

    it("answers 404 for another organization's path", async () => {
      const mine = await factories(t.db).organizationWithTokens()
      const theirs = await factories(t.db).organization()
      const res = await t.app.inject({ method: 'GET', url: tokensUrl(theirs.id), headers: { authorization: mine.tokens.admin.authorization } })
      assertError(res, 404, 'not_found')
    })

    it('reports last_used_at once a token has been used', async () => {
      const { organization, tokens } = await factories(t.db).organizationWithTokens()
      const created = await create(organization.id, tokens.admin.authorization, { name: uniqueName('used'), role: 'READ' })
      const id = created.json().id as string
      const beforeUse = (await list(organization.id, tokens.admin.authorization)).find((token) => token.id === id)
      assert.equal(beforeUse?.last_used_at, null)

      assert.equal((await listOrganizations(`Token ${created.json().token}`)).statusCode, 200)

      const used = (await list(organization.id, tokens.admin.authorization)).find((token) => token.id === id)
      assert.ok(used?.last_used_at, 'last_used_at is still null after use')
      assertIsoTimestamp(used.last_used_at, 'last_used_at')
      assert.ok(new Date(used.last_used_at) >= new Date(created.json().created_at))
      // Tokens that were not used keep a null last_used_at.
      const unused = (await list(organization.id, tokens.admin.authorization)).find((token) => token.id === tokens.deploy.id)
      assert.equal(unused?.last_used_at, null)
    })
  })

  describe('DELETE /organization/{organizationId}/apiToken/{apiTokenId}', () => {
    it('lets an ADMIN delete a token, which answers 401 on its next request and leaves the list', async () => {
      const { organization, tokens } = await factories(t.db).organizationWithTokens()
      assert.equal((await listOrganizations(tokens.write.authorization)).statusCode, 200)
      const res = await remove(organization.id, tokens.write.id, tokens.admin.authorization)
      assert.equal(res.statusCode, 204)
      assert.equal(res.body, '')
      assertError(await listOrganizations(tokens.write.authorization), 401, 'unauthenticated')
      assert.equal(
        (await list(organization.id, tokens.admin.authorization)).some((token) => token.id === tokens.write.id),
        false,
      )
      assertError(await remove(organization.id, tokens.write.id, tokens.admin.authorization), 404, 'not_found')
    })

    it('lets a token delete itself', async () => {
      const { organization, tokens } = await factories(t.db).organizationWithTokens()
      assert.equal((await remove(organization.id, tokens.admin.id, tokens.admin.authorization)).statusCode, 204)
      assertError(await listOrganizations(tokens.admin.authorization), 401, 'unauthenticated')
    })

    it('refuses a WRITE token deleting a token it did not create, with 403', async () => {
      const { organization, tokens } = await factories(t.db).organizationWithTokens()
      assertError(await remove(organization.id, tokens.read.id, tokens.write.authorization), 403, 'forbidden')
      assert.equal((await listOrganizations(tokens.read.authorization)).statusCode, 200)
    })

    it('lets a WRITE token delete a token it created', async () => {
      const { organization, tokens } = await factories(t.db).organizationWithTokens()
      const created = await create(organization.id, tokens.write.authorization, { name: uniqueName('temp'), role: 'READ' })
      assert.equal((await remove(organization.id, created.json().id, tokens.write.authorization)).statusCode, 204)
      assertError(await listOrganizations(`Token ${created.json().token}`), 401, 'unauthenticated')
    })

    it("answers 404 for a token of another organization addressed through the caller's own organization", async () => {
      const mine = await factories(t.db).organizationWithTokens()
      const theirs = await factories(t.db).organizationWithTokens()
      assertError(await remove(mine.organization.id, theirs.tokens.read.id, mine.tokens.admin.authorization), 404, 'not_found')
      assert.equal((await listOrganizations(theirs.tokens.read.authorization)).statusCode, 200)
    })

    it("answers 404 for another organization's path", async () => {
      const mine = await factories(t.db).organizationWithTokens()
      const theirs = await factories(t.db).organizationWithTokens()
      assertError(await remove(theirs.organization.id, theirs.tokens.read.id, mine.tokens.admin.authorization), 404, 'not_found')
      assert.equal((await listOrganizations(theirs.tokens.read.authorization)).statusCode, 200)
    })

    it('answers 404 for a token id that does not exist and 400 for one that is not a uuid', async () => {
      const { organization, tokens } = await factories(t.db).organizationWithTokens()
      assertError(await remove(organization.id, randomUUID(), tokens.admin.authorization), 404, 'not_found')
      const errors = assertValidationError(await remove(organization.id, 'nope', tokens.admin.authorization))
      assert.deepEqual(
        errors.map((e) => [e.path, e.location]),
        [['/apiTokenId', 'path']],
      )
    })
  })

  describe('storage', () => {
    it('stores only a 32-byte SHA-256 digest, never the token text', async () => {
      const { organization, tokens } = await factories(t.db).organizationWithTokens()
      const res = await create(organization.id, tokens.admin.authorization, { name: uniqueName('stored'), description: 'secret holder' })
      assert.equal(res.statusCode, 201)
      const { id, token } = res.json() as { id: string; token: string }
      const secretPart = token.slice('berth_'.length)

      const { rows } = await sql<{ digest: Buffer; length: number; row: string }>`
        select digest, octet_length(digest) as length, row_to_json(t)::text as row from api_tokens t where id = ${id}`.execute(t.db)
      assert.equal(rows.length, 1)
      const row = rows[0]!
      assert.equal(row.length, 32)
      assert.ok(Buffer.isBuffer(row.digest))
      assert.deepEqual(row.digest, digestApiToken(token))
      assert.equal(row.row.includes(token), false)
      assert.equal(row.row.includes(secretPart), false)
      assert.equal(row.row.includes(secretPart.slice(0, 20)), false)
      assert.equal(row.row.includes(Buffer.from(token).toString('hex')), false)
    })
  })
})
