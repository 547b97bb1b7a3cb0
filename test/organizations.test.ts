import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { createTestApp, type TestApp } from './helpers/app.ts'
import { assertError, assertIsoTimestamp, assertValidationError, UUID } from './helpers/assertions.ts'
import { factories, uniqueName } from './helpers/factories.ts'

const ORGANIZATION_FIELDS = [
  'admin_emails',
  'billing_deployment_restriction',
  'created_at',
  'description',
  'icon_url',
  'id',
  'logo_url',
  'name',
  'organization_plan',
  'parent_organization_id',
  'plan',
  'repository',
  'updated_at',
  'website_url',
]

interface OrganizationBody {
  id: string
  name: string
  description: string | null
  plan: string
  website_url: string | null
  repository: string | null
  logo_url: string | null
  icon_url: string | null
  admin_emails: string[] | null
  created_at: string
  updated_at: string
  billing_deployment_restriction: string | null
  organization_plan: { plan: string; audit_logs_retention_in_days: number }
}

function assertOrganizationShape(body: OrganizationBody): void {
  assert.deepEqual(Object.keys(body).sort(), ORGANIZATION_FIELDS)
  assert.match(body.id, UUID)
  assertIsoTimestamp(body.created_at, 'created_at')
  assertIsoTimestamp(body.updated_at, 'updated_at')
  assert.equal(typeof body.name, 'string')
  assert.equal(typeof body.plan, 'string')
  for (const field of ['description', 'website_url', 'repository', 'logo_url', 'icon_url', 'billing_deployment_restriction'] as const) {
    assert.ok(body[field] === null || typeof body[field] === 'string', `${field} is ${typeof body[field]}`)
  }
  assert.ok(body.admin_emails === null || Array.isArray(body.admin_emails))
  assert.deepEqual(Object.keys(body.organization_plan).sort(), ['audit_logs_retention_in_days', 'plan'])
  assert.equal(body.organization_plan.plan, body.plan)
  assert.equal(typeof body.organization_plan.audit_logs_retention_in_days, 'number')
}

