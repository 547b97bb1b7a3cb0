import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import {
  Configuration,
  EnvironmentModeEnum,
  OrganizationCustomRoleApi,
  OrganizationCustomRoleClusterPermission,
  OrganizationCustomRoleProjectPermission,
  type OrganizationCustomRoleUpdateRequest,
} from 'qovery-typescript-axios'
import { createTestApp, type TestApp } from './helpers/app.ts'
import { assertError, rejectedStatus } from './helpers/assertions.ts'
import { factories } from './helpers/factories.ts'

// Custom roles (issue 20) through the official client, with the calls the Terraform provider's
// qovery_custom_role makes: a create of name and description, then a full edit built from the
// matrix the create answered (every cluster and project), with the declared entries over the defaults.

describe('custom roles through the official client', () => {
  let t: TestApp
  let basePath: string

  before(async () => {
    t = await createTestApp()
    basePath = await t.listen()
  })
  after(() => t.close())

  const roles = (authorization: string) => new OrganizationCustomRoleApi(new Configuration({ basePath, apiKey: authorization }))

  it("replays the provider's qovery_custom_role: create, edit over the full matrix, read, update, delete, read → 404", async () => {
    const f = factories(t.db)
    const { organization, tokens, project, environment } = await f.environmentWithTokens()
    const other = await f.project(organization.id, 'b-other')
    const { clusterId } = await t.db.selectFrom('environments').select('clusterId').where('id', '=', environment.id).executeTakeFirstOrThrow()
    const api = roles(tokens.admin.authorization)

    const { data: created, status } = await api.createOrganizationCustomRole(organization.id, { name: 'deployers', description: 'ship it' })
    assert.equal(status, 201)
    assert.equal(created.name, 'deployers')
    assert.equal(created.description, 'ship it')
    assert.deepEqual(created.cluster_permissions, [{ cluster_id: clusterId, cluster_name: 'default', permission: 'VIEWER' }])
    assert.deepEqual(
      created.project_permissions?.map((entry) => [
        entry.project_id,
        entry.is_admin,
        entry.permissions?.map((p) => `${p.environment_type}:${p.permission}`),
      ]),
      [project, other]
        .sort((a, b) => a.name.toLowerCase().localeCompare(b.name.toLowerCase()))
        .map((p) => [p.id, false, ['DEVELOPMENT:NO_ACCESS', 'PREVIEW:NO_ACCESS', 'STAGING:NO_ACCESS', 'PRODUCTION:NO_ACCESS']]),
    )

    // The provider's edit: every entry of the matrix, declared ones winning, the rest at the defaults.
    const edit = (declared: { clusterPermission: OrganizationCustomRoleClusterPermission; development: OrganizationCustomRoleProjectPermission }) =>
      ({
        name: 'deployers',
        description: 'ship it',
        cluster_permissions: created.cluster_permissions?.map((entry) => ({ cluster_id: entry.cluster_id, permission: declared.clusterPermission })),
        project_permissions: created.project_permissions?.map((entry) =>
          entry.project_id === project.id
            ? {
                project_id: entry.project_id,
                is_admin: false,
                permissions: [
                  { environment_type: EnvironmentModeEnum.DEVELOPMENT, permission: declared.development },
                  { environment_type: EnvironmentModeEnum.PREVIEW, permission: OrganizationCustomRoleProjectPermission.NO_ACCESS },
                  { environment_type: EnvironmentModeEnum.STAGING, permission: OrganizationCustomRoleProjectPermission.VIEWER },
                  { environment_type: EnvironmentModeEnum.PRODUCTION, permission: OrganizationCustomRoleProjectPermission.NO_ACCESS },
                ],
              }
            : { project_id: entry.project_id, is_admin: true },
        ),
      }) as OrganizationCustomRoleUpdateRequest
    const { data: edited } = await api.editOrganizationCustomRole(
      organization.id,
      created.id!,
      edit({ clusterPermission: OrganizationCustomRoleClusterPermission.ENV_CREATOR, development: OrganizationCustomRoleProjectPermission.DEPLOYER }),
    )
    assert.deepEqual(edited.cluster_permissions?.[0]?.permission, 'ENV_CREATOR')
    const mine = edited.project_permissions?.find((entry) => entry.project_id === project.id)
    assert.deepEqual(
      mine?.permissions?.map((p) => `${p.environment_type}:${p.permission}`),
      ['DEVELOPMENT:DEPLOYER', 'PREVIEW:NO_ACCESS', 'STAGING:VIEWER', 'PRODUCTION:NO_ACCESS'],
    )
    const admin = edited.project_permissions?.find((entry) => entry.project_id === other.id)
    assert.equal(admin?.is_admin, true)
    assert.deepEqual((await api.getOrganizationCustomRole(organization.id, created.id!)).data, edited)

    // Update: the provider reads the role first, then edits it.
    await api.getOrganizationCustomRole(organization.id, created.id!)
    const { data: updated } = await api.editOrganizationCustomRole(
      organization.id,
      created.id!,
      edit({ clusterPermission: OrganizationCustomRoleClusterPermission.VIEWER, development: OrganizationCustomRoleProjectPermission.MANAGER }),
    )
    assert.equal(updated.cluster_permissions?.[0]?.permission, 'VIEWER')
    assert.deepEqual((await api.listOrganizationCustomRoles(organization.id)).data.results, [updated])

    assert.equal((await api.deleteOrganizationCustomRole(organization.id, created.id!)).status, 204)
    assert.equal(await rejectedStatus(api.getOrganizationCustomRole(organization.id, created.id!)), 404)
  })

  it('refuses reserved and taken names, and clusters or projects of no such organization, naming the field', async () => {
    const f = factories(t.db)
    const { organization, tokens } = await f.organizationWithTokens()
    const stranger = await f.environmentWithTokens()
    const headers = { authorization: tokens.admin.authorization }
    const url = `/organization/${organization.id}/customRole`
    assertError(await t.app.inject({ method: 'POST', url, headers, payload: { name: 'Admin' } }), 400, 'validation_failed')
    const first = await t.app.inject({ method: 'POST', url, headers, payload: { name: 'ops' } })
    assert.equal(first.statusCode, 201)
    assertError(await t.app.inject({ method: 'POST', url, headers, payload: { name: 'OPS' } }), 409, 'conflict')
    const edit = await t.app.inject({
      method: 'PUT',
      url: `${url}/${first.json().id}`,
      headers,
      payload: { name: 'ops', cluster_permissions: [], project_permissions: [{ project_id: stranger.project.id, is_admin: true }] },
    })
    assert.deepEqual(
      assertError(edit, 400, 'validation_failed').errors?.map((error) => error.path),
      ['/project_permissions/0/project_id'],
    )
  })

  it('lets every member read roles and only ADMINs write them; another organization sees a 404', async () => {
    const { organization, tokens } = await factories(t.db).organizationWithTokens()
    const other = await factories(t.db).organizationWithTokens()
    const { data: role } = await roles(tokens.admin.authorization).createOrganizationCustomRole(organization.id, { name: 'readers' })
    assert.equal((await roles(tokens.read.authorization).getOrganizationCustomRole(organization.id, role.id!)).status, 200)
    assert.equal(await rejectedStatus(roles(tokens.write.authorization).createOrganizationCustomRole(organization.id, { name: 'x' })), 403)
    assert.equal(await rejectedStatus(roles(tokens.write.authorization).deleteOrganizationCustomRole(organization.id, role.id!)), 403)
    assert.equal(await rejectedStatus(roles(other.tokens.admin.authorization).getOrganizationCustomRole(organization.id, role.id!)), 404)
    assert.equal(await rejectedStatus(roles(other.tokens.admin.authorization).deleteOrganizationCustomRole(other.organization.id, role.id!)), 404)
  })
})
