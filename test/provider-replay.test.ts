import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import {
  APIVariableScopeEnum,
  Configuration,
  CreateEnvironmentModeEnum,
  DatabaseAccessibilityEnum,
  DatabaseMainCallsApi,
  DatabaseModeEnum,
  DatabasesApi,
  DatabaseTypeEnum,
  DeploymentStageMainCallsApi,
  EnvironmentActionsApi,
  EnvironmentMainCallsApi,
  EnvironmentSecretApi,
  EnvironmentsApi,
  EnvironmentVariableApi,
  GitProviderEnum,
  HelmRepositoriesApi,
  HelmRepositoryKindEnum,
  OrganizationApiTokenApi,
  OrganizationMainCallsApi,
  ProjectEnvironmentVariableApi,
  ProjectMainCallsApi,
  ProjectSecretApi,
  ProjectsApi,
  TerraformConfigurationApi,
  TerraformEngineEnum,
  TerraformMainCallsApi,
  type TerraformRequest,
  TerraformsApi,
  VariableMainCallsApi,
} from 'qovery-typescript-axios'
import { ROLE_IDS } from '#src/platform/auth/roles.ts'
import { rejectedStatus } from './helpers/assertions.ts'
import { createDeploymentsApp, type DeploymentsTestApp, until } from './helpers/deployments.ts'
import { factories, uniqueName } from './helpers/factories.ts'
import { servedWord } from './helpers/go-client-words.ts'

// The Terraform provider's resources that only wrap one Berth resource, replayed call for call as
// its source sequences them (internal/application/services and internal/infrastructure/
// repositories/qoveryapi): create with its body, the reads of its refresh, update, refresh, import
// (the same reads by id), delete, and the read after the delete answering 404. Each asserts that
// what the provider wrote is what it reads back on the fields its state mapping keeps.

let t: DeploymentsTestApp
let configuration: Configuration
let organizationId: string

before(async () => {
  t = await createDeploymentsApp(5)
  const basePath = await t.listen()
  const { organization, tokens } = await factories(t.db).organizationWithTokens()
  organizationId = organization.id
  configuration = new Configuration({ basePath, apiKey: tokens.admin.authorization })
})
after(() => t?.close())

/** The provider's variable diff keeps key, value, description (and mount path for files) of its own scope. */
const variablesOf = (results: { key: string; value?: string | null; description?: string | null; scope: string }[] | undefined, scope: string) =>
  (results ?? [])
    .filter((v) => v.scope === scope)
    .map((v) => ({ key: v.key, value: v.value ?? null, description: v.description ?? '' }))
    .sort((a, b) => a.key.localeCompare(b.key))
const secretsOf = (results: { key: string; description?: string | null; scope: string }[] | undefined, scope: string) =>
  (results ?? [])
    .filter((v) => v.scope === scope)
    .map((v) => ({ key: v.key, description: v.description ?? '' }))
    .sort((a, b) => a.key.localeCompare(b.key))

/** The HTTP status a call answered, refused or not (for waits that read until a 404). */
const answered = (call: Promise<{ status: number }>) =>
  call.then(
    (res) => res.status,
    (error: { response?: { status?: number } }) => error.response?.status,
  )

