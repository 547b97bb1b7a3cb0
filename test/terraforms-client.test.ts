import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import {
  Configuration,
  TerraformActionsApi,
  TerraformConfigurationApi,
  TerraformDeploymentHistoryApi,
  TerraformDeploymentRestrictionApi,
  TerraformMainCallsApi,
  TerraformResourcesApi,
  TerraformsApi,
} from 'qovery-typescript-axios'
import { assertError } from './helpers/assertions.ts'
import {
  createDeploymentsApp,
  type DeploymentCalls,
  type DeploymentsTestApp,
  deploymentCalls,
  type EnvironmentEntry,
  until,
} from './helpers/deployments.ts'
import { factories } from './helpers/factories.ts'
import { type FakeProvider, startFakeProvider } from './helpers/fake-git-providers.ts'
import { terraformRequest as request } from './helpers/terraform-requests.ts'

// IAC services (the reference's "terraform") through the official TypeScript client and app.inject,
// with the simulated executor: every operation of the Terraform tags, the sub-actions and trigger
// actions the history records, and what the request rules refuse.

let t: DeploymentsTestApp
let basePath: string
let calls: DeploymentCalls
let github: FakeProvider
const HEAD = 'c3'.repeat(20)

before(async () => {
  t = await createDeploymentsApp(10, { BERTH_GIT_ALLOW_PRIVATE_URLS: 'true' })
  basePath = await t.listen()
  calls = deploymentCalls(t.app)
  github = await startFakeProvider('github')
  github.repositories.set('acme/infra', {
    defaultBranch: 'main',
    branches: [{ name: 'main', sha: HEAD }],
    commits: [{ sha: HEAD, message: 'Add the bucket', authorName: 'Ada Lovelace', date: '2024-03-03T10:00:00Z' }],
    tags: [],
  })
  github.tokens.add('token-github')
})
after(async () => {
  await t?.close()
  await github?.close()
})

