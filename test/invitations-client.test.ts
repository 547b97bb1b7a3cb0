import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { Configuration, MembersApi } from 'qovery-typescript-axios'
import { ROLE_IDS } from '#src/platform/auth/roles.ts'
import { createTestApp, type TestApp } from './helpers/app.ts'
import { assertError, rejectedStatus } from './helpers/assertions.ts'
import { factories } from './helpers/factories.ts'

// Invitations (issue 20) through the official client, with the calls the Terraform provider's
// qovery_organization_member makes for a person who is not a member yet.

describe('invitations through the official client', () => {
  let t: TestApp
  let basePath: string

  before(async () => {
    t = await createTestApp()
    basePath = await t.listen()
  })
  after(() => t.close())

  const members = (authorization: string) => new MembersApi(new Configuration({ basePath, apiKey: authorization }))

  it("replays the provider's qovery_organization_member for an invitation: invite, find by email, change role (delete and invite again), remove", async () => {
    const { organization, tokens } = await factories(t.db).organizationWithTokens()
    const api = members(tokens.admin.authorization)

    const { data: invited, status } = await api.postInviteMember(organization.id, { email: 'Ada@example.com', role_id: ROLE_IDS.DEPLOY })
    assert.equal(status, 201)
    assert.equal(invited.email, 'Ada@example.com')
    assert.equal(invited.role_id, ROLE_IDS.DEPLOY)
    assert.equal(invited.role_name, 'DEPLOY')
    assert.equal(invited.role, 'DEVELOPER')
    assert.equal(invited.invitation_status, 'PENDING')
    assert.equal(invited.organization_name, organization.name)
    assert.match(invited.inviter, /^API token /)
    assert.match(invited.invitation_link, /^urn:berth:invitation:/)

    // Read: the provider lists the invitations and picks the email, ignoring case.
    const { data: list } = await api.getOrganizationInvitedMembers(organization.id)
    const found = list.results?.find((invite) => invite.email.toLowerCase() === 'ada@example.com')
    assert.deepEqual(found, invited)
    assert.deepEqual((await api.getMemberInvitation(organization.id, invited.id)).data, invited)

    // Update of a pending invitation: delete it and invite again with the new role.
    assert.equal((await api.deleteInviteMember(organization.id, invited.id)).status, 204)
    const { data: again } = await api.postInviteMember(organization.id, { email: 'Ada@example.com', role_id: ROLE_IDS.WRITE })
    assert.equal(again.role_id, ROLE_IDS.WRITE)
    assert.notEqual(again.id, invited.id)

    assert.equal((await api.deleteInviteMember(organization.id, again.id)).status, 204)
    assert.equal(await rejectedStatus(api.getMemberInvitation(organization.id, again.id)), 404)
    assert.deepEqual((await api.getOrganizationInvitedMembers(organization.id)).data.results, [])
  })

  it('answers 409 to a second invitation of one email, ignoring case, and 400 to a bad email or an unknown role', async () => {
    const { organization, tokens } = await factories(t.db).organizationWithTokens()
    const api = members(tokens.admin.authorization)
    const { data: first } = await api.postInviteMember(organization.id, { email: 'bob@example.com' })
    assert.equal(first.role_id, ROLE_IDS.READ, 'no role: READ')
    const url = `/organization/${organization.id}/inviteMember`
    const headers = { authorization: tokens.admin.authorization }
    assertError(await t.app.inject({ method: 'POST', url, headers, payload: { email: 'BOB@example.com' } }), 409, 'conflict')
    assertError(await t.app.inject({ method: 'POST', url, headers, payload: { email: 'not an email' } }), 400, 'validation_failed')
    const unknownRole = await t.app.inject({ method: 'POST', url, headers, payload: { email: 'c@example.com', role_id: crypto.randomUUID() } })
    assert.ok(assertError(unknownRole, 400, 'validation_failed').errors?.some((error) => error.path === '/role_id'))
    const { data: viewer } = await api.postInviteMember(organization.id, { email: 'd@example.com', role: 'VIEWER' })
    assert.equal(viewer.role_id, ROLE_IDS.READ)
  })

  it('is for ADMINs only, and another organization sees a 404', async () => {
    const { organization, tokens } = await factories(t.db).organizationWithTokens()
    const other = await factories(t.db).organizationWithTokens()
    const { data: invited } = await members(tokens.admin.authorization).postInviteMember(organization.id, { email: 'e@example.com' })
    assert.equal(await rejectedStatus(members(tokens.write.authorization).getOrganizationInvitedMembers(organization.id)), 403)
    assert.equal(await rejectedStatus(members(tokens.write.authorization).postInviteMember(organization.id, { email: 'f@example.com' })), 403)
    assert.equal(await rejectedStatus(members(other.tokens.admin.authorization).getMemberInvitation(organization.id, invited.id)), 404)
    assert.equal(await rejectedStatus(members(other.tokens.admin.authorization).getMemberInvitation(other.organization.id, invited.id)), 404)
    assert.equal(await rejectedStatus(members(other.tokens.admin.authorization).deleteInviteMember(other.organization.id, invited.id)), 404)
  })
})