describe('organizations', () => {
  let t: TestApp
  before(async () => {
    t = await createTestApp()
  })
  after(async () => t.close())

  const call = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, authorization: string, payload?: unknown) =>
    t.app.inject({ method, url, headers: { authorization }, ...(payload === undefined ? {} : { payload: payload as object }) })

  const ids = (res: { json(): { results: { id: string }[] } }) => res.json().results.map((o) => o.id)

  describe('GET /organization', () => {
    it('lists exactly the organization of the calling token, whatever its role', async () => {
      const { organization, tokens } = await factories(t.db).organizationWithTokens()
      await factories(t.db).organizationWithTokens() // another organization, not to be listed
      for (const token of Object.values(tokens)) {
        const res = await call('GET', '/organization', token.authorization)
        assert.equal(res.statusCode, 200)
        assert.deepEqual(ids(res), [organization.id])
        assertOrganizationShape(res.json().results[0])
      }
    })

    it("adds the organizations its organization's tokens created, for its ADMIN tokens only", async () => {
      const { organization, tokens } = await factories(t.db).organizationWithTokens()
      const created = await call('POST', '/organization', tokens.admin.authorization, { name: uniqueName('created'), plan: 'TEAM' })
      assert.equal(created.statusCode, 201)
      assert.equal(created.json().parent_organization_id, organization.id)

      assert.deepEqual(ids(await call('GET', '/organization', tokens.admin.authorization)), [organization.id, created.json().id])
      const otherAdmin = await factories(t.db).apiToken(organization.id, 'ADMIN')
      assert.deepEqual(ids(await call('GET', '/organization', otherAdmin.authorization)), [organization.id, created.json().id])
      assert.deepEqual(ids(await call('GET', '/organization', tokens.write.authorization)), [organization.id])
      assert.deepEqual(ids(await call('GET', '/organization', tokens.read.authorization)), [organization.id])
    })
  })

  describe('GET /organization/{organizationId}', () => {
    it("returns the caller's organization in the reference Organization shape", async () => {
      const { organization, tokens } = await factories(t.db).organizationWithTokens()
      const res = await call('GET', `/organization/${organization.id}`, tokens.read.authorization)
      assert.equal(res.statusCode, 200)
      const body = res.json() as OrganizationBody
      assertOrganizationShape(body)
      assert.equal(body.id, organization.id)
      assert.equal(body.name, organization.name)
      assert.equal(body.plan, 'FREE')
      assert.equal(body.description, null)
      assert.equal(body.admin_emails, null)
      assert.equal(body.billing_deployment_restriction, null)
      assert.deepEqual(body.organization_plan.plan, 'FREE')
      assert.equal(body.created_at, organization.createdAt.toISOString())
    })

    it('answers 404, not 403, for an organization of somebody else', async () => {
      const mine = await factories(t.db).organizationWithTokens()
      const theirs = await factories(t.db).organizationWithTokens()
      const body = assertError(await call('GET', `/organization/${theirs.organization.id}`, mine.tokens.admin.authorization), 404, 'not_found')
      assert.doesNotMatch(body.message, new RegExp(theirs.organization.name))
    })

    it('answers 404 for an id that does not exist, exactly as for another organization', async () => {
      const { tokens } = await factories(t.db).organizationWithTokens()
      const theirs = await factories(t.db).organization()
      const missing = assertError(await call('GET', `/organization/${randomUUID()}`, tokens.admin.authorization), 404, 'not_found')
      const foreign = assertError(await call('GET', `/organization/${theirs.id}`, tokens.admin.authorization), 404, 'not_found')
      assert.equal(missing.message, foreign.message)
    })

    it('answers 400 naming the path parameter for an id that is not a uuid', async () => {
      const { tokens } = await factories(t.db).organizationWithTokens()
      const errors = assertValidationError(await call('GET', '/organization/not-a-uuid', tokens.read.authorization))
      assert.equal(errors[0]!.location, 'path')
      assert.equal(errors[0]!.path, '/organizationId')
    })
  })

  describe('POST /organization', () => {
    it('lets an ADMIN token create an organization it can then read, edit and delete', async () => {
      const { organization, tokens } = await factories(t.db).organizationWithTokens()
      const name = uniqueName('new org')
      const res = await call('POST', '/organization', tokens.admin.authorization, {
        name,
        plan: 'TEAM',
        description: 'made by a test',
        website_url: 'https://example.com',
        admin_emails: ['ops@example.com'],
      })
      assert.equal(res.statusCode, 201)
      const created = res.json() as OrganizationBody
      assertOrganizationShape(created)
      assert.equal(created.name, name)
      assert.equal(created.plan, 'TEAM')
      assert.equal(created.organization_plan.plan, 'TEAM')
      assert.equal(created.description, 'made by a test')
      assert.equal(created.website_url, 'https://example.com')
      assert.deepEqual(created.admin_emails, ['ops@example.com'])
      assert.equal(created.repository, null)
      assert.notEqual(created.id, organization.id)

      assert.ok(ids(await call('GET', '/organization', tokens.admin.authorization)).includes(created.id))

      const read = await call('GET', `/organization/${created.id}`, tokens.admin.authorization)
      assert.equal(read.statusCode, 200)
      assert.deepEqual(read.json(), created)

      const edited = await call('PUT', `/organization/${created.id}`, tokens.admin.authorization, { name: `${name} renamed` })
      assert.equal(edited.statusCode, 200)
      assert.equal(edited.json().name, `${name} renamed`)

      assert.equal((await call('DELETE', `/organization/${created.id}`, tokens.admin.authorization)).statusCode, 204)
      assertError(await call('GET', `/organization/${created.id}`, tokens.admin.authorization), 404, 'not_found')
      // The creating token lives in its home organization and keeps working.
      assert.deepEqual(ids(await call('GET', '/organization', tokens.admin.authorization)), [organization.id])
    })

    it('hides an organization created by a token from the other tokens of its home organization', async () => {
      const { tokens } = await factories(t.db).organizationWithTokens()
      const created = await call('POST', '/organization', tokens.admin.authorization, { name: uniqueName('private'), plan: 'FREE' })
      assert.equal(created.statusCode, 201)
      assertError(await call('GET', `/organization/${created.json().id}`, tokens.write.authorization), 404, 'not_found')
    })

    for (const role of ['write', 'deploy', 'read'] as const) {
      it(`refuses a ${role.toUpperCase()} token with 403`, async () => {
        const { tokens } = await factories(t.db).organizationWithTokens()
        const name = uniqueName('refused')
        assertError(await call('POST', '/organization', tokens[role].authorization, { name, plan: 'FREE' }), 403, 'forbidden')
        // Nothing was created: the name is still free.
        assert.equal((await call('POST', '/organization', tokens.admin.authorization, { name, plan: 'FREE' })).statusCode, 201)
      })
    }

    it('answers 400 naming /plan when the plan is missing', async () => {
      const { tokens } = await factories(t.db).organizationWithTokens()
      const errors = assertValidationError(await call('POST', '/organization', tokens.admin.authorization, { name: uniqueName('no plan') }))
      assert.deepEqual(errors, [{ path: '/plan', message: 'is required', location: 'body' }])
    })

    it('answers 400 for a plan outside the enum, listing the allowed plans', async () => {
      const { tokens } = await factories(t.db).organizationWithTokens()
      const errors = assertValidationError(
        await call('POST', '/organization', tokens.admin.authorization, { name: uniqueName('bad plan'), plan: 'GOLD' }),
      )
      assert.equal(errors.length, 1)
      assert.equal(errors[0]!.path, '/plan')
      assert.match(errors[0]!.message, /FREE/)
    })

    for (const name of ['', '   ']) {
      it(`answers 400 for the blank name ${JSON.stringify(name)}`, async () => {
        const { tokens } = await factories(t.db).organizationWithTokens()
        const errors = assertValidationError(await call('POST', '/organization', tokens.admin.authorization, { name, plan: 'FREE' }))
        assert.equal(errors[0]!.path, '/name')
      })
    }

    it('answers 409 conflict for a name that exists in another letter case', async () => {
      const { tokens } = await factories(t.db).organizationWithTokens()
      const existing = await factories(t.db).organization(uniqueName('Acme Corp'))
      for (const name of [existing.name.toUpperCase(), existing.name.toLowerCase(), `  ${existing.name}  `]) {
        const body = assertError(await call('POST', '/organization', tokens.admin.authorization, { name, plan: 'FREE' }), 409, 'conflict')
        assert.match(body.message, /already exists/)
      }
    })
  })

  describe('PUT /organization/{organizationId}', () => {
    it('lets an ADMIN replace the fields, clearing the omitted ones and keeping the plan', async () => {
      const { organization, tokens } = await factories(t.db).organizationWithTokens()
      const url = `/organization/${organization.id}`
      const first = await call('PUT', url, tokens.admin.authorization, {
        name: organization.name,
        description: 'first',
        website_url: 'https://a.example',
        repository: 'https://git.example/a',
        logo_url: 'https://a.example/logo.png',
        icon_url: 'https://a.example/icon.png',
        admin_emails: ['a@example.com', 'b@example.com'],
        plan: 'BUSINESS',
      })
      assert.equal(first.statusCode, 200)
      const firstBody = first.json() as OrganizationBody
      assertOrganizationShape(firstBody)
      assert.equal(firstBody.description, 'first')
      assert.equal(firstBody.repository, 'https://git.example/a')
      assert.deepEqual(firstBody.admin_emails, ['a@example.com', 'b@example.com'])
      assert.equal(firstBody.plan, 'BUSINESS')

      const renamed = uniqueName('renamed')
      const second = await call('PUT', url, tokens.admin.authorization, { name: renamed })
      assert.equal(second.statusCode, 200)
      const secondBody = second.json() as OrganizationBody
      assert.equal(secondBody.name, renamed)
      for (const field of ['description', 'website_url', 'repository', 'logo_url', 'icon_url', 'admin_emails'] as const) {
        assert.equal(secondBody[field], null, `${field} was not cleared`)
      }
      assert.equal(secondBody.plan, 'BUSINESS')
      assert.equal(secondBody.created_at, firstBody.created_at)

      // The change is stored, not only echoed.
      assert.deepEqual((await call('GET', url, tokens.read.authorization)).json(), secondBody)
    })

    it("accepts the organization's own name in another letter case", async () => {
      const { organization, tokens } = await factories(t.db).organizationWithTokens()
      const res = await call('PUT', `/organization/${organization.id}`, tokens.admin.authorization, { name: organization.name.toUpperCase() })
      assert.equal(res.statusCode, 200)
      assert.equal(res.json().name, organization.name.toUpperCase())
    })

    for (const role of ['write', 'deploy', 'read'] as const) {
      it(`refuses a ${role.toUpperCase()} token with 403 and changes nothing`, async () => {
        const { organization, tokens } = await factories(t.db).organizationWithTokens()
        const url = `/organization/${organization.id}`
        assertError(await call('PUT', url, tokens[role].authorization, { name: uniqueName('nope'), description: 'x' }), 403, 'forbidden')
        const stored = (await call('GET', url, tokens.read.authorization)).json() as OrganizationBody
        assert.equal(stored.name, organization.name)
        assert.equal(stored.description, null)
      })
    }

    it('answers 409 for a name taken by another organization', async () => {
      const { organization, tokens } = await factories(t.db).organizationWithTokens()
      const other = await factories(t.db).organization()
      const body = assertError(
        await call('PUT', `/organization/${organization.id}`, tokens.admin.authorization, { name: other.name.toLowerCase() }),
        409,
        'conflict',
      )
      assert.match(body.message, /already exists/)
    })

    it('answers 404 for another organization', async () => {
      const { tokens } = await factories(t.db).organizationWithTokens()
      const other = await factories(t.db).organization()
      assertError(await call('PUT', `/organization/${other.id}`, tokens.admin.authorization, { name: uniqueName('steal') }), 404, 'not_found')
    })

    it('answers 400 when the name is missing', async () => {
      const { organization, tokens } = await factories(t.db).organizationWithTokens()
      const errors = assertValidationError(await call('PUT', `/organization/${organization.id}`, tokens.admin.authorization, { description: 'x' }))
      assert.deepEqual(errors, [{ path: '/name', message: 'is required', location: 'body' }])
    })
  })

  describe('DELETE /organization/{organizationId}', () => {
    it('lets an ADMIN delete the organization, after which its tokens answer 401', async () => {
      const { organization, tokens } = await factories(t.db).organizationWithTokens()
      const res = await call('DELETE', `/organization/${organization.id}`, tokens.admin.authorization)
      assert.equal(res.statusCode, 204)
      assert.equal(res.body, '')
      for (const token of Object.values(tokens)) {
        assertError(await call('GET', '/organization', token.authorization), 401, 'unauthenticated')
      }
    })

    for (const role of ['write', 'deploy', 'read'] as const) {
      it(`refuses a ${role.toUpperCase()} token with 403 and keeps the organization`, async () => {
        const { organization, tokens } = await factories(t.db).organizationWithTokens()
        assertError(await call('DELETE', `/organization/${organization.id}`, tokens[role].authorization), 403, 'forbidden')
        assert.equal((await call('GET', `/organization/${organization.id}`, tokens.read.authorization)).statusCode, 200)
      })
    }

    it('answers 404 for another organization and leaves it alone', async () => {
      const mine = await factories(t.db).organizationWithTokens()
      const theirs = await factories(t.db).organizationWithTokens()
      assertError(await call('DELETE', `/organization/${theirs.organization.id}`, mine.tokens.admin.authorization), 404, 'not_found')
      assert.equal((await call('GET', `/organization/${theirs.organization.id}`, theirs.tokens.read.authorization)).statusCode, 200)
    })

    it('answers 404 for an organization that does not exist', async () => {
      const { tokens } = await factories(t.db).organizationWithTokens()
      assertError(await call('DELETE', `/organization/${randomUUID()}`, tokens.admin.authorization), 404, 'not_found')
    })
  })
})