describe('terraform services through the official client', () => {
  it('creates, reads, lists, edits, clones, deploys, plans, unlocks, uninstalls and deletes', async () => {
    const f = factories(t.db)
    const { organization, environment, tokens } = await f.environmentWithTokens()
    const gitToken = await f.gitToken(organization.id, { type: 'GITHUB', token: 'token-github', gitApiUrl: github.url })
    const configuration = new Configuration({ basePath, apiKey: tokens.admin.authorization })
    const terraforms = new TerraformsApi(configuration)
    const main = new TerraformMainCallsApi(configuration)
    const actions = new TerraformActionsApi(configuration)
    const settings = new TerraformConfigurationApi(configuration)
    const history = new TerraformDeploymentHistoryApi(configuration)
    const restrictions = new TerraformDeploymentRestrictionApi(configuration)
    const resources = new TerraformResourcesApi(configuration)

    const body = request()
    body.terraform_files_source = { git_repository: { ...body.terraform_files_source.git_repository!, git_token_id: gitToken.id } }
    const created = (await terraforms.createTerraform(environment.id, body)).data
    assert.equal(created.service_type, 'IAC')
    assert.equal(created.engine, 'OPEN_TOFU')
    assert.deepEqual(created.backend, { kubernetes: {} })
    assert.deepEqual(created.provider_version, { explicit_version: '1.9.4', read_from_terraform_block: false })
    assert.equal(created.terraform_files_source?.git?.git_repository?.root_path, '/envs/prod')
    assert.equal(created.terraform_files_source?.git?.git_repository?.git_token_id, gitToken.id)
    // A secret's value is never shown again.
    assert.deepEqual(created.terraform_variables_source.tf_vars, [
      { key: 'region', value: 'eu-west-3', secret: false },
      { key: 'db_password', secret: true },
    ])
    assert.doesNotMatch(JSON.stringify(created), /s3cr3t-value/)
    assert.deepEqual(created.action_extra_arguments, { apply: ['-parallelism=2'] })
    assert.equal(created.timeout_sec, 300)
    assert.deepEqual(created.auto_deploy_config, { auto_deploy: false, terraform_action: 'DEFAULT' })

    assert.equal((await main.getTerraform(created.id)).data.name, 'infra')
    assert.deepEqual(
      (await terraforms.listTerraforms(environment.id)).data.results?.map((service) => service.id),
      [created.id],
    )
    // An edit that gives a secret without a value keeps the one stored.
    const edited = (
      await main.editTerraform(created.id, {
        ...body,
        name: 'infra-v2',
        terraform_variables_source: { tf_var_file_paths: [], tf_vars: [{ key: 'db_password', secret: true }] },
      })
    ).data
    assert.equal(edited.name, 'infra-v2')
    assert.deepEqual(edited.terraform_variables_source.tf_vars, [{ key: 'db_password', secret: true }])
    const [stored] = await t.db.selectFrom('services').select('configuration').where('id', '=', created.id).execute()
    const tfVars = (stored!.configuration as { tfVars: { key: string; sealed?: string }[] }).tfVars
    assert.ok(tfVars[0]?.sealed && !tfVars[0].sealed.includes('s3cr3t'), 'the secret stays sealed')

    // Versions, commits, advanced settings, restrictions, resources.
    const versions = (await main.listTerraformVersions()).data.results ?? []
    assert.ok(versions.some((version) => version.engine === 'OPEN_TOFU' && version.version === '1.9.4'))
    assert.ok(versions.some((version) => version.engine === 'TERRAFORM'))
    const commits = (await main.listTerraformCommit(created.id)).data.results ?? []
    assert.deepEqual(
      commits.map((commit) => [commit.git_commit_id, commit.author_name]),
      [[HEAD, 'Ada Lovelace']],
    )
    const advanced = (await settings.getTerraformAdvancedSettings(created.id)).data
    assert.equal(advanced['build.timeout_max_sec'], 1800)
    const changed = (await settings.editTerraformAdvancedSettings(created.id, { ...advanced, 'build.timeout_max_sec': 600 })).data
    assert.equal(changed['build.timeout_max_sec'], 600)
    assert.equal((await terraforms.getDefaultTerraformAdvancedSettings()).data['build.timeout_max_sec'], 1800)
    const restriction = (await restrictions.createTerraformDeploymentRestriction(created.id, { mode: 'MATCH', type: 'PATH', value: 'envs/' })).data
    assert.equal((await restrictions.getTerraformDeploymentRestrictions(created.id)).data.results?.[0]?.id, restriction.id)
    await restrictions.editTerraformDeploymentRestriction(created.id, restriction.id, { mode: 'EXCLUDE', type: 'PATH', value: 'docs/' })
    await restrictions.deleteTerraformDeploymentRestriction(created.id, restriction.id)
    assert.deepEqual((await resources.getTerraformResources(created.id)).data, { results: [] })

    // A deploy plans and applies; PLAN stops after the plan; FORCE_UNLOCK is a trigger of its own.
    const auth = tokens.deploy.authorization
    assert.equal((await actions.deployTerraform(created.id, { git_commit_id: HEAD })).data.state, 'DEPLOYMENT_QUEUED')
    await calls.waitUntilIdle(environment.id, auth)
    await actions.deployTerraform(created.id, { action: 'PLAN' })
    await calls.waitUntilIdle(environment.id, auth)
    await actions.deployTerraform(created.id, { action: 'FORCE_UNLOCK' })
    await calls.waitUntilIdle(environment.id, auth)
    await actions.redeployTerraform(created.id)
    await calls.waitUntilIdle(environment.id, auth)

    const entries = (await history.listTerraformDeploymentHistoryV2(created.id)).data.results ?? []
    assert.deepEqual(
      entries.map((entry) => [entry.status, entry.status_details.action, entry.status_details.sub_action]),
      [
        ['RESTARTED', 'RESTART', 'IAC_PLAN_AND_APPLY'],
        ['DEPLOYED', 'DEPLOY', 'IAC_FORCE_UNLOCK_STATE'],
        ['DEPLOYED', 'DEPLOY', 'IAC_PLAN_ONLY'],
        ['DEPLOYED', 'DEPLOY', 'IAC_PLAN_AND_APPLY'],
      ],
    )
    const oldest = entries.at(-1)!
    assert.equal(oldest.identifier.service_type, 'IAC')
    assert.deepEqual(oldest.details, { commit: null, git_commit_id: HEAD, engine: 'OPEN_TOFU', engine_version: '1.9.4' })
    const environmentHistory = await calls.inject('GET', `/environment/${environment.id}/deploymentHistoryV2`, auth)
    assert.deepEqual(
      (environmentHistory.json().results as EnvironmentEntry[]).map((entry) => entry.trigger_action),
      ['RESTART', 'IAC_FORCE_UNLOCK', 'DEPLOY', 'DEPLOY'],
    )

    // Uninstall destroys; SKIP_DESTROY forgets without destroying.
    await actions.uninstallTerraform(created.id, 'SKIP_DESTROY', {})
    await calls.waitUntilIdle(environment.id, auth)
    await actions.deployTerraform(created.id, {})
    await calls.waitUntilIdle(environment.id, auth)
    await actions.uninstallTerraform(created.id, undefined, {})
    await calls.waitUntilIdle(environment.id, auth)
    const [destroyed, , skipped] = (await history.listTerraformDeploymentHistoryV2(created.id)).data.results ?? []
    assert.deepEqual([destroyed?.status, destroyed?.status_details.sub_action], ['DELETED', 'IAC_DESTROY'])
    assert.deepEqual([skipped?.status, skipped?.status_details.sub_action], ['DELETED', 'NONE'])

    // A clone is a create in the target environment, its secrets sealed as stored.
    const target = await f.environment(environment.projectId)
    const clone = (await terraforms.cloneTerraform(created.id, { name: 'infra-copy', environment_id: target.id })).data
    assert.equal(clone.name, 'infra-copy')
    assert.deepEqual(clone.terraform_variables_source.tf_vars, [{ key: 'db_password', secret: true }])

    await main.deleteTerraform(created.id)
    await until(
      () =>
        main.getTerraform(created.id).then(
          (res) => res.status,
          (error) => error.response?.status,
        ),
      (status) => status === 404,
      { what: 'the terraform deleted' },
    )
  })

  it('refuses what the request rules forbid, every error at once', async () => {
    const f = factories(t.db)
    const { environment, tokens } = await f.environmentWithTokens()
    const response = await calls.inject('POST', `/environment/${environment.id}/terraform`, tokens.write.authorization, {
      ...request(),
      backend: { kubernetes: {}, user_provided: {} },
      provider_version: { explicit_version: 'latest' },
      terraform_variables_source: {
        tf_var_file_paths: ['../secrets.tfvars'],
        tf_vars: [{ key: 'a', value: '1' }, { key: 'a', value: '2' }, { key: 'b' }],
      },
      action_extra_arguments: { rm: ['-rf'] },
      dockerfile_fragment: { type: 'inline' },
    })
    assertError(response, 400, 'validation_failed')
    const paths = (response.json().errors as { path: string }[]).map((error) => error.path).sort()
    assert.deepEqual(paths, [
      '/action_extra_arguments/rm',
      '/backend',
      '/dockerfile_fragment/content',
      '/provider_version/explicit_version',
      '/terraform_variables_source/tf_var_file_paths/0',
      '/terraform_variables_source/tf_vars/1/key',
      '/terraform_variables_source/tf_vars/2/value',
    ])
    const wrongEngine = await calls.inject('POST', `/environment/${environment.id}/terraform`, tokens.write.authorization, {
      ...request(),
      engine: 'PULUMI',
    })
    assertError(wrongEngine, 400, 'validation_failed')
    const readOnly = await calls.inject('POST', `/environment/${environment.id}/terraform`, tokens.read.authorization, request())
    assertError(readOnly, 403, 'forbidden')
  })
})
