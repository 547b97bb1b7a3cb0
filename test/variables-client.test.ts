import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import {
  APIVariableScopeEnum,
  Configuration,
  EnvironmentSecretApi,
  EnvironmentVariableApi,
  ProjectEnvironmentVariableApi,
  ProjectSecretApi,
  ServiceTypeForVariableEnum,
  VariableMainCallsApi,
} from 'qovery-typescript-axios'
import { createTestApp, type TestApp } from './helpers/app.ts'
import { rejectedStatus } from './helpers/assertions.ts'
import { factories } from './helpers/factories.ts'

// Variables and secrets through the official TypeScript client, as the CLI (generic API) and the
// Terraform provider (both APIs) call them: the same store whichever API wrote it.

describe('variables and secrets through the official client', () => {
  let t: TestApp
  let basePath: string

  before(async () => {
    t = await createTestApp()
    basePath = await t.listen()
  })
  after(() => t.close())

  it('runs the lifecycle the CLI and the Terraform provider run, at every scope', async () => {
    const f = factories(t.db)
    const { environment, project, tokens } = await f.environmentWithTokens()
    const helm = await f.helmService(environment.id)
    const configuration = new Configuration({ basePath, apiKey: tokens.write.authorization })
    const main = new VariableMainCallsApi(configuration)
    const projectVariables = new ProjectEnvironmentVariableApi(configuration)
    const projectSecrets = new ProjectSecretApi(configuration)
    const environmentVariables = new EnvironmentVariableApi(configuration)
    const environmentSecrets = new EnvironmentSecretApi(configuration)

    // The project's, through its own API; read through the generic one.
    const base = (await projectVariables.createProjectEnvironmentVariable(project.id, { key: 'API_URL', value: 'https://api', description: 'where' }))
      .data
    assert.equal(base.scope, 'PROJECT')
    assert.equal(base.variable_type, 'VALUE')
    const secret = (await projectSecrets.createProjectSecret(project.id, { key: 'API_TOKEN', value: 'client-secret-value' })).data
    assert.ok(!('value' in secret), 'a secret has no value')
    const listed = (await main.listVariables(project.id, APIVariableScopeEnum.PROJECT)).data.results ?? []
    assert.deepEqual(listed.map((v) => [v.key, v.value, v.is_secret]).sort(), [
      ['API_TOKEN', null, true],
      ['API_URL', 'https://api', false],
    ])

    // The environment overrides and aliases them, through its API.
    const override = (await environmentVariables.createEnvironmentEnvironmentVariableOverride(environment.id, base.id, { value: 'https://staging' }))
      .data
    assert.equal(override.key, 'API_URL')
    assert.equal(override.overridden_variable?.id, base.id)
    const secretAlias = (await environmentSecrets.createEnvironmentSecretAlias(environment.id, secret.id, { key: 'TOKEN' })).data
    assert.equal(secretAlias.aliased_secret?.id, secret.id)
    const environmentList = (await environmentVariables.listEnvironmentEnvironmentVariable(environment.id)).data.results ?? []
    assert.ok(environmentList.some((v) => v.key === 'QOVERY_ENVIRONMENT_ID' && v.scope === 'BUILT_IN' && v.variable_type === 'BUILT_IN'))
    assert.ok(environmentList.every((v) => typeof v.value === 'string'))

    // The helm service, through the generic API only (the provider's helm resource does so).
    const own = (
      await main.createVariable({
        key: 'REPLICAS',
        value: '2',
        is_secret: false,
        variable_scope: APIVariableScopeEnum.HELM,
        variable_parent_id: helm.id,
      })
    ).data
    assert.equal(own.service_id, helm.id)
    const file = (
      await main.createVariable({
        key: 'SETTINGS',
        value: 'a=1',
        mount_path: '/etc/settings.ini',
        is_secret: true,
        variable_scope: APIVariableScopeEnum.HELM,
        variable_parent_id: helm.id,
      })
    ).data
    assert.equal(file.variable_type, 'FILE')
    assert.equal(file.value, null)
    const alias = (await main.createVariableAlias(base.id, { key: 'URL', alias_scope: APIVariableScopeEnum.HELM, alias_parent_id: helm.id })).data
    assert.equal(alias.value, 'API_URL')
    const edited = (await main.editVariable(own.id, { key: 'REPLICAS', value: '3', description: null })).data
    assert.equal(edited.value, '3')
    const helmList = (await main.listVariables(helm.id, APIVariableScopeEnum.HELM, false)).data.results ?? []
    for (const key of ['API_URL', 'REPLICAS', 'URL', 'QOVERY_HELM_ID'])
      assert.ok(
        helmList.some((v) => v.key === key),
        key,
      )
    assert.ok(!helmList.some((v) => v.is_secret))

    const imported = (
      await main.importEnvironmentVariables(helm.id, ServiceTypeForVariableEnum.HELM, {
        overwrite: false,
        vars: [{ name: 'FROM_DOTENV', value: 'yes', scope: APIVariableScopeEnum.HELM, is_secret: false }],
      })
    ).data
    assert.equal(imported.total_variables_to_import, 1)
    assert.deepEqual(
      imported.successful_imported_variables.map((v) => v.name),
      ['FROM_DOTENV'],
    )

    // Deleting the project's variable takes its override and aliases; deleting one of them after is a 404 the provider ignores.
    await main.deleteVariable(base.id)
    assert.equal(await rejectedStatus(main.deleteVariable(alias.id)), 404)
    assert.equal(await rejectedStatus(environmentVariables.deleteEnvironmentEnvironmentVariable(environment.id, override.id)), 404)
    await environmentSecrets.deleteEnvironmentSecret(environment.id, secretAlias.id)
    await projectSecrets.editProjectSecret(project.id, secret.id, { key: 'API_TOKEN', value: 'rotated' })
    assert.equal(await rejectedStatus(projectSecrets.deleteProjectSecret(project.id, own.id)), 404, 'a variable is no secret')

    const readOnly = new VariableMainCallsApi(new Configuration({ basePath, apiKey: tokens.read.authorization }))
    assert.equal((await readOnly.listVariables(helm.id, APIVariableScopeEnum.HELM)).status, 200)
    assert.equal(await rejectedStatus(readOnly.deleteVariable(own.id)), 403)
  })
})
