import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import {
  APIVariableScopeEnum,
  ApplicationsApi,
  Configuration,
  ContainersApi,
  DatabaseMainCallsApi,
  DatabasesApi,
  DeploymentStageMainCallsApi,
  EnvironmentActionsApi,
  EnvironmentDeploymentHistoryApi,
  EnvironmentMainCallsApi,
  EnvironmentsApi,
  HelmActionsApi,
  HelmsApi,
  JobConfigurationApi,
  JobsApi,
  VariableMainCallsApi,
} from 'qovery-typescript-axios'
import { createTestApp, type TestApp, testSecretBox } from './helpers/app.ts'
import { rejectedStatus } from './helpers/assertions.ts'
import { factories } from './helpers/factories.ts'

// Cloning environments and services through the official client (docs/cloning.md, "Cloning"): what a clone
// copies (configuration, stages, variables with secrets sealed as stored, job settings), what it
// makes anew (a database's credentials), and what it refuses (a taken name, another organization,
// a role too low, a full environment); then the CLI's clone calls as it sends them.

const SECRET = 'the-secret-value-never-shown'

describe('cloning through the official client', () => {
  let t: TestApp
  let basePath: string

  before(async () => {
    t = await createTestApp({ BERTH_SERVICES_PER_ENVIRONMENT: '12' })
    basePath = await t.listen()
  })
  after(() => t.close())

  /** An environment with one service of each kind, a stage of its own, and variables at every scope. */
  async function sourceEnvironment() {
    const f = factories(t.db)
    const { organization, project, environment, tokens } = await f.environmentWithTokens()
    const configuration = new Configuration({ basePath, apiKey: tokens.write.authorization })
    const variables = new VariableMainCallsApi(configuration)
    const helm = await f.helmService(environment.id, { name: 'chart' })
    const container = await f.containerService(environment.id, { name: 'web' })
    const job = await f.job(environment.id, { name: 'migrate' })
    const database = await f.database(environment.id, { name: 'ledger' })
    const application = (
      await new ApplicationsApi(configuration).createApplication(environment.id, {
        name: 'api',
        git_repository: { url: 'https://github.com/acme/api', branch: 'main', provider: 'GITHUB' },
        healthchecks: {},
        ports: [{ name: 'http', internal_port: 8080, publicly_accessible: true, protocol: 'HTTP' }],
      })
    ).data
    await new JobConfigurationApi(configuration).editJobAdvancedSettings(job.id, { 'job.delete_ttl_seconds_after_finished': 120 })
    const stages = new DeploymentStageMainCallsApi(configuration)
    const stage = (await stages.createEnvironmentDeploymentStage(environment.id, { name: 'migrations' })).data
    await stages.attachServiceToDeploymentStage(stage.id, job.id)

    const projectVariable = (
      await variables.createVariable({
        key: 'API_URL',
        value: 'https://api',
        is_secret: false,
        variable_scope: 'PROJECT',
        variable_parent_id: project.id,
      })
    ).data
    await variables.createVariableOverride(projectVariable.id, {
      value: 'https://staging',
      override_scope: 'ENVIRONMENT',
      override_parent_id: environment.id,
    })
    await variables.createVariable({
      key: 'TOKEN',
      value: SECRET,
      is_secret: true,
      variable_scope: 'ENVIRONMENT',
      variable_parent_id: environment.id,
    })
    await variables.createVariable({ key: 'REPLICAS', value: '2', is_secret: false, variable_scope: 'HELM', variable_parent_id: helm.id })
    await variables.createVariable({ key: 'WEB_KEY', value: SECRET, is_secret: true, variable_scope: 'CONTAINER', variable_parent_id: container.id })
    const builtIns = (await variables.listVariables(environment.id, APIVariableScopeEnum.ENVIRONMENT)).data.results ?? []
    const host = builtIns.find((variable) => /^QOVERY_POSTGRESQL_Z[0-9A-F]{8}_HOST$/.test(variable.key))!
    await variables.createVariableAlias(host.id, { key: 'DB_HOST', alias_scope: 'CONTAINER', alias_parent_id: container.id })
    return { f, organization, project, environment, tokens, configuration, helm, container, job, database, application, stage }
  }

  it('clones an environment into another project: services in their stages, variables re-pointed, secrets sealed, new database credentials', async () => {
    const source = await sourceEnvironment()
    const { f, organization, configuration } = source
    const other = await f.project(organization.id)
    const variables = new VariableMainCallsApi(configuration)
    // The project override needs the target project's variable of its key.
    const lacking = await f.project(organization.id)
    const environments = new EnvironmentsApi(configuration)
    const refused = await new EnvironmentActionsApi(configuration)
      .cloneEnvironment(source.environment.id, { name: 'copy', project_id: lacking.id })
      .catch((error) => error.response)
    assert.equal(refused.status, 400)
    assert.match(refused.data.errors[0].message, /API_URL/)
    assert.deepEqual((await environments.listEnvironment(lacking.id)).data.results, [], 'a refused clone leaves nothing')

    // The source has a deployment (queued: this app runs no runner); the clone has none.
    assert.equal((await new HelmActionsApi(configuration).deployHelm(source.helm.id)).status, 202)
    const history = new EnvironmentDeploymentHistoryApi(configuration)
    assert.equal((await history.listEnvironmentDeploymentHistoryV2(source.environment.id)).data.results?.length, 1)

    const targetVariable = (
      await variables.createVariable({
        key: 'API_URL',
        value: 'https://other',
        is_secret: false,
        variable_scope: 'PROJECT',
        variable_parent_id: other.id,
      })
    ).data
    const { data: clone, status } = await new EnvironmentActionsApi(configuration).cloneEnvironment(source.environment.id, {
      name: 'copy',
      project_id: other.id,
      mode: 'STAGING',
      apply_deployment_rule: false,
    })
    assert.equal(status, 202)
    assert.deepEqual([clone.name, clone.project?.id, clone.mode, clone.cluster_id], ['copy', other.id, 'STAGING', source.environment.clusterId])

    const main = new EnvironmentMainCallsApi(configuration)
    const services = (await main.listServicesByEnvironmentId(clone.id)).data.results ?? []
    assert.deepEqual(services.map((service) => [service.name, service.service_type]).sort(), [
      ['api', 'APPLICATION'],
      ['chart', 'HELM'],
      ['ledger', 'DATABASE'],
      ['migrate', 'JOB'],
      ['web', 'CONTAINER'],
    ])
    const cloneOf = (name: string) => services.find((service) => service.name === name)!.id

    // Stages: the same, in the same order, each service in its stage's copy.
    const stages = new DeploymentStageMainCallsApi(configuration)
    const stageNames = async (environmentId: string) =>
      ((await stages.listEnvironmentDeploymentStage(environmentId)).data.results ?? []).map((stage) => stage.name)
    assert.deepEqual(await stageNames(clone.id), await stageNames(source.environment.id))
    assert.equal((await stages.getServiceDeploymentStage(cloneOf('migrate'))).data.name, 'migrations')
    assert.equal((await stages.getServiceDeploymentStage(cloneOf('chart'))).data.name, 'HELM DEFAULT')

    // Variables: the environment's own, its override pointed at the target project's variable.
    const environmentVariables = (await variables.listVariables(clone.id, APIVariableScopeEnum.ENVIRONMENT)).data.results ?? []
    const own = environmentVariables.filter((variable) => variable.scope === 'ENVIRONMENT')
    assert.deepEqual(own.map((variable) => [variable.key, variable.value, variable.is_secret, variable.variable_type]).sort(), [
      ['API_URL', 'https://staging', false, 'OVERRIDE'],
      ['TOKEN', null, true, 'VALUE'],
    ])
    assert.equal(own.find((variable) => variable.key === 'API_URL')!.overridden_variable?.id, targetVariable.id)

    // The container's secret copied sealed as stored; its alias of the database's host now names the clone's database.
    const containerVariables = (await variables.listVariables(cloneOf('web'), APIVariableScopeEnum.CONTAINER)).data.results ?? []
    const webKey = containerVariables.find((variable) => variable.key === 'WEB_KEY')!
    assert.deepEqual([webKey.value, webKey.is_secret], [null, true])
    const alias = containerVariables.find((variable) => variable.key === 'DB_HOST')!
    const newKeyId = `Z${cloneOf('ledger').slice(0, 8).toUpperCase()}`
    assert.equal(alias.aliased_variable?.key, `QOVERY_POSTGRESQL_${newKeyId}_HOST`)
    const sealed = await t.db.selectFrom('variables').select('valueSealed').where('id', '=', webKey.id).executeTakeFirstOrThrow()
    assert.equal(testSecretBox().open(sealed.valueSealed!), SECRET)
    assert.equal(
      ((await variables.listVariables(cloneOf('chart'), APIVariableScopeEnum.HELM)).data.results ?? []).find(
        (variable) => variable.key === 'REPLICAS',
      )?.value,
      '2',
    )

    // The database: the same configuration, its own host and a new password.
    const databases = new DatabaseMainCallsApi(configuration)
    const [was, now] = await Promise.all(
      [source.database.id, cloneOf('ledger')].map(async (id) => (await databases.getDatabaseMasterCredentials(id)).data),
    )
    assert.notEqual(now!.password, was!.password)
    assert.notEqual(now!.host, was!.host)
    assert.equal((await databases.getDatabase(cloneOf('ledger'))).data.version, '16')

    // The job's advanced settings.
    const settings = (await new JobConfigurationApi(configuration).getJobAdvancedSettings(cloneOf('migrate'))).data
    assert.equal(settings['job.delete_ttl_seconds_after_finished'], 120)

    assert.deepEqual((await history.listEnvironmentDeploymentHistoryV2(clone.id)).data.results, [], 'the history is not copied')

    // A name taken in the target project: 409, as a create.
    const clash = await new EnvironmentActionsApi(configuration)
      .cloneEnvironment(source.environment.id, { name: 'COPY', project_id: other.id })
      .catch((error) => error.response)
    assert.equal(clash.status, 409)
  })

  it('clones each kind into its own environment and into another project, with its variables', async () => {
    const source = await sourceEnvironment()
    const { f, organization, configuration } = source
    const otherProject = await f.project(organization.id)
    const otherEnvironment = await f.environment(otherProject.id)
    const stages = new DeploymentStageMainCallsApi(configuration)
    const variables = new VariableMainCallsApi(configuration)
    const calls = {
      HELM: (id: string, name: string, environmentId: string) => new HelmsApi(configuration).cloneHelm(id, { name, environment_id: environmentId }),
      CONTAINER: (id: string, name: string, environmentId: string) =>
        new ContainersApi(configuration).cloneContainer(id, { name, environment_id: environmentId }),
      JOB: (id: string, name: string, environmentId: string) => new JobsApi(configuration).cloneJob(id, { name, environment_id: environmentId }),
      DATABASE: (id: string, name: string, environmentId: string) =>
        new DatabasesApi(configuration).cloneDatabase(id, { name, environment_id: environmentId }),
      APPLICATION: (id: string, name: string, environmentId: string) =>
        new ApplicationsApi(configuration).cloneApplication(id, { name, environment_id: environmentId }),
    }
    const sources = { HELM: source.helm, CONTAINER: source.container, JOB: source.job, DATABASE: source.database, APPLICATION: source.application }
    for (const [kind, clone] of Object.entries(calls)) {
      const original = sources[kind as keyof typeof sources]
      const same = await clone(original.id, `${original.name}-copy`, source.environment.id)
      assert.equal(same.status, 202, kind)
      assert.equal(same.data.name, `${original.name}-copy`)
      assert.equal(
        (await stages.getServiceDeploymentStage(same.data.id)).data.id,
        (await stages.getServiceDeploymentStage(original.id)).data.id,
        `${kind}: a clone in its own environment stays in its source's stage`,
      )
      if (kind === 'CONTAINER') continue
      const away = await clone(original.id, original.name, otherEnvironment.id)
      assert.equal(away.status, 202, kind)
      assert.equal((await stages.getServiceDeploymentStage(away.data.id)).data.name, `${kind} DEFAULT`)
    }
    const containerVariables = async (containerId: string) =>
      (await variables.listVariables(containerId, APIVariableScopeEnum.CONTAINER)).data.results ?? []
    const listed = async (environmentId: string) =>
      (await new EnvironmentMainCallsApi(configuration).listServicesByEnvironmentId(environmentId)).data.results ?? []

    // In its own environment, the container's alias still names the database's host.
    const sameCopy = (await listed(source.environment.id)).find((service) => service.name === 'web-copy')!
    const hostKey = `QOVERY_POSTGRESQL_Z${source.database.id.slice(0, 8).toUpperCase()}_HOST`
    assert.equal((await containerVariables(sameCopy.id)).find((variable) => variable.key === 'DB_HOST')?.aliased_variable?.key, hostKey)

    // Elsewhere that database is not: the clone is refused, and nothing is left of it; without the alias it goes.
    const refused = await calls.CONTAINER(source.container.id, 'web', otherEnvironment.id).catch((error) => error.response)
    assert.equal(refused.status, 400)
    assert.match(refused.data.errors[0].message, /DB_HOST/)
    assert.ok(!(await listed(otherEnvironment.id)).some((service) => service.name === 'web'))
    const alias = (await containerVariables(source.container.id)).find((variable) => variable.key === 'DB_HOST')!
    await variables.deleteVariable(alias.id)
    const web = (await calls.CONTAINER(source.container.id, 'web', otherEnvironment.id)).data
    const copied = await containerVariables(web.id)
    assert.ok(!JSON.stringify(copied).includes(SECRET))
    assert.ok(
      copied.some((variable) => variable.key === 'WEB_KEY' && variable.is_secret && variable.value === null && variable.scope === 'CONTAINER'),
    )
    const away = async (name: string) => (await listed(otherEnvironment.id)).find((service) => service.name === name)!.id

    // Fresh database credentials.
    const databases = new DatabaseMainCallsApi(configuration)
    assert.notEqual(
      (await databases.getDatabaseMasterCredentials(await away('ledger'))).data.password,
      (await databases.getDatabaseMasterCredentials(source.database.id)).data.password,
    )

    // A taken name is a 409; another organization's environment a 404; a role below WRITE a 403.
    assert.equal(await rejectedStatus(calls.HELM(source.helm.id, 'CHART', source.environment.id)), 409)
    const stranger = await f.environmentWithTokens()
    assert.equal(await rejectedStatus(calls.HELM(source.helm.id, 'elsewhere', stranger.environment.id)), 404)
    const asStranger = new HelmsApi(new Configuration({ basePath, apiKey: stranger.tokens.admin.authorization }))
    assert.equal(await rejectedStatus(asStranger.cloneHelm(source.helm.id, { name: 'x', environment_id: stranger.environment.id })), 404)
    const asDeployer = new HelmsApi(new Configuration({ basePath, apiKey: source.tokens.deploy.authorization }))
    assert.equal(await rejectedStatus(asDeployer.cloneHelm(source.helm.id, { name: 'x', environment_id: source.environment.id })), 403)
  })

  it('checks a clone again as a create: the cluster-wide right, and the environment limit', async () => {
    const f = factories(t.db)
    const { environment, tokens } = await f.environmentWithTokens()
    const wide = await f.helmService(environment.id, { allow_cluster_wide_resources: true })
    const asWriter = new HelmsApi(new Configuration({ basePath, apiKey: tokens.write.authorization }))
    assert.equal(await rejectedStatus(asWriter.cloneHelm(wide.id, { name: 'wide-copy', environment_id: environment.id })), 403)
    const asAdmin = new HelmsApi(new Configuration({ basePath, apiKey: tokens.admin.authorization }))
    assert.equal((await asAdmin.cloneHelm(wide.id, { name: 'wide-copy', environment_id: environment.id })).status, 202)
    // BERTH_SERVICES_PER_ENVIRONMENT is 12 here.
    for (let i = 2; i < 12; i++) await asAdmin.cloneHelm(wide.id, { name: `wide-${i}`, environment_id: environment.id })
    const full = await asAdmin.cloneHelm(wide.id, { name: 'one-too-many', environment_id: environment.id }).catch((error) => error.response)
    assert.equal(full.status, 409)
    assert.match(full.data.message, /BERTH_SERVICES_PER_ENVIRONMENT/)
  })

  it("answers the CLI's clone calls as it sends them", async () => {
    const source = await sourceEnvironment()
    const { f, organization, tokens } = source
    const headers = { authorization: tokens.write.authorization, 'content-type': 'application/json', 'user-agent': 'OpenAPI-Generator/1.0.0/go' }
    const other = await f.project(organization.id)
    await t.app.inject({
      method: 'POST',
      url: '/variable',
      headers,
      payload: { key: 'API_URL', value: 'x', is_secret: false, variable_scope: 'PROJECT', variable_parent_id: other.id },
    })
    // `qovery environment clone -n copy --target-project …`: name, apply_deployment_rule, project_id.
    const environment = await t.app.inject({
      method: 'POST',
      url: `/environment/${source.environment.id}/clone`,
      headers,
      payload: JSON.stringify({ name: 'cli-copy', apply_deployment_rule: false, project_id: other.id }),
    })
    assert.equal(environment.statusCode, 202, environment.body)
    assert.equal(environment.json().name, 'cli-copy')
    // `qovery environment clone` with a cluster and a type.
    const typed = await t.app.inject({
      method: 'POST',
      url: `/environment/${source.environment.id}/clone`,
      headers,
      payload: JSON.stringify({ name: 'cli-typed', apply_deployment_rule: true, cluster_id: source.environment.clusterId, mode: 'PRODUCTION' }),
    })
    assert.equal(typed.statusCode, 202, typed.body)
    assert.equal(typed.json().mode, 'PRODUCTION')
    // `qovery application|container|helm|database|cronjob|lifecycle clone`: name and environment_id; the CLI prints the clone's name.
    for (const [segment, id] of [
      ['application', source.application.id],
      ['container', source.container.id],
      ['helm', source.helm.id],
      ['database', source.database.id],
      ['job', source.job.id],
    ]) {
      const res = await t.app.inject({
        method: 'POST',
        url: `/${segment}/${id}/clone`,
        headers,
        payload: JSON.stringify({ name: `cli-${segment}`, environment_id: source.environment.id }),
      })
      assert.equal(res.statusCode, 202, res.body)
      assert.equal(res.json().name, `cli-${segment}`)
    }
  })
})
