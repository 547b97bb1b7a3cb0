import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { createTestApp, type TestApp } from './helpers/app.ts'
import { assertError, assertIsoTimestamp, assertValidationError, UUID } from './helpers/assertions.ts'
import { factories, uniqueName } from './helpers/factories.ts'

const PROJECT_FIELDS = ['associated_environments_count', 'created_at', 'description', 'id', 'name', 'organization', 'updated_at']

interface ProjectBody {
  id: string
  created_at: string
  updated_at: string
  name: string
  description: string | null
  organization: { id: string }
  associated_environments_count: number
}

function assertProjectShape(body: ProjectBody, organizationId: string): void {
  assert.deepEqual(Object.keys(body).sort(), PROJECT_FIELDS)
  assert.match(body.id, UUID)
  assertIsoTimestamp(body.created_at, 'created_at')
  assertIsoTimestamp(body.updated_at, 'updated_at')
  assert.equal(typeof body.name, 'string')
  assert.ok(body.description === null || typeof body.description === 'string')
  assert.deepEqual(body.organization, { id: organizationId })
  assert.ok(Number.isInteger(body.associated_environments_count))
}

describe('projects', () => {
  let t: TestApp
  before(async () => {
    t = await createTestApp()
  })
  after(async () => t.close())

  const call = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, authorization?: string, payload?: unknown) =>
    t.app.inject({
      method,
      url,
      headers: authorization ? { authorization } : {},
      ...(payload === undefined ? {} : { payload: payload as object }),
    })

  const projectsUrl = (organizationId: string) => `/organization/${organizationId}/project`

  describe('POST /organization/{organizationId}/project', () => {
    it('creates a project with 200 (as the reference does) in the Project shape, trimming the name', async () => {
      const { organization, tokens } = await factories(t.db).organizationWithTokens()
      const name = uniqueName('Shop')
      const res = await call('POST', projectsUrl(organization.id), tokens.write.authorization, { name: `  ${name} `, description: 'the shop' })
      assert.equal(res.statusCode, 200)
      const body = res.json() as ProjectBody
      assertProjectShape(body, organization.id)
      assert.equal(body.name, name)
      assert.equal(body.description, 'the shop')
      assert.equal(body.associated_environments_count, 0)

      const read = await call('GET', `/project/${body.id}`, tokens.read.authorization)
      assert.equal(read.statusCode, 200)
      assert.deepEqual(read.json(), body)
    })

    it('stores an omitted description as null', async () => {
      const { organization, tokens } = await factories(t.db).organizationWithTokens()
      const res = await call('POST', projectsUrl(organization.id), tokens.admin.authorization, { name: uniqueName('bare') })
      assert.equal(res.statusCode, 200)
      assert.equal(res.json().description, null)
    })

    for (const role of ['deploy', 'read'] as const) {
      it(`refuses a ${role.toUpperCase()} token with 403 and creates nothing`, async () => {
        const { organization, tokens } = await factories(t.db).organizationWithTokens()
        assertError(await call('POST', projectsUrl(organization.id), tokens[role].authorization, { name: uniqueName('nope') }), 403, 'forbidden')
        assert.deepEqual((await call('GET', projectsUrl(organization.id), tokens.read.authorization)).json(), { results: [], has_more: false })
      })
    }

    it('answers 404 for another organization, and for one that does not exist', async () => {
      const { tokens } = await factories(t.db).organizationWithTokens()
      const theirs = await factories(t.db).organizationWithTokens()
      assertError(
        await call('POST', projectsUrl(theirs.organization.id), tokens.admin.authorization, { name: uniqueName('intruder') }),
        404,
        'not_found',
      )
      assertError(await call('POST', projectsUrl(randomUUID()), tokens.admin.authorization, { name: uniqueName('lost') }), 404, 'not_found')
      assert.deepEqual((await call('GET', projectsUrl(theirs.organization.id), theirs.tokens.read.authorization)).json(), {
        results: [],
        has_more: false,
      })
    })

    it('answers 401 without credentials', async () => {
      const { organization } = await factories(t.db).organizationWithTokens()
      assertError(await call('POST', projectsUrl(organization.id), undefined, { name: uniqueName('anon') }), 401, 'unauthenticated')
    })

    it('answers 400 naming /name when it is missing', async () => {
      const { organization, tokens } = await factories(t.db).organizationWithTokens()
      const errors = assertValidationError(await call('POST', projectsUrl(organization.id), tokens.admin.authorization, { description: 'x' }))
      assert.deepEqual(errors, [{ path: '/name', message: 'is required', location: 'body' }])
    })

    for (const name of ['', '   ', 'x'.repeat(256)]) {
      it(`answers 400 for the name ${JSON.stringify(name.slice(0, 10))}${name.length > 10 ? '…' : ''}`, async () => {
        const { organization, tokens } = await factories(t.db).organizationWithTokens()
        const errors = assertValidationError(await call('POST', projectsUrl(organization.id), tokens.admin.authorization, { name }))
        assert.equal(errors[0]!.path, '/name')
      })
    }

    it('answers 409 for a name taken in the organization in any letter case, and allows it in another organization', async () => {
      const { organization, tokens } = await factories(t.db).organizationWithTokens()
      const existing = await factories(t.db).project(organization.id, uniqueName('Billing'))
      for (const name of [existing.name.toUpperCase(), existing.name.toLowerCase(), ` ${existing.name} `]) {
        const body = assertError(await call('POST', projectsUrl(organization.id), tokens.admin.authorization, { name }), 409, 'conflict')
        assert.match(body.message, /already exists/)
      }
      const other = await factories(t.db).organizationWithTokens()
      assert.equal(
        (await call('POST', projectsUrl(other.organization.id), other.tokens.admin.authorization, { name: existing.name })).statusCode,
        200,
      )
    })
  })

  describe('GET /organization/{organizationId}/project', () => {
    it("lists the organization's projects by name ignoring letter case, never another organization's", async () => {
      const { organization, tokens } = await factories(t.db).organizationWithTokens()
      const other = await factories(t.db).organization()
      await factories(t.db).project(other.id, 'alpha elsewhere')
      const names = ['beta', 'Alpha', 'gamma', 'ALPHA two']
      for (const name of names) await factories(t.db).project(organization.id, name)

      const res = await call('GET', projectsUrl(organization.id), tokens.read.authorization)
      assert.equal(res.statusCode, 200)
      const results = res.json().results as ProjectBody[]
      assert.deepEqual(
        results.map((p) => p.name),
        ['Alpha', 'ALPHA two', 'beta', 'gamma'],
      )
      for (const project of results) assertProjectShape(project, organization.id)
    })

    it('counts the environments of each project', async () => {
      const { organization, tokens } = await factories(t.db).organizationWithTokens()
      const busy = await factories(t.db).project(organization.id, 'a busy')
      const idle = await factories(t.db).project(organization.id, 'b idle')
      await factories(t.db).environment(busy.id)
      await factories(t.db).environment(busy.id)

      const results = (await call('GET', projectsUrl(organization.id), tokens.read.authorization)).json().results as ProjectBody[]
      assert.deepEqual(
        results.map((p) => [p.id, p.associated_environments_count]),
        [
          [busy.id, 2],
          [idle.id, 0],
        ],
      )
      assert.equal((await call('GET', `/project/${busy.id}`, tokens.read.authorization)).json().associated_environments_count, 2)
    })

    it('answers 404 for another organization and 401 without credentials', async () => {
      const { tokens } = await factories(t.db).organizationWithTokens()
      const other = await factories(t.db).organization()
      await factories(t.db).project(other.id)
      assertError(await call('GET', projectsUrl(other.id), tokens.admin.authorization), 404, 'not_found')
      assertError(await call('GET', projectsUrl(other.id)), 401, 'unauthenticated')
    })
  })

  describe('GET /project/{projectId}', () => {
    it('answers 404 for a project of another organization exactly as for one that does not exist', async () => {
      const { tokens } = await factories(t.db).organizationWithTokens()
      const other = await factories(t.db).organization()
      const theirs = await factories(t.db).project(other.id)
      const foreign = assertError(await call('GET', `/project/${theirs.id}`, tokens.admin.authorization), 404, 'not_found')
      const missing = assertError(await call('GET', `/project/${randomUUID()}`, tokens.admin.authorization), 404, 'not_found')
      assert.equal(foreign.message, missing.message)
      assert.match(foreign.message, /project/)
    })

    it('answers 400 naming the path parameter for an id that is not a uuid, and 401 without credentials', async () => {
      const { organization, tokens } = await factories(t.db).organizationWithTokens()
      const errors = assertValidationError(await call('GET', '/project/not-a-uuid', tokens.read.authorization))
      assert.deepEqual(
        errors.map((e) => [e.location, e.path]),
        [['path', '/projectId']],
      )
      const project = await factories(t.db).project(organization.id)
      assertError(await call('GET', `/project/${project.id}`), 401, 'unauthenticated')
    })
  })

  describe('PUT /project/{projectId}', () => {
    it('replaces the name and description, clearing an omitted description', async () => {
      const { organization, tokens } = await factories(t.db).organizationWithTokens()
      const project = await factories(t.db).project(organization.id)
      await factories(t.db).environment(project.id)
      const url = `/project/${project.id}`

      const first = await call('PUT', url, tokens.write.authorization, { name: ' renamed ', description: 'now described' })
      assert.equal(first.statusCode, 200)
      const firstBody = first.json() as ProjectBody
      assertProjectShape(firstBody, organization.id)
      assert.equal(firstBody.id, project.id)
      assert.equal(firstBody.name, 'renamed')
      assert.equal(firstBody.description, 'now described')
      assert.equal(firstBody.associated_environments_count, 1)
      assert.equal(firstBody.created_at, project.createdAt.toISOString())

      const second = await call('PUT', url, tokens.write.authorization, { name: 'renamed again' })
      assert.equal(second.statusCode, 200)
      assert.equal(second.json().description, null)
      assert.deepEqual((await call('GET', url, tokens.read.authorization)).json(), second.json())
    })

    it("accepts the project's own name in another letter case", async () => {
      const { organization, tokens } = await factories(t.db).organizationWithTokens()
      const project = await factories(t.db).project(organization.id, uniqueName('Mixed'))
      const res = await call('PUT', `/project/${project.id}`, tokens.write.authorization, { name: project.name.toUpperCase() })
      assert.equal(res.statusCode, 200)
      assert.equal(res.json().name, project.name.toUpperCase())
    })

    it('answers 409 for the name of another project of the organization, in any letter case', async () => {
      const { organization, tokens } = await factories(t.db).organizationWithTokens()
      const taken = await factories(t.db).project(organization.id)
      const project = await factories(t.db).project(organization.id)
      const body = assertError(
        await call('PUT', `/project/${project.id}`, tokens.write.authorization, { name: taken.name.toUpperCase() }),
        409,
        'conflict',
      )
      assert.match(body.message, /already exists/)
      assert.equal((await call('GET', `/project/${project.id}`, tokens.read.authorization)).json().name, project.name)
    })

    for (const role of ['deploy', 'read'] as const) {
      it(`refuses a ${role.toUpperCase()} token with 403 and changes nothing`, async () => {
        const { organization, tokens } = await factories(t.db).organizationWithTokens()
        const project = await factories(t.db).project(organization.id)
        assertError(await call('PUT', `/project/${project.id}`, tokens[role].authorization, { name: uniqueName('nope') }), 403, 'forbidden')
        assert.equal((await call('GET', `/project/${project.id}`, tokens.read.authorization)).json().name, project.name)
      })
    }

    it('answers 404 for a project of another organization and 400 without a name', async () => {
      const { organization, tokens } = await factories(t.db).organizationWithTokens()
      const other = await factories(t.db).organization()
      const theirs = await factories(t.db).project(other.id)
      assertError(await call('PUT', `/project/${theirs.id}`, tokens.admin.authorization, { name: uniqueName('steal') }), 404, 'not_found')
      const mine = await factories(t.db).project(organization.id)
      const errors = assertValidationError(await call('PUT', `/project/${mine.id}`, tokens.admin.authorization, { description: 'x' }))
      assert.deepEqual(errors, [{ path: '/name', message: 'is required', location: 'body' }])
    })
  })

  describe('DELETE /project/{projectId}', () => {
    it('deletes the project and its environments', async () => {
      const { organization, tokens, project, environment } = await factories(t.db).environmentWithTokens()
      const res = await call('DELETE', `/project/${project.id}`, tokens.write.authorization)
      assert.equal(res.statusCode, 204)
      assert.equal(res.body, '')
      assertError(await call('GET', `/project/${project.id}`, tokens.read.authorization), 404, 'not_found')
      assertError(await call('GET', `/environment/${environment.id}`, tokens.read.authorization), 404, 'not_found')
      assert.deepEqual((await call('GET', projectsUrl(organization.id), tokens.read.authorization)).json(), { results: [], has_more: false })
      // The name is free again.
      assert.equal((await call('POST', projectsUrl(organization.id), tokens.write.authorization, { name: project.name })).statusCode, 200)
    })

    for (const role of ['deploy', 'read'] as const) {
      it(`refuses a ${role.toUpperCase()} token with 403 and keeps the project`, async () => {
        const { organization, tokens } = await factories(t.db).organizationWithTokens()
        const project = await factories(t.db).project(organization.id)
        assertError(await call('DELETE', `/project/${project.id}`, tokens[role].authorization), 403, 'forbidden')
        assert.equal((await call('GET', `/project/${project.id}`, tokens.read.authorization)).statusCode, 200)
      })
    }

    it('answers 404 for a project of another organization and leaves it alone, 404 for an unknown id, 401 without credentials', async () => {
      const mine = await factories(t.db).organizationWithTokens()
      const theirs = await factories(t.db).organizationWithTokens()
      const project = await factories(t.db).project(theirs.organization.id)
      assertError(await call('DELETE', `/project/${project.id}`, mine.tokens.admin.authorization), 404, 'not_found')
      assertError(await call('DELETE', `/project/${project.id}`), 401, 'unauthenticated')
      assert.equal((await call('GET', `/project/${project.id}`, theirs.tokens.read.authorization)).statusCode, 200)
      assertError(await call('DELETE', `/project/${randomUUID()}`, mine.tokens.admin.authorization), 404, 'not_found')
    })
  })
})
