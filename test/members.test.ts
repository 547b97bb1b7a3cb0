import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { Configuration, MembersApi } from 'qovery-typescript-axios'
import { ROLE_IDS } from '#src/platform/auth/roles.ts'
import { createTestApp, type TestApp } from './helpers/app.ts'
import { assertError } from './helpers/assertions.ts'
import { factories } from './helpers/factories.ts'
import { memberCalls } from './helpers/members.ts'
import { startOidcProvider, type TestIdentityProvider } from './helpers/oidc-provider.ts'

describe('organization members', () => {
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

  const { request, person, organizationOf, members, put, remove } = memberCalls(
    () => t,
    () => idp,
  )

  it('makes the user who creates an organization its ADMIN member', async () => {
    const alice = await person('alice')
    const organizationId = await organizationOf(alice)
    const [member, ...others] = await members(alice, organizationId)
    assert.deepEqual(others, [])
    assert.equal(member!.id, alice.id)
    assert.equal(member!.role, 'ADMIN')
    assert.equal(member!.role_id, ROLE_IDS.ADMIN)
    assert.equal(member!.name, alice.name)
    assert.match(member!.email, /@example\.com$/)
  })

  it('lets an ADMIN add a user, change its role and remove it', async () => {
    const alice = await person('alice')
    const bob = await person('bob')
    const organizationId = await organizationOf(alice)

    const added = await put(alice, organizationId, bob.id, { role: 'READ' })
    assert.equal(added.statusCode, 200, added.body)
    assert.equal(added.json().role, 'READ')
    const listed = await request(bob.authorization, 'GET', '/organization')
    assert.deepEqual(
      listed.json().results.map((o: { id: string }) => o.id),
      [organizationId],
    )
    assertError(await request(bob.authorization, 'GET', `/organization/${organizationId}/member`), 403, 'forbidden')

    const changed = await put(alice, organizationId, bob.id, { role_id: ROLE_IDS.WRITE })
    assert.equal(changed.json().role, 'WRITE')
    assert.deepEqual(
      (await members(alice, organizationId)).map((m) => [m.id, m.role]).sort(),
      [
        [alice.id, 'ADMIN'],
        [bob.id, 'WRITE'],
      ].sort(),
    )

    assert.equal((await remove(alice, organizationId, bob.id)).statusCode, 204)
    assertError(await request(bob.authorization, 'GET', `/organization/${organizationId}`), 404, 'not_found')
    assert.deepEqual((await request(bob.authorization, 'GET', '/organization')).json().results, [])
    assertError(await remove(alice, organizationId, bob.id), 404, 'not_found')
  })

  it('refuses a role that is missing, unknown or contradicted by role_id', async () => {
    const alice = await person('alice')
    const bob = await person('bob')
    const organizationId = await organizationOf(alice)
    assertError(await put(alice, organizationId, bob.id, {}), 400, 'validation_failed')
    assertError(await put(alice, organizationId, bob.id, { role: 'OWNER' }), 400, 'validation_failed')
    assertError(await put(alice, organizationId, bob.id, { role_id: randomUUID() }), 400, 'validation_failed')
    assertError(await put(alice, organizationId, bob.id, { role: 'ADMIN', role_id: ROLE_IDS.READ }), 400, 'validation_failed')
  })

  it('answers 404 for a user Berth has never seen', async () => {
    const alice = await person('alice')
    const organizationId = await organizationOf(alice)
    assertError(await put(alice, organizationId, randomUUID(), { role: 'READ' }), 404, 'not_found')
  })

  it('keeps the last ADMIN: it can be neither demoted nor removed until another ADMIN exists', async () => {
    const alice = await person('alice')
    const bob = await person('bob')
    const organizationId = await organizationOf(alice)
    assert.match(assertError(await put(alice, organizationId, alice.id, { role: 'WRITE' }), 409, 'conflict').message, /at least one ADMIN/)
    assertError(await remove(alice, organizationId, alice.id), 409, 'conflict')

    assert.equal((await put(alice, organizationId, bob.id, { role: 'ADMIN' })).statusCode, 200)
    assert.equal((await put(bob, organizationId, alice.id, { role: 'READ' })).statusCode, 200)
    assertError(await remove(bob, organizationId, bob.id), 409, 'conflict')
    assert.deepEqual(
      (await members(bob, organizationId)).filter((m) => m.role === 'ADMIN').map((m) => m.id),
      [bob.id],
    )
  })

  it("bounds a member's actions by its role, API tokens included", async () => {
    const alice = await person('alice')
    const bob = await person('bob')
    const organizationId = await organizationOf(alice)
    await put(alice, organizationId, bob.id, { role: 'READ' })
    const alices = await request(alice.authorization, 'POST', `/organization/${organizationId}/apiToken`, { name: 'alice', role: 'READ' })
    assert.equal(alices.statusCode, 201)

    assertError(await request(bob.authorization, 'POST', `/organization/${organizationId}/project`, { name: 'p' }), 403, 'forbidden')
    assertError(
      await request(bob.authorization, 'POST', `/organization/${organizationId}/apiToken`, { name: 'too strong', role: 'WRITE' }),
      403,
      'forbidden',
    )
    const created = await request(bob.authorization, 'POST', `/organization/${organizationId}/apiToken`, { name: 'reader', role: 'READ' })
    assert.equal(created.statusCode, 201, created.body)
    // Bob sees the tokens he created; Alice, an ADMIN, sees them all.
    const own = await request(bob.authorization, 'GET', `/organization/${organizationId}/apiToken`)
    assert.deepEqual(
      own.json().results.map((r: { name: string }) => r.name),
      ['reader'],
    )
    const all = await request(alice.authorization, 'GET', `/organization/${organizationId}/apiToken`)
    assert.deepEqual(
      all
        .json()
        .results.map((r: { name: string }) => r.name)
        .sort(),
      ['alice', 'reader'],
    )
    assertError(await request(bob.authorization, 'DELETE', `/organization/${organizationId}/apiToken/${alices.json().id}`), 403, 'forbidden')
    const deleted = await request(bob.authorization, 'DELETE', `/organization/${organizationId}/apiToken/${created.json().id}`)
    assert.equal(deleted.statusCode, 204)
  })

  it('lets an ADMIN API token manage members, but not a READ token', async () => {
    const { organization, tokens } = await factories(t.db).organizationWithTokens()
    const carol = await person('carol')
    assertError(await put(tokens.read, organization.id, carol.id, { role: 'READ' }), 403, 'forbidden')
    assertError(await request(tokens.write.authorization, 'GET', `/organization/${organization.id}/member`), 403, 'forbidden')
    const added = await put(tokens.admin, organization.id, carol.id, { role: 'ADMIN' })
    assert.equal(added.statusCode, 200, added.body)
    assert.equal((await request(carol.authorization, 'GET', `/organization/${organization.id}`)).statusCode, 200)
    assert.deepEqual(
      (await members(carol, organization.id)).map((m) => m.id),
      [carol.id],
    )
  })

  it('takes the user in the body of PUT and DELETE /member, as the official client sends it, under the same rules', async () => {
    const alice = await person('alice')
    const bob = await person('bob')
    const organizationId = await organizationOf(alice)
    const url = `/organization/${organizationId}/member`
    const added = await request(alice.authorization, 'PUT', url, { user_id: bob.id, role_id: ROLE_IDS.READ })
    assert.equal(added.statusCode, 200, added.body)
    assert.equal(added.json().role, 'READ')
    assertError(await request(bob.authorization, 'PUT', url, { user_id: bob.id, role_id: ROLE_IDS.ADMIN }), 403, 'forbidden')
    assertError(await request(alice.authorization, 'PUT', url, { role_id: ROLE_IDS.READ }), 400, 'validation_failed')
    assertError(await request(alice.authorization, 'PUT', url, { user_id: bob.id }), 400, 'validation_failed')
    assertError(await request(alice.authorization, 'DELETE', url, { user_id: alice.id }), 409, 'conflict')
    assert.equal((await request(alice.authorization, 'DELETE', url, { user_id: bob.id })).statusCode, 204)
    assertError(await request(alice.authorization, 'DELETE', url, { user_id: bob.id }), 404, 'not_found')
  })

  it('serves the official client changing a member role and removing a member', async () => {
    const listening = await createTestApp(idp.env)
    try {
      const basePath = await listening.listen()
      const alice = await person('alice')
      const bob = await person('bob')
      const organizationId = await organizationOf(alice)
      assert.equal((await put(alice, organizationId, bob.id, { role: 'READ' })).statusCode, 200)

      const api = new MembersApi(new Configuration({ basePath, accessToken: alice.authorization.slice('Bearer '.length) }))
      const edited = await api.editOrganizationMemberRole(organizationId, { user_id: bob.id, role_id: ROLE_IDS.WRITE })
      assert.equal(edited.status, 200)
      const listed = (await api.getOrganizationMembers(organizationId)).data.results ?? []
      assert.equal(listed.find((m) => m.id === bob.id)?.role_name, 'WRITE')

      assert.equal((await api.deleteMember(organizationId, { user_id: bob.id })).status, 204)
      assert.deepEqual(
        ((await api.getOrganizationMembers(organizationId)).data.results ?? []).map((m) => m.id),
        [alice.id],
      )
      await assert.rejects(
        api.deleteMember(organizationId, { user_id: alice.id }),
        (e: { response?: { status: number } }) => e.response?.status === 409,
      )
    } finally {
      await listening.close()
    }
  })

  it("answers 404 to the member operations of another user's organization", async () => {
    const alice = await person('alice')
    const mallory = await person('mallory')
    const organizationId = await organizationOf(alice)
    assertError(await request(mallory.authorization, 'GET', `/organization/${organizationId}/member`), 404, 'not_found')
    assertError(await put(mallory, organizationId, mallory.id, { role: 'ADMIN' }), 404, 'not_found')
    assertError(await remove(mallory, organizationId, alice.id), 404, 'not_found')
  })

  it('answers 401 without credentials', async () => {
    const res = await t.app.inject({ method: 'GET', url: `/organization/${randomUUID()}/member` })
    assertError(res, 401, 'unauthenticated')
  })
})