describe("the Terraform provider's resources replayed through the official client", () => {
  it('qovery_project: create with variables and secrets, refresh, update, refresh, import, delete, read → 404', async () => {
    const projects = new ProjectsApi(configuration)
    const main = new ProjectMainCallsApi(configuration)
    const variables = new ProjectEnvironmentVariableApi(configuration)
    const secrets = new ProjectSecretApi(configuration)

    // Create: the project, then the variable and secret diffs, each entry its own call.
    const name = uniqueName('tf-project')
    const created = (await projects.createProject(organizationId, { name, description: 'from terraform' })).data
    const projectId = created.id
    const variable = (await variables.createProjectEnvironmentVariable(projectId, { key: 'LOG_LEVEL', value: 'info', description: 'verbosity' })).data
    await variables.createProjectEnvironmentVariable(projectId, { key: 'REGION', value: 'eu', description: '' })
    const secret = (await secrets.createProjectSecret(projectId, { key: 'API_KEY', value: 's3cr3t', description: 'upstream key' })).data

    // Refresh (and import, the same reads by id): the project, its variables, its secrets.
    const refresh = async () => {
      const project = (await main.getProject(projectId)).data
      return {
        id: project.id,
        organization_id: project.organization.id,
        name: project.name,
        description: project.description ?? '',
        variables: variablesOf((await variables.listProjectEnvironmentVariable(projectId)).data.results, 'PROJECT'),
        secrets: secretsOf((await secrets.listProjectSecrets(projectId)).data.results, 'PROJECT'),
      }
    }
    assert.deepEqual(await refresh(), {
      id: projectId,
      organization_id: organizationId,
      name,
      description: 'from terraform',
      variables: [
        { key: 'LOG_LEVEL', value: 'info', description: 'verbosity' },
        { key: 'REGION', value: 'eu', description: '' },
      ],
      secrets: [{ key: 'API_KEY', description: 'upstream key' }],
    })

    // Update: the project's edit with the same body as its create, then the diffs.
    const renamed = uniqueName('tf-project')
    const edited = (await main.editProject(projectId, { name: renamed, description: 'renamed' })).data
    assert.equal(edited.name, renamed)
    await variables.editProjectEnvironmentVariable(projectId, variable.id, { key: 'LOG_LEVEL', value: 'debug', description: 'more' })
    const region = (await variables.listProjectEnvironmentVariable(projectId)).data.results?.find((v) => v.key === 'REGION')
    assert.equal((await variables.deleteProjectEnvironmentVariable(projectId, region!.id)).status, 204)
    await secrets.editProjectSecret(projectId, secret.id, { key: 'API_KEY', value: 'rotated', description: 'rotated key' })
    await secrets.createProjectSecret(projectId, { key: 'DB_PASSWORD', value: 'pw', description: '' })
    const expected = {
      id: projectId,
      organization_id: organizationId,
      name: renamed,
      description: 'renamed',
      variables: [{ key: 'LOG_LEVEL', value: 'debug', description: 'more' }],
      secrets: [
        { key: 'API_KEY', description: 'rotated key' },
        { key: 'DB_PASSWORD', description: '' },
      ],
    }
    assert.deepEqual(await refresh(), expected)
    assert.deepEqual(await refresh(), expected, 'an import reads the same state')

    assert.equal((await main.deleteProject(projectId)).status, 204)
    assert.equal(await rejectedStatus(main.getProject(projectId)), 404)
  })

  it('qovery_environment: create with variables, an override and secrets, refresh, update (with its redeploy), refresh, import, delete, status → 404', async () => {
    const f = factories(t.db)
    const project = await f.project(organizationId)
    const cluster = await f.cluster(organizationId)
    const projectVariable = (
      await new ProjectEnvironmentVariableApi(configuration).createProjectEnvironmentVariable(project.id, {
        key: 'TIER',
        value: 'free',
        description: '',
      })
    ).data
    const environments = new EnvironmentsApi(configuration)
    const main = new EnvironmentMainCallsApi(configuration)
    const variables = new EnvironmentVariableApi(configuration)
    const secrets = new EnvironmentSecretApi(configuration)
    const generic = new VariableMainCallsApi(configuration)

    const name = uniqueName('tf-env')
    const created = (await environments.createEnvironment(project.id, { name, cluster: cluster.id, mode: CreateEnvironmentModeEnum.STAGING })).data
    const environmentId = created.id
    const variable = (await variables.createEnvironmentEnvironmentVariable(environmentId, { key: 'PORT', value: '8080', description: 'listen' })).data
    await variables.createEnvironmentEnvironmentVariableOverride(environmentId, projectVariable.id, { value: 'pro', description: 'paid tier' })
    const secret = (await secrets.createEnvironmentSecret(environmentId, { key: 'TOKEN', value: 't0k3n', description: '' })).data

    const refresh = async () => {
      const environment = (await main.getEnvironment(environmentId)).data
      const listed = (await variables.listEnvironmentEnvironmentVariable(environmentId)).data.results ?? []
      const secretList = (await secrets.listEnvironmentSecrets(environmentId)).data.results
      // External secrets and their files: the generic list, filtered by type on the provider's side.
      const external = (await generic.listVariables(environmentId, APIVariableScopeEnum.ENVIRONMENT, false)).data.results ?? []
      await generic.listVariables(environmentId, APIVariableScopeEnum.ENVIRONMENT, false)
      return {
        id: environment.id,
        project_id: environment.project.id,
        cluster_id: environment.cluster_id,
        name: environment.name,
        mode: environment.mode,
        variables: variablesOf(listed, 'ENVIRONMENT'),
        overrides: listed
          .filter((v) => v.variable_type === 'OVERRIDE')
          .map((v) => ({ key: v.key, value: v.value, scope: v.scope, overridden: v.overridden_variable?.id })),
        secrets: secretsOf(secretList, 'ENVIRONMENT'),
        external: external.filter((v) => v.variable_type === 'EXTERNAL_SECRET' || v.variable_type === 'FILE_EXTERNAL_SECRET'),
      }
    }
    const first = await refresh()
    assert.deepEqual(first, {
      id: environmentId,
      project_id: project.id,
      cluster_id: cluster.id,
      name,
      mode: 'STAGING',
      variables: [
        { key: 'PORT', value: '8080', description: 'listen' },
        { key: 'TIER', value: 'pro', description: 'paid tier' },
      ],
      overrides: [{ key: 'TIER', value: 'pro', scope: 'ENVIRONMENT', overridden: projectVariable.id }],
      secrets: [{ key: 'TOKEN', description: '' }],
      external: [],
    })

    // Update: the edit of name and mode, the diffs, then a redeploy because variables changed.
    const renamed = uniqueName('tf-env')
    await main.editEnvironment(environmentId, { name: renamed, mode: CreateEnvironmentModeEnum.DEVELOPMENT })
    await variables.editEnvironmentEnvironmentVariable(environmentId, variable.id, { key: 'PORT', value: '9090', description: 'listen' })
    await secrets.editEnvironmentSecret(environmentId, secret.id, { key: 'TOKEN', value: 'rotated', description: 'rotated' })
    await new EnvironmentActionsApi(configuration).redeployEnvironment(environmentId)
    const expected = {
      ...first,
      name: renamed,
      mode: 'DEVELOPMENT',
      variables: [
        { key: 'PORT', value: '9090', description: 'listen' },
        { key: 'TIER', value: 'pro', description: 'paid tier' },
      ],
      secrets: [{ key: 'TOKEN', description: 'rotated' }],
    }
    assert.deepEqual(await refresh(), expected)
    assert.deepEqual(await refresh(), expected, 'an import reads the same state')

    // Delete: exists, wait for a final state, delete, then the status until a 404.
    await main.getEnvironment(environmentId)
    await until(
      async () => (await main.getEnvironmentStatus(environmentId)).data.state,
      (state) => !/ING$|_WAITING|_QUEUED/.test(state),
      { what: 'a final state' },
    )
    assert.equal((await main.deleteEnvironment(environmentId)).status, 204)
    await until(
      () => answered(main.getEnvironmentStatus(environmentId)),
      (status) => status === 404,
      { what: 'the status of the deleted environment answering 404' },
    )
    assert.equal(await rejectedStatus(main.getEnvironment(environmentId)), 404)
  })

  it('qovery_deployment_stage: create and move after, read, edit and move before, read, import, delete, read → 404', async () => {
    const f = factories(t.db)
    const environment = await f.environment((await f.project(organizationId)).id)
    const stages = new DeploymentStageMainCallsApi(configuration)
    const main = new EnvironmentMainCallsApi(configuration)
    const anchor = (await stages.createEnvironmentDeploymentStage(environment.id, { name: 'anchor', description: '' })).data

    const created = (await stages.createEnvironmentDeploymentStage(environment.id, { name: 'migrations', description: 'run first' })).data
    await stages.moveAfterDeploymentStage(created.id, anchor.id)
    const read = async () => {
      const stage = (await stages.getDeploymentStage(created.id)).data
      return { id: stage.id, environment_id: stage.environment.id, name: stage.name, description: stage.description }
    }
    const order = async () => (await stages.listEnvironmentDeploymentStage(environment.id)).data.results?.map((s) => s.name)
    assert.deepEqual(await read(), { id: created.id, environment_id: environment.id, name: 'migrations', description: 'run first' })
    const initial = await order()
    assert.ok(initial!.indexOf('migrations') === initial!.indexOf('anchor') + 1, `after its anchor: ${initial}`)

    await stages.editDeploymentStage(created.id, { name: 'schema', description: 'before the anchor' })
    await stages.moveBeforeDeploymentStage(created.id, anchor.id)
    const expected = { id: created.id, environment_id: environment.id, name: 'schema', description: 'before the anchor' }
    assert.deepEqual(await read(), expected)
    assert.deepEqual(await read(), expected, 'an import reads the same state')
    const moved = await order()
    assert.ok(moved!.indexOf('schema') === moved!.indexOf('anchor') - 1, `before its anchor: ${moved}`)

    // Delete: read the stage, its environment's status, delete, then read until a 404.
    await stages.getDeploymentStage(created.id)
    await main.getEnvironmentStatus(environment.id)
    assert.equal((await stages.deleteDeploymentStage(created.id)).status, 204)
    assert.equal(await rejectedStatus(stages.getDeploymentStage(created.id)), 404)
  })

  it('qovery_database: create and attach to a stage, refresh, edit and attach, refresh, import, delete, status → 404', async () => {
    const f = factories(t.db)
    const environment = await f.environment((await f.project(organizationId)).id)
    const databases = new DatabasesApi(configuration)
    const main = new DatabaseMainCallsApi(configuration)
    const stages = new DeploymentStageMainCallsApi(configuration)
    const variables = new EnvironmentVariableApi(configuration)
    const environments = new EnvironmentMainCallsApi(configuration)
    const stage = (await stages.createEnvironmentDeploymentStage(environment.id, { name: 'data', description: '' })).data
    const later = (await stages.createEnvironmentDeploymentStage(environment.id, { name: 'later', description: '' })).data

    const name = uniqueName('tf-db')
    const created = (
      await databases.createDatabase(environment.id, {
        name,
        type: DatabaseTypeEnum.POSTGRESQL,
        version: '16',
        mode: DatabaseModeEnum.CONTAINER,
        accessibility: DatabaseAccessibilityEnum.PRIVATE,
        cpu: 250,
        memory: 256,
        storage: 10,
        annotations_groups: [],
        labels_groups: [],
      })
    ).data
    const databaseId = created.id
    await stages.attachServiceToDeploymentStage(stage.id, databaseId, { is_skipped: true })

    // The provider's state of a database: the database, its master credentials, the built-in
    // internal host of its environment's variables, its deployment stage and whether it is skipped.
    const state = async (withStatus: boolean) => {
      const database = (await main.getDatabase(databaseId)).data
      if (withStatus) await main.getDatabaseStatus(databaseId)
      const credentials = (await main.getDatabaseMasterCredentials(databaseId)).data
      const hostKey = `QOVERY_${database.type}_Z${databaseId.split('-')[0]!.toUpperCase()}_HOST_INTERNAL`
      const builtIn = ((await variables.listEnvironmentEnvironmentVariable(environment.id)).data.results ?? []).filter((v) => v.scope === 'BUILT_IN')
      const serviceStage = (await stages.getServiceDeploymentStage(databaseId)).data
      return {
        id: database.id,
        environment_id: database.environment.id,
        name: database.name,
        type: database.type,
        version: database.version,
        mode: database.mode,
        accessibility: database.accessibility,
        cpu: database.cpu,
        memory: database.memory,
        storage: database.storage,
        port: database.port,
        host: database.host,
        login: credentials.login,
        password: credentials.password,
        internal_host: builtIn.find((v) => v.key === hostKey)?.value ?? '',
        deployment_stage_id: serviceStage.id,
        is_skipped: serviceStage.services?.find((s) => s.service_id === databaseId)?.is_skipped ?? false,
      }
    }
    const afterCreate = await state(false)
    assert.deepEqual(
      { ...afterCreate, login: undefined, password: undefined, internal_host: undefined, host: undefined, port: undefined },
      {
        id: databaseId,
        environment_id: environment.id,
        name,
        type: 'POSTGRESQL',
        version: '16',
        mode: 'CONTAINER',
        accessibility: 'PRIVATE',
        cpu: 250,
        memory: 256,
        storage: 10,
        port: undefined,
        host: undefined,
        login: undefined,
        password: undefined,
        internal_host: undefined,
        deployment_stage_id: stage.id,
        is_skipped: true,
      },
    )
    assert.ok(afterCreate.login && afterCreate.password, 'the master credentials are read')
    assert.ok(afterCreate.internal_host, 'the built-in internal host is found by its key')
    assert.deepEqual(await state(true), afterCreate, 'the refresh reads what the create answered')

    await main.editDatabase(databaseId, {
      name: `${name}-2`,
      version: '16',
      accessibility: DatabaseAccessibilityEnum.PRIVATE,
      cpu: 500,
      memory: 512,
      storage: 20,
      annotations_groups: [],
      labels_groups: [],
    })
    await stages.attachServiceToDeploymentStage(later.id, databaseId, { is_skipped: false })
    const expected = { ...afterCreate, name: `${name}-2`, cpu: 500, memory: 512, storage: 20, deployment_stage_id: later.id, is_skipped: false }
    assert.deepEqual(await state(false), expected)
    assert.deepEqual(await state(true), expected, 'a refresh and an import read the same state')

    // Delete: the database, its environment's final state, the delete, then the status until a 404.
    await main.getDatabase(databaseId)
    await environments.getEnvironmentStatus(environment.id)
    assert.equal((await main.deleteDatabase(databaseId)).status, 204)
    await until(
      () => answered(main.getDatabaseStatus(databaseId)),
      (status) => status === 404,
      { what: 'the status of the deleted database answering 404' },
    )
  })

  it('qovery_terraform_service: create and attach to a stage with advanced settings, refresh, update, refresh, import, delete, read → 404', async () => {
    const f = factories(t.db)
    const environment = await f.environment((await f.project(organizationId)).id)
    const terraforms = new TerraformsApi(configuration)
    const main = new TerraformMainCallsApi(configuration)
    const settings = new TerraformConfigurationApi(configuration)
    const stages = new DeploymentStageMainCallsApi(configuration)
    const variables = new VariableMainCallsApi(configuration)
    const stage = (await stages.createEnvironmentDeploymentStage(environment.id, { name: 'infra', description: '' })).data
    const later = (await stages.createEnvironmentDeploymentStage(environment.id, { name: 'later', description: '' })).data

    // The request as newQoveryTerraformRequestFromDomain builds it (terraformservice_qoveryapi_models.go):
    // the required members always, the optional ones only when set, an empty description as "".
    const name = uniqueName('tf-infra')
    const request = (overrides: Partial<TerraformRequest> = {}): TerraformRequest => ({
      name,
      description: '',
      auto_deploy_config: { auto_deploy: true, terraform_action: 'DEFAULT' },
      terraform_files_source: { git_repository: { url: 'https://github.com/acme/infra.git', branch: 'main', root_path: '/' } },
      terraform_variables_source: {
        tf_var_file_paths: ['envs/prod.tfvars'],
        tf_vars: [
          { key: 'region', value: 'eu-west-3', secret: false },
          { key: 'token', value: 'tf-secret', secret: true },
        ],
      },
      backend: { kubernetes: {} },
      engine: TerraformEngineEnum.OPEN_TOFU,
      provider_version: { explicit_version: '1.9.4' },
      job_resources: { cpu_milli: 500, ram_mib: 512, gpu: 0, storage_gib: 1 },
      timeout_sec: 1800,
      ...overrides,
    })

    /** UpdateServiceAdvancedSettings: the service's settings, read, then written back with the plan's overrides. */
    const writeSettings = async (terraformId: string, overrides: Record<string, unknown>) => {
      const current = (await settings.getTerraformAdvancedSettings(terraformId)).data
      await settings.editTerraformAdvancedSettings(terraformId, { ...current, ...overrides })
    }
    /** The external secrets and secret files the provider lists after each call (scope TERRAFORM, is_secret=false). */
    const externalSecrets = async (terraformId: string) => {
      for (let i = 0; i < 2; i++) {
        const listed = (await variables.listVariables(terraformId, APIVariableScopeEnum.TERRAFORM, false)).data.results ?? []
        assert.deepEqual(
          listed.filter((v) => v.variable_type === 'EXTERNAL_SECRET' || v.variable_type === 'FILE_EXTERNAL_SECRET'),
          [],
        )
      }
    }
    // The provider's state of a terraform service (newDomainTerraformServiceFromQovery), with its stage and settings.
    const state = async (terraformId: string) => {
      const read = (await main.getTerraform(terraformId)).data
      const serviceStage = (await stages.getServiceDeploymentStage(terraformId)).data
      const advanced = (await settings.getTerraformAdvancedSettings(terraformId)).data
      await new TerraformsApi(configuration).getDefaultTerraformAdvancedSettings()
      await externalSecrets(terraformId)
      const git = read.terraform_files_source?.git?.git_repository
      return {
        id: read.id,
        environment_id: read.environment.id,
        name: read.name,
        description: read.description ?? '',
        auto_deploy: read.auto_deploy,
        terraform_action: read.auto_deploy_config?.terraform_action ?? 'DEFAULT',
        git: { url: git?.url, branch: git?.branch ?? '', root_path: git?.root_path || '/', git_token_id: git?.git_token_id ?? null },
        tf_var_files: read.terraform_variables_source.tf_var_file_paths ?? [],
        variables: read.terraform_variables_source.tf_vars.map((v) => ({
          key: v.key ?? '',
          secret: v.secret ?? false,
          ...(v.secret ? {} : { value: v.value }),
        })),
        backend: read.backend,
        engine: read.engine,
        engine_version: {
          explicit: read.provider_version.explicit_version,
          read_from_block: read.provider_version.read_from_terraform_block ?? false,
        },
        job_resources: read.job_resources,
        icon_uri: read.icon_uri,
        timeout_sec: read.timeout_sec,
        use_cluster_credentials: read.use_cluster_credentials,
        action_extra_arguments: read.action_extra_arguments,
        deployment_stage_id: serviceStage.id,
        is_skipped: serviceStage.services?.find((s) => s.service_id === terraformId)?.is_skipped ?? false,
        build_timeout: advanced['build.timeout_max_sec'],
      }
    }

    // Create: the service, its stage, its advanced settings, the stage read, the external secrets.
    const created = (await terraforms.createTerraform(environment.id, request())).data
    const terraformId = created.id
    assert.equal(created.service_type, servedWord('IAC'))
    await stages.attachServiceToDeploymentStage(stage.id, terraformId, { is_skipped: true })
    await writeSettings(terraformId, { 'build.timeout_max_sec': 900 })
    await stages.getServiceDeploymentStage(terraformId)
    await externalSecrets(terraformId)

    const afterCreate = await state(terraformId)
    assert.deepEqual(afterCreate, {
      id: terraformId,
      environment_id: environment.id,
      name,
      description: '',
      auto_deploy: true,
      terraform_action: 'DEFAULT',
      git: { url: 'https://github.com/acme/infra.git', branch: 'main', root_path: '/', git_token_id: null },
      tf_var_files: ['envs/prod.tfvars'],
      // The provider keeps a secret's value from its plan (the API never shows it).
      variables: [
        { key: 'region', secret: false, value: 'eu-west-3' },
        { key: 'token', secret: true },
      ],
      backend: { kubernetes: {} },
      engine: 'OPEN_TOFU',
      engine_version: { explicit: '1.9.4', read_from_block: false },
      job_resources: { cpu_milli: 500, ram_mib: 512, gpu: 0, storage_gib: 1 },
      icon_uri: created.icon_uri,
      timeout_sec: 1800,
      use_cluster_credentials: false,
      action_extra_arguments: {},
      deployment_stage_id: stage.id,
      is_skipped: true,
      build_timeout: 900,
    })
    assert.deepEqual(await state(terraformId), afterCreate, 'a refresh reads what the create wrote')

    // Update: the edit, its stage, its settings; then a refresh and an import read the same.
    await main.editTerraform(
      terraformId,
      request({
        description: 'the bucket',
        auto_deploy_config: { auto_deploy: false, terraform_action: 'PLAN' },
        engine: TerraformEngineEnum.TERRAFORM,
        provider_version: { explicit_version: '1.5.7', read_from_terraform_block: true },
        job_resources: { cpu_milli: 1000, ram_mib: 1024, gpu: 0, storage_gib: 2 },
        use_cluster_credentials: true,
        action_extra_arguments: { apply: ['-parallelism=2'] },
      }),
    )
    await stages.attachServiceToDeploymentStage(later.id, terraformId, { is_skipped: false })
    await writeSettings(terraformId, { 'build.timeout_max_sec': 1200 })
    await stages.getServiceDeploymentStage(terraformId)
    await externalSecrets(terraformId)
    const expected = {
      ...afterCreate,
      description: 'the bucket',
      auto_deploy: false,
      terraform_action: 'PLAN',
      engine: 'TERRAFORM',
      engine_version: { explicit: '1.5.7', read_from_block: true },
      job_resources: { cpu_milli: 1000, ram_mib: 1024, gpu: 0, storage_gib: 2 },
      use_cluster_credentials: true,
      action_extra_arguments: { apply: ['-parallelism=2'] },
      deployment_stage_id: later.id,
      is_skipped: false,
      build_timeout: 1200,
    }
    assert.deepEqual(await state(terraformId), expected)
    assert.deepEqual(await state(terraformId), expected, 'a refresh and an import read the same state')
    assert.ok(
      (await terraforms.listTerraforms(environment.id)).data.results?.some((s) => s.id === terraformId),
      'the data source lists it',
    )

    // Delete: the read, the delete (nothing applied: 204 at once), then the read answering 404.
    await main.getTerraform(terraformId)
    assert.equal((await main.deleteTerraform(terraformId)).status, 204)
    assert.equal(await rejectedStatus(main.getTerraform(terraformId)), 404)
  })

  it('qovery_helm_repository: create, read, edit, read, import, delete, read → 404', async () => {
    const helm = new HelmRepositoriesApi(configuration)
    const name = uniqueName('tf-charts')
    const body = {
      name,
      kind: HelmRepositoryKindEnum.HTTPS,
      url: 'https://charts.example.com/stable',
      description: 'our charts',
      skip_tls_verification: false,
      config: { username: 'robot', password: 'hunter2' },
    }
    const created = (await helm.createHelmRepository(organizationId, body)).data
    const read = async () => {
      const r = (await helm.getHelmRepository(organizationId, created.id)).data
      return { id: r.id, name: r.name, kind: r.kind, url: r.url, description: r.description, skip_tls_verification: r.skip_tls_verification }
    }
    assert.deepEqual(await read(), { id: created.id, name, kind: 'HTTPS', url: body.url, description: 'our charts', skip_tls_verification: false })

    await helm.editHelmRepository(organizationId, created.id, {
      ...body,
      url: 'https://charts.example.com/beta',
      description: 'beta',
      skip_tls_verification: true,
    })
    const expected = { id: created.id, name, kind: 'HTTPS', url: 'https://charts.example.com/beta', description: 'beta', skip_tls_verification: true }
    assert.deepEqual(await read(), expected)
    assert.deepEqual(await read(), expected, 'an import reads the same state')

    assert.equal((await helm.deleteHelmRepository(organizationId, created.id)).status, 204)
    assert.equal(await rejectedStatus(helm.getHelmRepository(organizationId, created.id)), 404)
  })

  it('qovery_git_token: create, read, edit, read, import, delete, read → 404', async () => {
    const main = new OrganizationMainCallsApi(configuration)
    const name = uniqueName('tf-bitbucket')
    const created = (
      await main.createGitToken(organizationId, { name, description: 'ci', type: GitProviderEnum.BITBUCKET, token: 'bb-secret', workspace: 'acme' })
    ).data
    const read = async () => {
      const token = (await main.getOrganizationGitToken(organizationId, created.id)).data
      return { id: token.id, name: token.name, description: token.description, type: token.type, workspace: token.workspace }
    }
    assert.deepEqual(await read(), { id: created.id, name, description: 'ci', type: 'BITBUCKET', workspace: 'acme' })

    await main.editGitToken(organizationId, created.id, {
      name,
      description: 'rotated',
      type: GitProviderEnum.BITBUCKET,
      token: 'bb-rotated',
      workspace: 'acme-2',
    })
    const expected = { id: created.id, name, description: 'rotated', type: 'BITBUCKET', workspace: 'acme-2' }
    assert.deepEqual(await read(), expected)
    assert.deepEqual(await read(), expected, 'an import reads the same state')

    assert.equal((await main.deleteGitToken(organizationId, created.id)).status, 204)
    assert.equal(await rejectedStatus(main.getOrganizationGitToken(organizationId, created.id)), 404)
  })

  it('qovery_api_token: create with a role id, read from the list, import, delete, absent from the list', async () => {
    const tokens = new OrganizationApiTokenApi(configuration)
    const name = uniqueName('tf-token')
    const created = (await tokens.createOrganizationApiToken(organizationId, { name, description: 'for ci', role_id: ROLE_IDS.DEPLOY })).data
    assert.ok(created.token, 'the value is answered at creation, once')
    assert.equal(created.role_id, ROLE_IDS.DEPLOY)

    // Read (and import): the list, the token found there by id.
    const read = async () => {
      const token = (await tokens.listOrganizationApiTokens(organizationId)).data.results?.find((entry) => entry.id === created.id)
      return token && { id: token.id, name: token.name, description: token.description, role_id: token.role_id }
    }
    const expected = { id: created.id, name, description: 'for ci', role_id: ROLE_IDS.DEPLOY }
    assert.deepEqual(await read(), expected)
    assert.deepEqual(await read(), expected, 'an import reads the same state')

    assert.equal((await tokens.deleteOrganizationApiToken(organizationId, created.id)).status, 204)
    assert.equal(await read(), undefined)
  })
  it('qovery_organization: import, read, edit, read; a read of an organization that is gone → 404 (the provider neither creates nor deletes one)', async () => {
    const { organization, tokens } = await factories(t.db).organizationWithTokens()
    const main = new OrganizationMainCallsApi(new Configuration({ basePath: configuration.basePath, apiKey: tokens.admin.authorization }))
    const read = async () => {
      const o = (await main.getOrganization(organization.id)).data
      return { id: o.id, name: o.name, description: o.description ?? null, plan: o.plan }
    }
    const imported = await read()
    assert.equal(imported.id, organization.id)
    assert.equal(imported.name, organization.name)
    assert.ok(['FREE', 'TEAM', 'ENTERPRISE', 'USER_2025', 'TEAM_2025', 'BUSINESS_2025', 'ENTERPRISE_2025'].includes(imported.plan), imported.plan)

    const renamed = uniqueName('tf-org')
    const edited = (await main.editOrganization(organization.id, { name: renamed, description: 'managed by terraform' })).data
    const expected = { id: organization.id, name: renamed, description: 'managed by terraform', plan: imported.plan }
    assert.deepEqual({ id: edited.id, name: edited.name, description: edited.description ?? null, plan: edited.plan }, expected)
    assert.deepEqual(await read(), expected)
    assert.equal(await rejectedStatus(main.getOrganization('00000000-0000-4000-8000-00000000dead')), 404)
  })

  it('qovery_deployment: create RUNNING, update STOPPED then RESTARTED, delete; every status read is one the provider knows', async () => {
    const f = factories(t.db)
    const environment = await f.environment((await f.project(organizationId)).id)
    await f.containerService(environment.id)
    const actions = new EnvironmentActionsApi(configuration)
    const main = new EnvironmentMainCallsApi(configuration)
    // The provider's two waits (deployment_status_qoveryapi.go): any other state is an error to it.
    const inProgress = [
      'BUILDING',
      'CANCELING',
      'DELETE_QUEUED',
      'DELETING',
      'DEPLOYING',
      'STOPPING',
      'STOP_QUEUED',
      'RESTART_QUEUED',
      'RESTARTING',
      'DEPLOYMENT_QUEUED',
      'QUEUED',
    ]
    const settled = [
      'READY',
      'DEPLOYMENT_ERROR',
      'DELETE_ERROR',
      'STOP_ERROR',
      'RESTART_ERROR',
      'STOPPED',
      'DELETED',
      'RESTARTED',
      'CANCELED',
      'BUILD_ERROR',
      'DEPLOYED',
    ]
    const reached = ['STOPPED', 'DEPLOYED', 'DELETED', 'RESTARTED', 'CANCELED']
    const status = async () => {
      const state: string = (await main.getEnvironmentStatus(environment.id)).data.state
      assert.ok(inProgress.includes(state) || settled.includes(state), `a state the provider knows: ${state}`)
      return state
    }
    const waitTerminated = () => until(status, (state) => settled.includes(state), { what: 'a terminated state' })
    const waitDesired = () => until(status, (state) => reached.includes(state) || state.endsWith('_ERROR'), { what: 'the desired state' })

    // Create (desired_state RUNNING): deploy, then wait for the desired state.
    assert.equal((await actions.deployEnvironment(environment.id)).status, 202)
    assert.equal(await waitDesired(), 'DEPLOYED')

    // Update to STOPPED, then to RESTARTED: wait for a terminated state, act, wait for the desired one.
    await waitTerminated()
    assert.equal((await actions.stopEnvironment(environment.id)).status, 202)
    assert.equal(await waitDesired(), 'STOPPED')
    await waitTerminated()
    assert.equal((await actions.redeployEnvironment(environment.id)).status, 202)
    assert.ok(['DEPLOYED', 'RESTARTED'].includes(await waitDesired()))

    // Delete: the environment exists, a terminated state, delete, then the status until a 404.
    await main.getEnvironment(environment.id)
    await waitTerminated()
    assert.equal((await main.deleteEnvironment(environment.id)).status, 204)
    await until(
      () => answered(main.getEnvironmentStatus(environment.id)),
      (code) => code === 404,
      { what: 'the status of the deleted environment answering 404' },
    )
    // A delete of a deployment whose environment is gone reads it and stops there.
    assert.equal(await rejectedStatus(main.getEnvironment(environment.id)), 404)
  })
})
