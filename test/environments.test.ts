import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { Configuration, EnvironmentMainCallsApi, EnvironmentsApi, ProjectMainCallsApi, ProjectsApi } from 'qovery-typescript-axios'
import { createTestApp, type TestApp } from './helpers/app.ts'
import { assertError, assertIsoTimestamp, assertValidationError, UUID } from './helpers/assertions.ts'
import { factories, uniqueName } from './helpers/factories.ts'

const ENVIRONMENT_FIELDS = [
  'auto_preview',
  'cloud_provider',
  'cluster_id',
  'cluster_name',
  'created_at',
  'expires_at',
  'id',
  'mode',
  'name',
  'organization',
  'project',
  'updated_at',
]

interface EnvironmentBody {
  id: string
  created_at: string
  updated_at: string
  name: string
  organization: { id: string }
  project: { id: string }
  cloud_provider: { provider: string; cluster: string }
  mode: string
  cluster_id: string
  cluster_name: string
  expires_at: string | null
  auto_preview: boolean
}

/** The shape of an environment on the organization's default cluster. */
function assertEnvironmentShape(body: EnvironmentBody, ids: { organizationId: string; projectId: string }): void {
  assert.deepEqual(Object.keys(body).sort(), ENVIRONMENT_FIELDS)
  assert.match(body.id, UUID)
  assertIsoTimestamp(body.created_at, 'created_at')
  assertIsoTimestamp(body.updated_at, 'updated_at')
  assert.equal(typeof body.name, 'string')
  assert.deepEqual(body.organization, { id: ids.organizationId })
  assert.deepEqual(body.project, { id: ids.projectId })
  assert.deepEqual(body.cloud_provider, { provider: 'ON_PREMISE', cluster: 'on-premise' })
  assert.match(body.cluster_id, UUID)
  assert.equal(body.cluster_name, 'default')
  assert.equal(body.expires_at, null)
  assert.equal(typeof body.auto_preview, 'boolean')
}

