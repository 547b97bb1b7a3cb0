import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createTestApp, type TestApp } from './helpers/app.ts'
import { assertError } from './helpers/assertions.ts'
import { factories } from './helpers/factories.ts'
import { memberCalls, type Person } from './helpers/members.ts'
import { startOidcProvider, type TestIdentityProvider } from './helpers/oidc-provider.ts'

// Issue 48: a user accepts its invitation, an ADMIN transfers ownership, a user edits its account,
// and an organization's onboarding status and the roles it offers.

const emailOf = (person: Person) => `${person.name.replace(' ', '.')}@example.com`

describe('memberships, the account and the onboarding', () => {
  let idp: TestIdentityProvider
  let t: TestApp
  const calls = memberCalls(
    () => t,
    () => idp,
  )

  before(async () => {
    idp = await startOidcProvider()
    t = await createTestApp(idp.env)
  })
  after(async () => {
    await t.close()
    await idp.close()
  })

  const invite = async (by: Person, organizationId: string, email: string, body: object = { role: 'DEVELOPER' }) => {
    const res = await calls.request(by.authorization, 'POST', `/organization/${organizationId}/inviteMember`, { email, ...body })
    assert.equal(res.statusCode, 201, res.body)
    return res.json().id as string
  }

  it('makes the invited user a member with the invitation’s role, once, and nobody else', async () => {
    const [owner, invited, stranger] = [await calls.person('owner'), await calls.person('invited'), await calls.person('stranger')]
    const organizationId = await calls.organizationOf(owner)
    const inviteId = await invite(owner, organizationId, emailOf(invited).toUpperCase())
    const url = `/organization/${organizationId}/inviteMember/${inviteId}`

    assertError(await calls.request(stranger.authorization, 'POST', url), 404, 'not_found')
    // An API token is no person: refused in its organization, and another organization's invitation stays unseen.
    const minted = await calls.createToken(owner.authorization, organizationId, { name: 'ci', role: 'ADMIN' })
    assert.equal(minted.statusCode, 201, minted.body)
    assertError(await calls.request(`Token ${minted.json().token}`, 'POST', url), 403, 'forbidden')
    const { tokens } = await factories(t.db).organizationWithTokens()
    assertError(await calls.request(tokens.admin.authorization, 'POST', url), 404, 'not_found')

    const accepted = await calls.request(invited.authorization, 'POST', url)
    assert.equal(accepted.statusCode, 201, accepted.body)
    assert.equal(accepted.json().id, inviteId)
    assert.equal(accepted.json().role, 'DEVELOPER')
    const member = (await calls.members(owner, organizationId)).find((candidate) => candidate.id === invited.id)
    assert.equal(member?.role, 'WRITE')
    // The member now reads the organization; the invitation is used up.
    assert.equal((await calls.request(invited.authorization, 'GET', `/organization/${organizationId}`)).statusCode, 200)
    assertError(await calls.request(owner.authorization, 'GET', url), 404, 'not_found')
    assertError(await calls.request(invited.authorization, 'POST', url), 404, 'not_found')

    // A member invited again cannot join twice.
    const again = await invite(owner, organizationId, emailOf(invited))
    assertError(await calls.request(invited.authorization, 'POST', `/organization/${organizationId}/inviteMember/${again}`), 409, 'conflict')
  })

  it('transfers ownership by making a member an ADMIN, and refuses a non-member or a non-ADMIN', async () => {
    const [owner, heir, outsider] = [await calls.person('owner'), await calls.person('heir'), await calls.person('outsider')]
    const organizationId = await calls.organizationOf(owner)
    assert.equal((await calls.put(owner, organizationId, heir.id, { role: 'READ' })).statusCode, 200)
    const url = `/organization/${organizationId}/transferOwnership`

    assertError(await calls.request(heir.authorization, 'POST', url, { user_id: heir.id }), 403, 'forbidden')
    assertError(await calls.request(owner.authorization, 'POST', url, { user_id: outsider.id }), 400, 'validation_failed')
    const transferred = await calls.request(owner.authorization, 'POST', url, { user_id: heir.id })
    assert.equal(transferred.statusCode, 204, transferred.body)
    const roles = Object.fromEntries((await calls.members(owner, organizationId)).map((member) => [member.id, member.role]))
    assert.deepEqual(roles, { [owner.id]: 'ADMIN', [heir.id]: 'ADMIN' })
    assertError(await calls.request(outsider.authorization, 'POST', url, { user_id: outsider.id }), 404, 'not_found')
  })

  it('keeps the email a user wants to be written to', async () => {
    const person = await calls.person('writer')
    const before = (await calls.request(person.authorization, 'GET', '/account')).json()
    assert.equal(before.communication_email, emailOf(person))
    const edited = await calls.request(person.authorization, 'PUT', '/account', { communication_email: 'ops@example.org' })
    assert.equal(edited.statusCode, 200, edited.body)
    assert.equal(edited.json().communication_email, 'ops@example.org')
    const after = (await calls.request(person.authorization, 'GET', '/account')).json()
    assert.equal(after.communication_email, 'ops@example.org')
    assert.equal(after.email, emailOf(person))
    assertError(await calls.request(person.authorization, 'PUT', '/account', { communication_email: 'not an email' }), 400, 'validation_failed')
    const { tokens } = await factories(t.db).organizationWithTokens()
    assertError(await calls.request(tokens.admin.authorization, 'PUT', '/account', { communication_email: 'a@b.c' }), 403, 'forbidden')
  })

  it('keeps where the onboarding stands, which WRITE sets and READ reads', async () => {
    const { organization, tokens } = await factories(t.db).organizationWithTokens()
    const url = `/organization/${organization.id}/onboarding`
    assert.deepEqual((await calls.request(tokens.read.authorization, 'GET', url)).json(), { use_cases: null, status: 'IN_PROGRESS' })
    assertError(await calls.request(tokens.deploy.authorization, 'POST', url, { status: 'DISMISSED' }), 403, 'forbidden')
    const set = await calls.request(tokens.write.authorization, 'POST', url, { status: 'COMPLETED' })
    assert.equal(set.statusCode, 200, set.body)
    assert.deepEqual((await calls.request(tokens.read.authorization, 'GET', url)).json(), { use_cases: null, status: 'COMPLETED' })
    assertError(await calls.request(tokens.write.authorization, 'POST', url, { status: 'DONE' }), 400, 'validation_failed')
  })

  it('lists the built-in roles by their fixed ids, then the organization’s custom roles', async () => {
    const { organization, tokens } = await factories(t.db).organizationWithTokens()
    const created = await calls.request(tokens.admin.authorization, 'POST', `/organization/${organization.id}/customRole`, { name: 'auditors' })
    assert.equal(created.statusCode, 201, created.body)
    const roles = (await calls.request(tokens.read.authorization, 'GET', `/organization/${organization.id}/availableRole`)).json().results
    assert.deepEqual(
      roles.map((role: { name: string }) => role.name),
      ['READ', 'DEPLOY', 'WRITE', 'ADMIN', 'auditors'],
    )
    assert.equal(roles.at(-1).id, created.json().id)
    // Each built-in id is what invitations take as role_id.
    const deployId = roles.find((role: { name: string }) => role.name === 'DEPLOY').id
    const invited = await calls.request(tokens.admin.authorization, 'POST', `/organization/${organization.id}/inviteMember`, {
      email: 'someone@example.com',
      role_id: deployId,
    })
    assert.equal(invited.statusCode, 201, invited.body)
    assert.equal(invited.json().role_id, deployId)
  })
})
