import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { Configuration, MembersApi, OrganizationApiTokenApi } from 'qovery-typescript-axios'
import { apiTokenStart, digestApiToken, generateApiToken } from '#src/platform/auth/api-token-codec.ts'
import { ROLE_IDS } from '#src/platform/auth/roles.ts'
import { createTestApp, type TestApp } from './helpers/app.ts'
import { assertError, rejectedStatus } from './helpers/assertions.ts'
import { factories, uniqueName } from './helpers/factories.ts'

// Holding a custom role (issue 20): an API token holding one reads, deploys and writes exactly as
// docs/custom-roles.md's mapping says, per project, environment mode and cluster; NO_ACCESS is a 404 and
// lists leave it out; an edit of the role applies to the next request.

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE'

describe('custom roles held by API tokens and members', () => {
  let t: TestApp
  let basePath: string

  before(async () => {
    t = await createTestApp()
    basePath = await t.listen()
  })
  after(() => t.close())

  const call = (authorization: string, method: Method, url: string, payload?: object) =>
    t.app.inject({ method, url, headers: { authorization }, ...(payload ? { payload } : {}) })

  /**
   * An organization with two projects; `main` has an environment of each mode on the default
   * cluster, a DEVELOPMENT one on a second cluster, and a container in each; `hidden` one
   * environment. The role: default cluster ENV_CREATOR, second cluster VIEWER (left out); in
   * `main` DEVELOPMENT DEPLOYER, STAGING MANAGER, PRODUCTION VIEWER, PREVIEW NO_ACCESS; `hidden` NO_ACCESS.
   */
  async function fixture() {
    const f = factories(t.db)
    const { organization, tokens } = await f.organizationWithTokens()
    const admin = tokens.admin.authorization
    const main = await f.project(organization.id, uniqueName('main'))
    const hidden = await f.project(organization.id, uniqueName('hidden'))
    const [development, staging, production, preview] = await Promise.all(
      (['DEVELOPMENT', 'STAGING', 'PRODUCTION', 'DEVELOPMENT'] as const).map((mode) => f.environment(main.id, { mode })),
    )
    // Preview environments are not created through the API: one made so.
    await t.db.updateTable('environments').set({ mode: 'PREVIEW' }).where('id', '=', preview!.id).execute()
    const second = await f.cluster(organization.id, { name: uniqueName('second') })
    const elsewhere = await f.environment(main.id, { mode: 'DEVELOPMENT', clusterId: second.id })
    const hiddenEnvironment = await f.environment(hidden.id, { mode: 'DEVELOPMENT' })
    const containers = Object.fromEntries(
      await Promise.all(
        Object.entries({ development, staging, production, preview, elsewhere, hiddenEnvironment }).map(
          async ([name, environment]) => [name, (await f.containerService(environment!.id)).id] as const,
        ),
      ),
    ) as Record<'development' | 'staging' | 'production' | 'preview' | 'elsewhere' | 'hiddenEnvironment', string>
    const created = await call(admin, 'POST', `/organization/${organization.id}/customRole`, { name: uniqueName('role') })
    assert.equal(created.statusCode, 201, created.body)
    const role = created.json() as { id: string; name: string }
    const defaultCluster = development!.clusterId
    const edit = (mainPermissions: Record<string, string>, extra: object[] = []) =>
      call(admin, 'PUT', `/organization/${organization.id}/customRole/${role.id}`, {
        name: role.name,
        cluster_permissions: [{ cluster_id: defaultCluster, permission: 'ENV_CREATOR' }],
        project_permissions: [
          {
            project_id: main.id,
            permissions: Object.entries(mainPermissions).map(([environment_type, permission]) => ({ environment_type, permission })),
          },
          ...extra,
        ],
      })
    const edited = await edit({ DEVELOPMENT: 'DEPLOYER', STAGING: 'MANAGER', PRODUCTION: 'VIEWER' })
    assert.equal(edited.statusCode, 200, edited.body)
    const minted = await call(admin, 'POST', `/organization/${organization.id}/apiToken`, { name: uniqueName('custom'), role_id: role.id })
    assert.equal(minted.statusCode, 201, minted.body)
    const environments = { development: development!, staging: staging!, production: production!, preview: preview!, elsewhere: elsewhere! }
    return {
      f,
      organization,
      tokens,
      admin,
      main,
      hidden,
      environments,
      hiddenEnvironment,
      containers,
      second,
      role,
      edit,
      minted: minted.json() as { role_id: string; role_name: string; role: string },
      holder: `Token ${minted.json().token}`,
    }
  }

  it('grants per environment mode and cluster: VIEWER reads, DEPLOYER deploys, MANAGER writes, a VIEWER cluster caps at READ', async () => {
    const { holder, minted, role, environments, containers, main } = await fixture()
    assert.equal(minted.role_id, role.id)
    assert.equal(minted.role_name, role.name)
    assert.equal(minted.role, 'READ')

    const status = async (method: Method, url: string, payload?: object) => (await call(holder, method, url, payload)).statusCode
    const rename = (environmentId: string) => status('PUT', `/environment/${environmentId}`, { name: uniqueName('renamed') })
    const deploy = (environmentId: string) => status('POST', `/environment/${environmentId}/deploy`)

    // Reads: every mode it has a permission for, on either cluster.
    for (const name of ['development', 'staging', 'production', 'elsewhere'] as const) {
      assert.equal(await status('GET', `/environment/${environments[name].id}`), 200, name)
      assert.equal(await status('GET', `/container/${containers[name]}`), 200, name)
    }
    // DEPLOYER: deploys, does not write.
    assert.equal(await rename(environments.development.id), 403)
    assert.equal(await deploy(environments.development.id), 202)
    // MANAGER: writes and deploys.
    assert.equal(await rename(environments.staging.id), 200)
    assert.equal(await deploy(environments.staging.id), 202)
    // VIEWER: reads only.
    assert.equal(await deploy(environments.production.id), 403)
    assert.equal(await rename(environments.production.id), 403)
    const denied = await call(holder, 'POST', `/environment/${environments.production.id}/deploy`)
    assertError(denied, 403, 'forbidden')
    // DEPLOYER on a cluster the role leaves at VIEWER: read only.
    assert.equal(await deploy(environments.elsewhere.id), 403)
    // A new environment needs MANAGER in its mode, on a cluster the role may deploy to.
    const create = (mode: string, cluster?: string) =>
      status('POST', `/project/${main.id}/environment`, { name: uniqueName('new'), mode, ...(cluster ? { cluster } : {}) })
    assert.equal(await create('STAGING'), 201)
    assert.equal(await create('PRODUCTION'), 403)
    assert.equal(await create('STAGING', environments.elsewhere.clusterId), 403)
    // Moving an environment to a mode it may not write there is refused.
    assert.equal(await status('PUT', `/environment/${environments.staging.id}`, { mode: 'PRODUCTION' }), 403)
    // Never more than READ on the organization's own resources, and never on a project as a whole.
    assert.equal(await status('GET', `/organization/${main.organizationId}/cluster`), 200)
    assert.equal(await status('POST', `/organization/${main.organizationId}/project`, { name: uniqueName('p') }), 403)
    assert.equal(await status('PUT', `/project/${main.id}`, { name: uniqueName('p') }), 403)
    assert.equal(await status('GET', `/organization/${main.organizationId}/member`), 403)
  })

  it('answers NO_ACCESS with 404, as for another organization, and leaves it out of lists', async () => {
    const { holder, environments, containers, main, hidden, hiddenEnvironment, organization } = await fixture()
    const status = async (url: string) => (await call(holder, 'GET', url)).statusCode
    assert.equal(await status(`/project/${hidden.id}`), 404)
    assert.equal(await status(`/project/${hidden.id}/environment`), 404)
    assert.equal(await status(`/environment/${hiddenEnvironment.id}`), 404)
    assert.equal(await status(`/environment/${environments.preview.id}`), 404)
    assert.equal(await status(`/container/${containers.preview}`), 404)
    assert.equal(await status(`/container/${containers.hiddenEnvironment}`), 404)
    assert.equal(await status(`/environment/${environments.preview.id}/deploymentHistory`), 404)
    assertError(await call(holder, 'POST', `/environment/${environments.preview.id}/deploy`), 404, 'not_found')

    const projects = await call(holder, 'GET', `/organization/${organization.id}/project`)
    assert.deepEqual(
      projects.json().results.map((project: { id: string }) => project.id),
      [main.id],
    )
    const listed = await call(holder, 'GET', `/project/${main.id}/environment`)
    assert.deepEqual(
      new Set(listed.json().results.map((environment: { id: string }) => environment.id)),
      new Set(['development', 'staging', 'production', 'elsewhere'].map((name) => environments[name as keyof typeof environments].id)),
    )
  })

  it('applies an edit of the role to the very next request; is_admin writes the whole project', async () => {
    const { holder, edit, environments, hidden, hiddenEnvironment } = await fixture()
    assert.equal((await call(holder, 'GET', `/environment/${environments.development.id}`)).statusCode, 200)
    const edited = await edit({ STAGING: 'MANAGER' }, [{ project_id: hidden.id, is_admin: true }])
    assert.equal(edited.statusCode, 200, edited.body)
    assert.equal((await call(holder, 'GET', `/environment/${environments.development.id}`)).statusCode, 404)
    assert.equal((await call(holder, 'PUT', `/project/${hidden.id}`, { name: uniqueName('mine') })).statusCode, 200)
    // is_admin: WRITE in every environment of the project on a cluster the role may deploy to.
    assert.equal((await call(holder, 'PUT', `/environment/${hiddenEnvironment.id}`, { name: uniqueName('mine') })).statusCode, 200)
    assert.equal((await call(holder, 'DELETE', `/project/${hidden.id}`)).statusCode, 204)
  })

  it('takes a custom role only of the same organization, lets its holder pass on only that role, and keeps a held role from deletion', async () => {
    const { holder, role, admin, organization, tokens } = await fixture()
    const other = await factories(t.db).organizationWithTokens()
    const foreign = await call(other.tokens.admin.authorization, 'POST', `/organization/${other.organization.id}/apiToken`, {
      name: uniqueName('x'),
      role_id: role.id,
    })
    assertError(foreign, 400, 'validation_failed')
    assert.equal(foreign.json().errors[0].path, '/role_id')
    assert.equal((await call(holder, 'GET', `/organization/${other.organization.id}/project`)).statusCode, 404)

    const mint = (by: string, body: object) => call(by, 'POST', `/organization/${organization.id}/apiToken`, { name: uniqueName('t'), ...body })
    assert.equal((await mint(holder, { role: 'READ' })).statusCode, 403, 'READ sees projects the role hides')
    assert.equal((await mint(holder, { role_id: role.id })).statusCode, 201)
    assert.equal((await mint(tokens.deploy.authorization, { role_id: role.id })).statusCode, 403, 'a custom role may grant WRITE')
    assert.equal((await mint(tokens.write.authorization, { role_id: role.id })).statusCode, 201)

    const deleted = await call(admin, 'DELETE', `/organization/${organization.id}/customRole/${role.id}`)
    assertError(deleted, 409, 'conflict')
  })

  it("bounds a member's tokens by its custom role: given one, they all hold it; back to READ, they are READ", async () => {
    const { admin, organization, role, environments } = await fixture()
    const user = await t.db
      .insertInto('users')
      .values({ issuer: 'https://issuer.example', subject: uniqueName('sub'), name: 'Owner', email: null })
      .returning('id')
      .executeTakeFirstOrThrow()
    await t.db.insertInto('organizationMembers').values({ organizationId: organization.id, userId: user.id, role: 'WRITE' }).execute()
    // A WRITE token the member made (as through a Bearer JWT).
    const secret = generateApiToken()
    await t.db
      .insertInto('apiTokens')
      .values({
        organizationId: organization.id,
        name: uniqueName('owned'),
        description: null,
        role: 'WRITE',
        digest: digestApiToken(secret),
        tokenStart: apiTokenStart(secret),
        createdByApiTokenId: null,
        createdByUserId: user.id,
        ownerUserId: user.id,
      })
      .execute()
    const owned = `Token ${secret}`
    assert.equal((await call(owned, 'PUT', `/environment/${environments.production.id}`, { name: uniqueName('w') })).statusCode, 200)

    const given = await call(admin, 'PUT', `/organization/${organization.id}/member/${user.id}`, { role_id: role.id })
    assert.equal(given.statusCode, 200, given.body)
    assert.equal(given.json().role_id, role.id)
    assert.equal((await call(owned, 'PUT', `/environment/${environments.production.id}`, { name: uniqueName('w') })).statusCode, 403)
    assert.equal((await call(owned, 'GET', `/environment/${environments.preview.id}`)).statusCode, 404)

    assert.equal((await call(admin, 'PUT', `/organization/${organization.id}/member/${user.id}`, { role_id: ROLE_IDS.READ })).statusCode, 200)
    assert.equal((await call(owned, 'GET', `/environment/${environments.preview.id}`)).statusCode, 200)
    const row = await t.db.selectFrom('apiTokens').select(['role', 'customRoleId']).where('ownerUserId', '=', user.id).executeTakeFirstOrThrow()
    assert.deepEqual(row, { role: 'READ', customRoleId: null })
  })

  it("serves the provider's qovery_organization_member and API token calls with a custom role through the official client", async () => {
    const { admin, organization, role } = await fixture()
    const configuration = new Configuration({ basePath, apiKey: admin })
    const members = new MembersApi(configuration)

    const { data: invited } = await members.postInviteMember(organization.id, { email: 'grace@example.com', role_id: role.id })
    assert.equal(invited.role_id, role.id)
    assert.equal(invited.role_name, role.name)
    assert.deepEqual((await members.getMemberInvitation(organization.id, invited.id)).data, invited)
    const other = await factories(t.db).organizationWithTokens()
    const theirs = new MembersApi(new Configuration({ basePath, apiKey: other.tokens.admin.authorization }))
    assert.equal(await rejectedStatus(theirs.postInviteMember(other.organization.id, { email: 'g@example.com', role_id: role.id })), 400)
    assert.equal(await rejectedStatus(members.postInviteMember(other.organization.id, { email: 'g@example.com', role_id: role.id })), 404)

    // A member given the custom role through the official client's edit; the user signs in once.
    const user = await t.db
      .insertInto('users')
      .values({ issuer: 'https://issuer.example', subject: uniqueName('sub'), name: 'Grace', email: 'grace@example.com' })
      .returning('id')
      .executeTakeFirstOrThrow()
    await t.db.insertInto('organizationMembers').values({ organizationId: organization.id, userId: user.id, role: 'WRITE' }).execute()
    await members.editOrganizationMemberRole(organization.id, { user_id: user.id, role_id: role.id })
    const listed = (await members.getOrganizationMembers(organization.id)).data.results?.find((member) => member.id === user.id)
    assert.equal(listed?.role_id, role.id)
    assert.equal(listed?.role_name, role.name)
    await members.editOrganizationMemberRole(organization.id, { user_id: user.id, role_id: ROLE_IDS.READ })
    const back = (await members.getOrganizationMembers(organization.id)).data.results?.find((member) => member.id === user.id)
    assert.equal(back?.role_id, ROLE_IDS.READ)

    const tokensApi = new OrganizationApiTokenApi(configuration)
    const { data: token } = await tokensApi.createOrganizationApiToken(organization.id, { name: uniqueName('tf'), role_id: role.id })
    assert.equal(token.role_id, role.id)
    assert.equal(token.role_name, role.name)
    const { data: tokenList } = await tokensApi.listOrganizationApiTokens(organization.id)
    const found = tokenList.results?.find((candidate) => candidate.id === token.id)
    assert.equal(found?.role_id, role.id)
    assert.equal(found?.role_name, role.name)
  })
})