describe('environments', () => {
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

  const environmentsUrl = (projectId: string) => `/project/${projectId}/environment`

  const defaultClusterCount = async (organizationId: string) =>
    (await t.db.selectFrom('clusters').select('id').where('organizationId', '=', organizationId).execute()).length

  describe('POST /project/{projectId}/environment', () => {
    it("creates a DEVELOPMENT environment with 201 on the organization's default cluster, trimming the name", async () => {
      const { organization, tokens } = await factories(t.db).organizationWithTokens()
      const project = await factories(t.db).project(organization.id)
      const name = uniqueName('Dev')
      const res = await call('POST', environmentsUrl(project.id), tokens.write.authorization, { name: ` ${name}  ` })
      assert.equal(res.statusCode, 201)
      const body = res.json() as EnvironmentBody
      assertEnvironmentShape(body, { organizationId: organization.id, projectId: project.id })
      assert.equal(body.name, name)
      assert.equal(body.mode, 'DEVELOPMENT')
      assert.equal(body.auto_preview, false)

      const read = await call('GET', `/environment/${body.id}`, tokens.read.authorization)
      assert.equal(read.statusCode, 200)
      assert.deepEqual(read.json(), body)
      assert.equal((await call('GET', `/project/${project.id}`, tokens.read.authorization)).json().associated_environments_count, 1)
    })

    it('takes the mode and the auto_preview extension', async () => {
      const { organization, tokens } = await factories(t.db).organizationWithTokens()
      const project = await factories(t.db).project(organization.id)
      for (const mode of ['PRODUCTION', 'STAGING', 'DEVELOPMENT']) {
        const res = await call('POST', environmentsUrl(project.id), tokens.admin.authorization, { name: uniqueName(mode), mode, auto_preview: true })
        assert.equal(res.statusCode, 201, res.body)
        assert.equal(res.json().mode, mode)
        assert.equal(res.json().auto_preview, true)
      }
    })

    it('puts every environment of an organization on one default cluster, and each organization on its own', async () => {
      const { organization, tokens } = await factories(t.db).organizationWithTokens()
      const first = await factories(t.db).project(organization.id)
      const second = await factories(t.db).project(organization.id)
      const a = (await call('POST', environmentsUrl(first.id), tokens.write.authorization, { name: 'a' })).json() as EnvironmentBody
      const b = (await call('POST', environmentsUrl(second.id), tokens.write.authorization, { name: 'b' })).json() as EnvironmentBody
      assert.equal(a.cluster_id, b.cluster_id)
      assert.equal(await defaultClusterCount(organization.id), 1)

      const other = await factories(t.db).environmentWithTokens()
      assert.notEqual(other.environment.clusterId, a.cluster_id)
    })

    it('makes a single default cluster when the first environments of an organization are created concurrently', async () => {
      const { organization, tokens } = await factories(t.db).organizationWithTokens()
      const projects = await Promise.all([factories(t.db).project(organization.id), factories(t.db).project(organization.id)])
      const responses = await Promise.all(
        Array.from({ length: 8 }, (_, i) => call('POST', environmentsUrl(projects[i % 2]!.id), tokens.write.authorization, { name: `env ${i}` })),
      )
      for (const res of responses) assert.equal(res.statusCode, 201, res.body)
      assert.equal(new Set(responses.map((res) => res.json().cluster_id)).size, 1)
      assert.equal(await defaultClusterCount(organization.id), 1)
    })

    it('accepts a cluster of the organization named in `cluster`', async () => {
      const { organization, tokens, project, environment } = await factories(t.db).environmentWithTokens()
      const res = await call('POST', environmentsUrl(project.id), tokens.write.authorization, {
        name: uniqueName('placed'),
        cluster: environment.clusterId,
      })
      assert.equal(res.statusCode, 201, res.body)
      assertEnvironmentShape(res.json(), { organizationId: organization.id, projectId: project.id })
      assert.equal(res.json().cluster_id, environment.clusterId)
    })

    it("answers 400 naming /cluster for another organization's cluster or an unknown one, and creates nothing", async () => {
      const { tokens, project } = await factories(t.db).environmentWithTokens()
      const other = await factories(t.db).environmentWithTokens()
      for (const cluster of [other.environment.clusterId, randomUUID()]) {
        const errors = assertValidationError(await call('POST', environmentsUrl(project.id), tokens.write.authorization, { name: 'placed', cluster }))
        assert.deepEqual(errors, [{ path: '/cluster', message: 'is not a cluster of this organization', location: 'body' }])
      }
      assert.equal((await call('GET', environmentsUrl(project.id), tokens.read.authorization)).json().results.length, 1)
    })

    it('answers 400 naming each invalid field: missing name, bad mode, PREVIEW mode, cluster not a uuid, auto_preview not a boolean', async () => {
      const { tokens, project } = await factories(t.db).environmentWithTokens()
      const url = environmentsUrl(project.id)
      const auth = tokens.write.authorization
      assert.deepEqual(assertValidationError(await call('POST', url, auth, { mode: 'STAGING' })), [
        { path: '/name', message: 'is required', location: 'body' },
      ])
      for (const mode of ['LIVE', 'PREVIEW', 'production']) {
        const errors = assertValidationError(await call('POST', url, auth, { name: uniqueName('mode'), mode }))
        assert.equal(errors.length, 1)
        assert.equal(errors[0]!.path, '/mode')
        assert.equal(errors[0]!.message, 'must be one of DEVELOPMENT, PRODUCTION, STAGING')
      }
      const errors = assertValidationError(await call('POST', url, auth, { name: ' ', cluster: 'not-a-uuid', auto_preview: 'yes' }))
      assert.deepEqual(errors.map((e) => e.path).sort(), ['/auto_preview', '/cluster', '/name'])
    })

    it('answers 409 for a name taken in the project in any letter case, and allows it in another project', async () => {
      const { organization, tokens, project, environment } = await factories(t.db).environmentWithTokens()
      for (const name of [environment.name.toUpperCase(), environment.name.toLowerCase(), ` ${environment.name} `]) {
        const body = assertError(await call('POST', environmentsUrl(project.id), tokens.write.authorization, { name }), 409, 'conflict')
        assert.match(body.message, /already exists/)
      }
      const another = await factories(t.db).project(organization.id)
      assert.equal((await call('POST', environmentsUrl(another.id), tokens.write.authorization, { name: environment.name })).statusCode, 201)
    })

    for (const role of ['deploy', 'read'] as const) {
      it(`refuses a ${role.toUpperCase()} token with 403 and creates nothing`, async () => {
        const { organization, tokens } = await factories(t.db).organizationWithTokens()
        const project = await factories(t.db).project(organization.id)
        assertError(await call('POST', environmentsUrl(project.id), tokens[role].authorization, { name: uniqueName('nope') }), 403, 'forbidden')
        assert.deepEqual((await call('GET', environmentsUrl(project.id), tokens.read.authorization)).json(), { results: [], has_more: false })
      })
    }

    it('answers 404 for a project of another organization or an unknown one, and 401 without credentials', async () => {
      const { tokens } = await factories(t.db).organizationWithTokens()
      const other = await factories(t.db).organization()
      const theirs = await factories(t.db).project(other.id)
      const foreign = assertError(await call('POST', environmentsUrl(theirs.id), tokens.admin.authorization, { name: 'x' }), 404, 'not_found')
      const missing = assertError(await call('POST', environmentsUrl(randomUUID()), tokens.admin.authorization, { name: 'x' }), 404, 'not_found')
      assert.equal(foreign.message, missing.message)
      assertError(await call('POST', environmentsUrl(theirs.id), undefined, { name: 'x' }), 401, 'unauthenticated')
      assert.equal(await defaultClusterCount(other.id), 0)
    })
  })

  describe('GET /project/{projectId}/environment', () => {
    it("lists the project's environments by name ignoring letter case, never another project's", async () => {
      const { organization, tokens } = await factories(t.db).organizationWithTokens()
      const project = await factories(t.db).project(organization.id)
      const sibling = await factories(t.db).project(organization.id)
      await factories(t.db).environment(sibling.id, { name: 'aaa elsewhere' })
      for (const name of ['staging', 'Dev', 'prod', 'DEV two']) await factories(t.db).environment(project.id, { name })

      const res = await call('GET', environmentsUrl(project.id), tokens.read.authorization)
      assert.equal(res.statusCode, 200)
      const results = res.json().results as EnvironmentBody[]
      assert.deepEqual(
        results.map((e) => e.name),
        ['Dev', 'DEV two', 'prod', 'staging'],
      )
      for (const environment of results) assertEnvironmentShape(environment, { organizationId: organization.id, projectId: project.id })
    })

    it('answers 404 for a project of another organization and 401 without credentials', async () => {
      const { tokens } = await factories(t.db).organizationWithTokens()
      const other = await factories(t.db).environmentWithTokens()
      assertError(await call('GET', environmentsUrl(other.project.id), tokens.admin.authorization), 404, 'not_found')
      assertError(await call('GET', environmentsUrl(other.project.id)), 401, 'unauthenticated')
    })
  })

  describe('GET /environment/{environmentId}', () => {
    it('answers 404 for an environment of another organization exactly as for one that does not exist', async () => {
      const { tokens } = await factories(t.db).organizationWithTokens()
      const other = await factories(t.db).environmentWithTokens()
      const foreign = assertError(await call('GET', `/environment/${other.environment.id}`, tokens.admin.authorization), 404, 'not_found')
      const missing = assertError(await call('GET', `/environment/${randomUUID()}`, tokens.admin.authorization), 404, 'not_found')
      assert.equal(foreign.message, missing.message)
      assert.match(foreign.message, /environment/)
      assertError(await call('GET', `/environment/${other.environment.id}`), 401, 'unauthenticated')
    })

    it('answers 400 naming the path parameter for an id that is not a uuid', async () => {
      const { tokens } = await factories(t.db).organizationWithTokens()
      const errors = assertValidationError(await call('GET', '/environment/nope', tokens.read.authorization))
      assert.deepEqual(
        errors.map((e) => [e.location, e.path]),
        [['path', '/environmentId']],
      )
    })
  })

  describe('PUT /environment/{environmentId}', () => {
    it('changes only the fields given', async () => {
      const { organization, tokens, project, environment } = await factories(t.db).environmentWithTokens()
      const url = `/environment/${environment.id}`

      const renamed = await call('PUT', url, tokens.write.authorization, { name: ' renamed ' })
      assert.equal(renamed.statusCode, 200)
      const renamedBody = renamed.json() as EnvironmentBody
      assertEnvironmentShape(renamedBody, { organizationId: organization.id, projectId: project.id })
      assert.equal(renamedBody.name, 'renamed')
      assert.equal(renamedBody.mode, 'DEVELOPMENT')
      assert.equal(renamedBody.auto_preview, false)
      assert.equal(renamedBody.created_at, environment.createdAt.toISOString())

      const moded = await call('PUT', url, tokens.write.authorization, { mode: 'PRODUCTION', auto_preview: true })
      assert.equal(moded.statusCode, 200)
      assert.equal(moded.json().name, 'renamed')
      assert.equal(moded.json().mode, 'PRODUCTION')
      assert.equal(moded.json().auto_preview, true)
      assert.deepEqual((await call('GET', url, tokens.read.authorization)).json(), moded.json())
    })

    it('accepts an empty body and changes nothing', async () => {
      const { tokens, environment } = await factories(t.db).environmentWithTokens()
      const url = `/environment/${environment.id}`
      const before = (await call('GET', url, tokens.read.authorization)).json()
      const res = await call('PUT', url, tokens.write.authorization, {})
      assert.equal(res.statusCode, 200)
      assert.deepEqual(res.json(), before)
      assert.deepEqual((await call('GET', url, tokens.read.authorization)).json(), before)
    })

    it('answers 409 for the name of another environment of the project, in any letter case', async () => {
      const { tokens, project, environment } = await factories(t.db).environmentWithTokens()
      const taken = await factories(t.db).environment(project.id, { name: uniqueName('Taken') })
      const body = assertError(
        await call('PUT', `/environment/${environment.id}`, tokens.write.authorization, { name: taken.name.toLowerCase() }),
        409,
        'conflict',
      )
      assert.match(body.message, /already exists/)
      const own = await call('PUT', `/environment/${environment.id}`, tokens.write.authorization, { name: environment.name.toUpperCase() })
      assert.equal(own.statusCode, 200)
    })

    it('answers 400 for a blank name or a PREVIEW mode', async () => {
      const { tokens, environment } = await factories(t.db).environmentWithTokens()
      const url = `/environment/${environment.id}`
      assert.equal(assertValidationError(await call('PUT', url, tokens.write.authorization, { name: '  ' }))[0]!.path, '/name')
      assert.equal(assertValidationError(await call('PUT', url, tokens.write.authorization, { mode: 'PREVIEW' }))[0]!.path, '/mode')
    })

    for (const role of ['deploy', 'read'] as const) {
      it(`refuses a ${role.toUpperCase()} token with 403 and changes nothing`, async () => {
        const { tokens, environment } = await factories(t.db).environmentWithTokens()
        const url = `/environment/${environment.id}`
        assertError(await call('PUT', url, tokens[role].authorization, { name: uniqueName('nope') }), 403, 'forbidden')
        assert.equal((await call('GET', url, tokens.read.authorization)).json().name, environment.name)
      })
    }

    it('answers 404 for an environment of another organization and 401 without credentials', async () => {
      const { tokens } = await factories(t.db).organizationWithTokens()
      const other = await factories(t.db).environmentWithTokens()
      assertError(await call('PUT', `/environment/${other.environment.id}`, tokens.admin.authorization, { name: 'steal' }), 404, 'not_found')
      assertError(await call('PUT', `/environment/${other.environment.id}`, undefined, { name: 'steal' }), 401, 'unauthenticated')
      assert.equal((await call('GET', `/environment/${other.environment.id}`, other.tokens.read.authorization)).json().name, other.environment.name)
    })
  })

  describe('DELETE /environment/{environmentId}', () => {
    it('deletes the environment, with or without skipReconcile', async () => {
      const { tokens, project, environment } = await factories(t.db).environmentWithTokens()
      const second = await factories(t.db).environment(project.id)
      const res = await call('DELETE', `/environment/${environment.id}`, tokens.write.authorization)
      assert.equal(res.statusCode, 204)
      assert.equal(res.body, '')
      assertError(await call('GET', `/environment/${environment.id}`, tokens.read.authorization), 404, 'not_found')
      assert.equal((await call('GET', `/project/${project.id}`, tokens.read.authorization)).json().associated_environments_count, 1)

      assert.equal((await call('DELETE', `/environment/${second.id}?skipReconcile=true`, tokens.write.authorization)).statusCode, 204)
      assert.deepEqual((await call('GET', environmentsUrl(project.id), tokens.read.authorization)).json(), { results: [], has_more: false })
    })

    it('answers 400 for a skipReconcile that is not a boolean', async () => {
      const { tokens, environment } = await factories(t.db).environmentWithTokens()
      const errors = assertValidationError(await call('DELETE', `/environment/${environment.id}?skipReconcile=maybe`, tokens.write.authorization))
      assert.deepEqual(
        errors.map((e) => [e.location, e.path]),
        [['query', '/skipReconcile']],
      )
    })

    for (const role of ['deploy', 'read'] as const) {
      it(`refuses a ${role.toUpperCase()} token with 403 and keeps the environment`, async () => {
        const { tokens, environment } = await factories(t.db).environmentWithTokens()
        assertError(await call('DELETE', `/environment/${environment.id}`, tokens[role].authorization), 403, 'forbidden')
        assert.equal((await call('GET', `/environment/${environment.id}`, tokens.read.authorization)).statusCode, 200)
      })
    }

    it('answers 404 for an environment of another organization and leaves it alone, 404 for an unknown id, 401 without credentials', async () => {
      const { tokens } = await factories(t.db).organizationWithTokens()
      const other = await factories(t.db).environmentWithTokens()
      assertError(await call('DELETE', `/environment/${other.environment.id}`, tokens.admin.authorization), 404, 'not_found')
      assertError(await call('DELETE', `/environment/${other.environment.id}`), 401, 'unauthenticated')
      assert.equal((await call('GET', `/environment/${other.environment.id}`, other.tokens.read.authorization)).statusCode, 200)
      assertError(await call('DELETE', `/environment/${randomUUID()}`, tokens.admin.authorization), 404, 'not_found')
    })
  })

  it('lets an organization with environments, and so a default cluster, be deleted', async () => {
    const { organization, tokens, environment } = await factories(t.db).environmentWithTokens()
    const created = await call('POST', '/organization', tokens.admin.authorization, { name: uniqueName('owned'), plan: 'FREE' })
    const owned = created.json().id as string
    const project = (await call('POST', `/organization/${owned}/project`, tokens.admin.authorization, { name: 'p' })).json()
    assert.equal((await call('POST', environmentsUrl(project.id), tokens.admin.authorization, { name: 'e' })).statusCode, 201)

    assert.equal((await call('DELETE', `/organization/${owned}`, tokens.admin.authorization)).statusCode, 204)
    assert.equal(await defaultClusterCount(owned), 0)
    assert.equal((await call('GET', `/environment/${environment.id}`, tokens.read.authorization)).statusCode, 200)
    assert.equal(await defaultClusterCount(organization.id), 1)
  })

  describe('through the official TypeScript client', () => {
    it('creates, reads and edits a project and an environment', async () => {
      const { organization, tokens } = await factories(t.db).organizationWithTokens()
      const configuration = new Configuration({ basePath: await t.listen(), apiKey: tokens.write.authorization })

      const projectName = uniqueName('client project')
      const created = await new ProjectsApi(configuration).createProject(organization.id, { name: projectName, description: 'via client' })
      assert.equal(created.status, 200)
      assert.equal(created.data.name, projectName)
      assert.equal(created.data.organization.id, organization.id)
      const projectId = created.data.id

      const projectApi = new ProjectMainCallsApi(configuration)
      assert.equal((await projectApi.getProject(projectId)).data.description, 'via client')
      const editedProject = await projectApi.editProject(projectId, { name: `${projectName} edited` })
      assert.equal(editedProject.data.name, `${projectName} edited`)
      assert.equal(editedProject.data.description, null)

      const environmentsApi = new EnvironmentsApi(configuration)
      const environment = await environmentsApi.createEnvironment(projectId, { name: 'staging', mode: 'STAGING' })
      assert.equal(environment.status, 201)
      assert.equal(environment.data.mode, 'STAGING')
      assert.equal(environment.data.project.id, projectId)
      assert.deepEqual(
        (await environmentsApi.listEnvironment(projectId)).data.results?.map((e) => e.id),
        [environment.data.id],
      )

      const environmentApi = new EnvironmentMainCallsApi(configuration)
      const read = await environmentApi.getEnvironment(environment.data.id)
      assert.equal(read.data.cluster_id, environment.data.cluster_id)
      const edited = await environmentApi.editEnvironment(environment.data.id, { name: 'production', mode: 'PRODUCTION' })
      assert.equal(edited.data.name, 'production')
      assert.equal(edited.data.mode, 'PRODUCTION')
      assert.equal((await projectApi.getProject(projectId)).data.associated_environments_count, 1)

      assert.equal((await environmentApi.deleteEnvironment(environment.data.id, true)).status, 204)
      assert.equal((await projectApi.deleteProject(projectId)).status, 204)
    })
  })
})
