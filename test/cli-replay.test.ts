import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import {
  APIVariableScopeEnum,
  ApplicationsApi,
  Configuration,
  ContainerActionsApi,
  ContainerCustomDomainApi,
  ContainerMainCallsApi,
  ContainersApi,
  DatabaseActionsApi,
  DatabaseMainCallsApi,
  DatabasesApi,
  DeploymentStageMainCallsApi,
  EnvironmentActionsApi,
  EnvironmentDeploymentHistoryApi,
  EnvironmentMainCallsApi,
  EnvironmentsApi,
  HelmActionsApi,
  HelmCustomDomainApi,
  HelmMainCallsApi,
  HelmsApi,
  JobActionsApi,
  JobMainCallsApi,
  JobsApi,
  OrganizationMainCallsApi,
  ProjectsApi,
  type Status,
  TerraformActionsApi,
  TerraformMainCallsApi,
  TerraformsApi,
  VariableMainCallsApi,
} from 'qovery-typescript-axios'
import { rejectedStatus } from './helpers/assertions.ts'
import { createDeploymentsApp, type DeploymentsTestApp, until } from './helpers/deployments.ts'
import { factories, uniqueName } from './helpers/factories.ts'
import { servedWord } from './helpers/go-client-words.ts'

// The Qovery CLI's command families replayed through the official client: the calls each command
// of qovery-cli's cmd/ and utils/ makes, in its order, with the bodies it builds, and assertions
// on the fields it reads from the answers. The deployments run on the simulator.

let d: DeploymentsTestApp
let make: ReturnType<typeof factories>
let basePath: string

before(async () => {
  d = await createDeploymentsApp(60)
  make = factories(d.db)
  basePath = await d.listen()
})
after(() => d?.close())

/** The CLI's API client (utils.GetQoveryClient) for one credential. */
function cli(authorization: string) {
  const configuration = new Configuration({ basePath, apiKey: authorization })
  return {
    organizations: new OrganizationMainCallsApi(configuration),
    projects: new ProjectsApi(configuration),
    environments: new EnvironmentsApi(configuration),
    environmentMain: new EnvironmentMainCallsApi(configuration),
    environmentActions: new EnvironmentActionsApi(configuration),
    environmentHistory: new EnvironmentDeploymentHistoryApi(configuration),
    applications: new ApplicationsApi(configuration),
    containers: new ContainersApi(configuration),
    containerMain: new ContainerMainCallsApi(configuration),
    containerActions: new ContainerActionsApi(configuration),
    containerDomains: new ContainerCustomDomainApi(configuration),
    databases: new DatabasesApi(configuration),
    databaseMain: new DatabaseMainCallsApi(configuration),
    databaseActions: new DatabaseActionsApi(configuration),
    helms: new HelmsApi(configuration),
    helmMain: new HelmMainCallsApi(configuration),
    helmActions: new HelmActionsApi(configuration),
    helmDomains: new HelmCustomDomainApi(configuration),
    jobs: new JobsApi(configuration),
    jobMain: new JobMainCallsApi(configuration),
    jobActions: new JobActionsApi(configuration),
    stages: new DeploymentStageMainCallsApi(configuration),
    variables: new VariableMainCallsApi(configuration),
    terraforms: new TerraformsApi(configuration),
    terraformMain: new TerraformMainCallsApi(configuration),
    terraformActions: new TerraformActionsApi(configuration),
  }
}
type Cli = ReturnType<typeof cli>

/** An organization, project and environment with a container, a database, a helm service and a lifecycle job. */
async function fixture() {
  const { organization, project, environment, tokens } = await make.environmentWithTokens()
  const container = await make.containerService(environment.id)
  const database = await make.database(environment.id)
  const helm = await make.helmService(environment.id)
  const job = await make.job(environment.id)
  return { organization, project, environment, container, database, helm, job, client: cli(tokens.admin.authorization) }
}

/** utils.FindBy…Name: the first of `items` whose name is `name`. */
const byName = <T extends { name: string }>(items: T[] | undefined, name: string) => items?.find((item) => item.name === name)

/**
 * getOrganizationProjectEnvironmentContextResourcesIds with --organization/--project/--environment:
 * ListOrganization, ListProject, ListEnvironment, each searched by name; the ids are all it keeps.
 */
async function resolveContext(client: Cli, names: { organization: string; project: string; environment: string }) {
  const organization = byName((await client.organizations.listOrganization()).data.results, names.organization)
  assert.ok(organization?.id, 'organization found by name')
  const project = byName((await client.projects.listProject(organization.id)).data.results, names.project)
  assert.ok(project?.id, 'project found by name')
  const environment = byName((await client.environments.listEnvironment(project.id)).data.results, names.environment)
  assert.ok(environment?.id, 'environment found by name')
  return { organizationId: organization.id, projectId: project.id, environmentId: environment.id }
}

/** utils.FindStatus: the state of `id` among `statuses`, "Unknown" when absent. */
const findStatus = (statuses: Status[] | undefined, id: string) => statuses?.find((status) => status.id === id)?.state ?? 'Unknown'

/** WatchStatus: the states after which the CLI stops polling a service (those ending in ERROR fail it). */
const SERVICE_FINAL = ['DEPLOYED', 'DELETED', 'STOPPED', 'CANCELED', 'RESTARTED']
/** WatchEnvironmentWithOptions: the environment's last deployment states after which it stops. */
const ENVIRONMENT_FINAL = ['DEPLOYED', 'RESTARTED', 'DELETED', 'STOPPED', 'CANCELED']
const isError = (state: string) => state.endsWith('ERROR')

/** WatchContainer/WatchHelm/…: polls the service's status until a final state, then the environment's. */
async function watchService(read: () => Promise<Status>, client: Cli, environmentId: string) {
  const status = await until(read, (s) => SERVICE_FINAL.includes(s.state) || isError(s.state), { what: 'service watch' })
  const environment = await watchEnvironment(client, environmentId)
  return { state: status.state, environmentState: environment }
}

/** WatchEnvironment: GetEnvironmentStatuses until environment.last_deployment_state is final. */
async function watchEnvironment(client: Cli, environmentId: string) {
  const statuses = await until(
    async () => (await client.environmentMain.getEnvironmentStatuses(environmentId)).data,
    (s) => ENVIRONMENT_FINAL.includes(s.environment.last_deployment_state) || isError(s.environment.last_deployment_state),
    { what: 'environment watch' },
  )
  return statuses.environment.last_deployment_state
}

describe('context and list commands', () => {
  it('resolves --organization/--project/--environment by name and lists every kind with its status (container/database/helm/cronjob/lifecycle/service list)', async () => {
    const f = await fixture()
    const { environmentId } = await resolveContext(f.client, {
      organization: f.organization.name,
      project: f.project.name,
      environment: f.environment.name,
    })
    assert.equal(environmentId, f.environment.id)

    // container list: ListContainer + GetEnvironmentStatuses; prints id, name, status, updated_at.
    const containers = (await f.client.containers.listContainer(environmentId)).data.results ?? []
    const statuses = (await f.client.environmentMain.getEnvironmentStatuses(environmentId)).data
    const listed = containers.find((container) => container.id === f.container.id)
    assert.ok(listed)
    assert.equal(listed.name, f.container.name)
    assert.ok(listed.updated_at === undefined || typeof listed.updated_at === 'string')
    assert.equal(findStatus(statuses.containers, f.container.id), 'READY', 'a never-deployed container is READY, not Unknown')

    // service list: the five lists, then each found in its kind's statuses.
    const [apps, databases, jobs, helms] = await Promise.all([
      f.client.applications.listApplication(environmentId),
      f.client.databases.listDatabase(environmentId),
      f.client.jobs.listJobs(environmentId),
      f.client.helms.listHelms(environmentId),
    ])
    assert.deepEqual(apps.data.results, [])
    assert.equal(findStatus(statuses.databases, byName(databases.data.results, f.database.name)!.id), 'READY')
    assert.equal(findStatus(statuses.helms, byName(helms.data.results, f.helm.name)!.id), 'READY')
    // utils.GetJobId reads the id of whichever of CronJobResponse/LifecycleJobResponse it is.
    const [job] = jobs.data.results ?? []
    assert.equal((job as { id: string }).id, f.job.id)
    assert.equal((job as { job_type?: string }).job_type, 'LIFECYCLE')
    assert.equal(findStatus(statuses.jobs, f.job.id), 'READY')
  })

  it('environment list (ListEnvironment + GetProjectEnvironmentsStatus) and project list (ListProject)', async () => {
    const f = await fixture()
    const environments = (await f.client.environments.listEnvironment(f.project.id)).data.results ?? []
    const [environment] = environments
    assert.deepEqual([environment?.id, environment?.name, environment?.mode], [f.environment.id, f.environment.name, 'DEVELOPMENT'])
    assert.equal(typeof environment?.cluster_name, 'string')
    // Then GET /project/{id}/environment/status: each environment's `state`, found by id (GetEnvironmentStatus).
    const statuses = (await f.client.environments.getProjectEnvironmentsStatus(f.project.id)).data.results ?? []
    assert.deepEqual(
      statuses.map((status) => [status.id, status.state]),
      [[f.environment.id, 'READY']],
    )
    // Another organization's project is not found.
    const stranger = await fixture()
    assert.equal(await rejectedStatus(stranger.client.environments.getProjectEnvironmentsStatus(f.project.id)), 404)

    const projects = (await f.client.projects.listProject(f.organization.id)).data.results ?? []
    assert.deepEqual(
      projects.map((project) => [project.id, project.name]),
      [[f.project.id, f.project.name]],
    )
  })
})

describe('deploy, stop, redeploy and cancel of a service, with --watch', () => {
  it('container deploy (DeployAllServices with its tag), stop (StopSelectedServices), redeploy (DeployContainer with an empty image_tag)', async () => {
    const f = await fixture()
    const { environmentId } = await resolveContext(f.client, {
      organization: f.organization.name,
      project: f.project.name,
      environment: f.environment.name,
    })
    const container = byName((await f.client.containers.listContainer(environmentId)).data.results, f.container.name)!
    const readStatus = async () => (await f.client.containerMain.getContainerStatus(container.id)).data

    // utils.DeployContainers: the tag the container has unless --tag says otherwise.
    await f.client.environmentActions.deployAllServices(environmentId, { containers: [{ id: container.id, image_tag: container.tag }] })
    assert.deepEqual(await watchService(readStatus, f.client, environmentId), { state: 'DEPLOYED', environmentState: 'DEPLOYED' })

    await f.client.environmentActions.stopSelectedServices(environmentId, { container_ids: [container.id] })
    assert.deepEqual(await watchService(readStatus, f.client, environmentId), { state: 'STOPPED', environmentState: 'STOPPED' })

    // container redeploy: DeployContainer(ContainerDeployRequest{}), whose required image_tag the Go
    // client sends empty: the configured tag.
    await f.client.containerActions.deployContainer(container.id, { image_tag: '' })
    const redeployed = await watchService(readStatus, f.client, environmentId)
    assert.equal(redeployed.state, 'DEPLOYED')
    assert.equal(redeployed.environmentState, 'DEPLOYED')
  })

  it('database, helm and lifecycle deploy/stop through the bulk actions and their redeploy, watched on their own status endpoints', async () => {
    const f = await fixture()
    const environmentId = f.environment.id
    // utils.DeployDatabases: ids only; DeployHelms: no chart version unless --chart_version; DeployJobs: the image's tag.
    await f.client.environmentActions.deployAllServices(environmentId, { databases: [f.database.id] })
    const db = await watchService(async () => (await f.client.databaseMain.getDatabaseStatus(f.database.id)).data, f.client, environmentId)
    assert.equal(db.state, 'DEPLOYED')
    await f.client.environmentActions.deployAllServices(environmentId, { helms: [{ id: f.helm.id }] })
    const helm = await watchService(async () => (await f.client.helmMain.getHelmStatus(f.helm.id)).data, f.client, environmentId)
    assert.equal(helm.state, 'DEPLOYED')
    const job = (await f.client.jobMain.getJob(f.job.id)).data as { source: { image?: { tag: string } } }
    await f.client.environmentActions.deployAllServices(environmentId, { jobs: [{ id: f.job.id, image_tag: job.source.image?.tag }] })
    const deployedJob = await watchService(async () => (await f.client.jobMain.getJobStatus(f.job.id)).data, f.client, environmentId)
    assert.equal(deployedJob.state, 'DEPLOYED')

    await f.client.environmentActions.stopSelectedServices(environmentId, { database_ids: [f.database.id], helm_ids: [f.helm.id] })
    // More than one service: WatchEnvironment, counting the services in the final state asked for.
    const statuses = await until(
      async () => (await f.client.environmentMain.getEnvironmentStatuses(environmentId)).data,
      (s) => ENVIRONMENT_FINAL.includes(s.environment.last_deployment_state),
    )
    assert.equal(statuses.environment.last_deployment_state, 'STOPPED')
    assert.equal(findStatus(statuses.databases, f.database.id), 'STOPPED')
    assert.equal(findStatus(statuses.helms, f.helm.id), 'STOPPED')

    // database redeploy: DeployDatabase without a body.
    assert.equal((await f.client.databaseActions.deployDatabase(f.database.id)).status, 202)
    assert.equal(
      (await watchService(async () => (await f.client.databaseMain.getDatabaseStatus(f.database.id)).data, f.client, environmentId)).state,
      'DEPLOYED',
    )
    // helm and lifecycle redeploy: DeployHelm and DeployJob with an empty request ({}).
    await f.client.helmActions.deployHelm(f.helm.id, undefined, {})
    assert.equal((await watchService(async () => (await f.client.helmMain.getHelmStatus(f.helm.id)).data, f.client, environmentId)).state, 'DEPLOYED')
    await f.client.jobActions.deployJob(f.job.id, undefined, {})
    assert.equal((await watchService(async () => (await f.client.jobMain.getJobStatus(f.job.id)).data, f.client, environmentId)).state, 'DEPLOYED')
  })

  it('container cancel: GetEnvironmentStatuses, and CancelEnvironmentDeployment (no body) while the container is not in a final state', async () => {
    const f = await fixture()
    const environmentId = f.environment.id
    await f.client.environmentActions.deployAllServices(environmentId, {
      containers: [{ id: f.container.id, image_tag: '1.0.0' }],
      databases: [f.database.id],
      helms: [{ id: f.helm.id }],
    })
    // utils.CancelServiceDeployment: nothing to cancel when the environment's state is terminal.
    const statuses = (await f.client.environmentMain.getEnvironmentStatuses(environmentId)).data
    assert.ok(!isTerminal(statuses.environment.state), `a queued deployment is not terminal: ${statuses.environment.state}`)
    assert.ok(!isTerminal(findStatus(statuses.containers, f.container.id)))
    const { data: canceled } = await f.client.environmentActions.cancelEnvironmentDeployment(environmentId)
    assert.equal(canceled.id, environmentId)
    // --watch: WatchEnvironmentWithOptions(…, CANCELED, …) until a final last deployment state.
    assert.equal(await watchEnvironment(f.client, environmentId), 'CANCELED')
    const after = (await f.client.environmentMain.getEnvironmentStatuses(environmentId)).data
    assert.ok(isTerminal(after.environment.state), 'after the cancel, nothing left to cancel')
  })
})

/** utils.IsTerminalState. */
const isTerminal = (state: string) => [...SERVICE_FINAL, 'READY'].includes(state) || isError(state)

describe('deploy, stop, redeploy and cancel of an environment, with --watch', () => {
  it('environment deploy and redeploy (DeployEnvironment), stop (StopEnvironment), cancel ({force_cancel})', async () => {
    const f = await fixture()
    const environmentId = f.environment.id
    const { data: queued } = await f.client.environmentActions.deployEnvironment(environmentId)
    assert.equal(queued.id, environmentId)
    assert.equal(await watchEnvironment(f.client, environmentId), 'DEPLOYED')
    const statuses = (await f.client.environmentMain.getEnvironmentStatuses(environmentId)).data
    for (const [list, id] of [
      [statuses.containers, f.container.id],
      [statuses.databases, f.database.id],
      [statuses.helms, f.helm.id],
      [statuses.jobs, f.job.id],
    ] as const) {
      assert.equal(findStatus(list, id), 'DEPLOYED', id)
    }

    await f.client.environmentActions.stopEnvironment(environmentId)
    assert.equal(await watchEnvironment(f.client, environmentId), 'STOPPED')

    await f.client.environmentActions.deployEnvironment(environmentId)
    const { data: canceled } = await f.client.environmentActions.cancelEnvironmentDeployment(environmentId, { force_cancel: false })
    assert.equal(canceled.id, environmentId)
    assert.equal(await watchEnvironment(f.client, environmentId), 'CANCELED')
  })

  it('environment statuses prints each kind’s id and state; environment deployment list reads the v1 history', async () => {
    const f = await fixture()
    const { data: statuses } = await f.client.environmentMain.getEnvironmentStatuses(f.environment.id)
    assert.deepEqual(
      [statuses.applications, statuses.containers?.map((s) => [s.id, s.state]), statuses.environment.id],
      [[], [[f.container.id, 'READY']], f.environment.id],
    )
    // `environment deployment list`: ListEnvironmentDeploymentHistory (v1), printing each entry's
    // id, created_at, status and updated_at - created_at.
    await f.client.containerActions.deployContainer(f.container.id, { image_tag: '' })
    await watchEnvironment(f.client, f.environment.id)
    const { data: history } = await f.client.environmentHistory.listEnvironmentDeploymentHistory(f.environment.id)
    assert.equal(history.page, 1)
    assert.equal(history.results?.length, 1)
    const [entry] = history.results!
    const { data: v2 } = await f.client.environmentHistory.listEnvironmentDeploymentHistoryV2(f.environment.id)
    const [latest] = v2.results ?? []
    assert.equal(entry!.id, latest!.identifier.execution_id)
    assert.equal(entry!.status, 'DEPLOYED')
    assert.ok(Date.parse(entry!.updated_at!) >= Date.parse(entry!.created_at))
    assert.deepEqual(
      entry!.containers?.map((container) => [container.id, container.name, container.status, container.tag]),
      [[f.container.id, f.container.name, 'DEPLOYED', (latest!.stages[0]!.services[0]!.details as { tag?: string }).tag]],
    )
    const stranger = await fixture()
    assert.equal(await rejectedStatus(stranger.client.environmentHistory.listEnvironmentDeploymentHistory(f.environment.id)), 404)
  })

  it('environment clone: CloneEnvironment({name, apply_deployment_rule}), then found by name in the project', async () => {
    const f = await fixture()
    const name = uniqueName('clone')
    const { data: clone } = await f.client.environmentActions.cloneEnvironment(f.environment.id, { name, apply_deployment_rule: false })
    assert.equal(clone.name, name)
    const listed = byName((await f.client.environments.listEnvironment(f.project.id)).data.results, name)
    assert.equal(listed?.id, clone.id)
    const containers = (await f.client.containers.listContainer(clone.id)).data.results ?? []
    assert.deepEqual(
      containers.map((container) => container.name),
      [f.container.name],
    )
  })
})

describe('env commands', () => {
  it('container env list/create/update/delete, alias create and override create at the scopes the CLI supports', async () => {
    const f = await fixture()
    const v = f.client.variables
    const listFor = async () => (await v.listVariables(f.container.id, APIVariableScopeEnum.CONTAINER)).data.results ?? []
    const findKey = async (key: string) => (await listFor()).find((variable) => variable.key === key)

    // env create --scope CONTAINER / ENVIRONMENT / PROJECT (utils.CreateServiceVariable).
    for (const [key, scope, parent] of [
      ['ON_CONTAINER', APIVariableScopeEnum.CONTAINER, f.container.id],
      ['ON_ENVIRONMENT', APIVariableScopeEnum.ENVIRONMENT, f.environment.id],
      ['ON_PROJECT', APIVariableScopeEnum.PROJECT, f.project.id],
    ] as const) {
      await v.createVariable({ key, value: `${key}-value`, is_secret: false, variable_scope: scope, variable_parent_id: parent })
    }
    await v.createVariable({
      key: 'A_SECRET',
      value: 's3cr3t',
      is_secret: true,
      variable_scope: APIVariableScopeEnum.CONTAINER,
      variable_parent_id: f.container.id,
    })

    // env list: ListVariables(parent_id, scope); prints key, value, scope, and aliased/overridden keys.
    const listed = await listFor()
    const byKey = Object.fromEntries(listed.map((variable) => [variable.key, variable]))
    assert.equal(byKey.ON_CONTAINER?.value, 'ON_CONTAINER-value')
    assert.equal(byKey.ON_CONTAINER?.scope, 'CONTAINER')
    assert.equal(byKey.ON_ENVIRONMENT?.scope, 'ENVIRONMENT')
    assert.equal(byKey.ON_PROJECT?.scope, 'PROJECT')
    assert.equal(byKey.A_SECRET?.is_secret, true)
    assert.equal(byKey.A_SECRET?.value ?? null, null, 'a secret’s value is never listed')

    // env update (utils.UpdateServiceVariable): found by key, EditVariable({key, value}).
    const own = await findKey('ON_CONTAINER')
    await v.editVariable(own!.id, { key: 'ON_CONTAINER', value: 'changed' })
    assert.equal((await findKey('ON_CONTAINER'))?.value, 'changed')

    // env alias create --scope CONTAINER of a project variable (utils.CreateServiceAlias).
    const projectVariable = await findKey('ON_PROJECT')
    await v.createVariableAlias(projectVariable!.id, {
      key: 'PROJECT_ALIAS',
      alias_scope: APIVariableScopeEnum.CONTAINER,
      alias_parent_id: f.container.id,
    })
    const alias = await findKey('PROJECT_ALIAS')
    assert.equal(alias?.aliased_variable?.key, 'ON_PROJECT')

    // env override create --scope CONTAINER of an environment variable (utils.CreateServiceOverride).
    const environmentVariable = await findKey('ON_ENVIRONMENT')
    await v.createVariableOverride(environmentVariable!.id, {
      value: 'overridden',
      override_scope: APIVariableScopeEnum.CONTAINER,
      override_parent_id: f.container.id,
    })
    const overridden = (await listFor()).filter((variable) => variable.key === 'ON_ENVIRONMENT')
    assert.ok(overridden.some((variable) => variable.value === 'overridden' && variable.overridden_variable?.key === 'ON_ENVIRONMENT'))

    // The same two at --scope ENVIRONMENT, of the project variable.
    await v.createVariableAlias(projectVariable!.id, {
      key: 'ENV_ALIAS',
      alias_scope: APIVariableScopeEnum.ENVIRONMENT,
      alias_parent_id: f.environment.id,
    })
    assert.equal((await findKey('ENV_ALIAS'))?.scope, 'ENVIRONMENT')
    await v.createVariableOverride(projectVariable!.id, {
      value: 'env-wide',
      override_scope: APIVariableScopeEnum.ENVIRONMENT,
      override_parent_id: f.environment.id,
    })
    const projectOverridden = (await listFor()).filter((variable) => variable.key === 'ON_PROJECT')
    assert.ok(projectOverridden.some((variable) => variable.value === 'env-wide' && variable.scope === 'ENVIRONMENT'))

    // env delete (utils.DeleteServiceVariable): found by key, DeleteVariable.
    await v.deleteVariable((await findKey('A_SECRET'))!.id)
    assert.equal(await findKey('A_SECRET'), undefined)

    // The other kinds list at their own scope.
    await v.createVariable({ key: 'ON_HELM', value: 'h', is_secret: false, variable_scope: APIVariableScopeEnum.HELM, variable_parent_id: f.helm.id })
    const helmKeys = ((await v.listVariables(f.helm.id, APIVariableScopeEnum.HELM)).data.results ?? []).map((variable) => variable.key)
    assert.ok(helmKeys.includes('ON_HELM') && helmKeys.includes('ON_PROJECT'))
    const jobKeys = ((await v.listVariables(f.job.id, APIVariableScopeEnum.JOB)).data.results ?? []).map((variable) => variable.key)
    assert.ok(jobKeys.includes('ON_ENVIRONMENT') && !jobKeys.includes('ON_HELM'))
  })
})

describe('domain commands', () => {
  it('container domain list/create/edit/delete, and helm domain list/edit/delete', async () => {
    const f = await fixture()
    const domain = `${uniqueName('web').replace(' ', '-')}.example.com`
    const list = async () => (await f.client.containerDomains.listContainerCustomDomain(f.container.id)).data.results ?? []

    // domain create: refuses an existing domain (FindByCustomDomainName), then creates it.
    assert.equal(
      (await list()).find((entry) => entry.domain === domain),
      undefined,
    )
    const { data: created } = await f.client.containerDomains.createContainerCustomDomain(f.container.id, {
      domain,
      generate_certificate: true,
      use_cdn: false,
    })
    assert.deepEqual([created.domain, created.generate_certificate], [domain, true])

    // domain list: the custom domains (id, domain, validation_domain) and the links (url).
    const [listed] = await list()
    assert.deepEqual([listed?.id, listed?.domain], [created.id, domain])
    const links = (await f.client.containerMain.listContainerLinks(f.container.id)).data.results ?? []
    for (const link of links) assert.equal(typeof link.url, 'string')

    // domain edit --generate-certificate=false: found by domain, EditContainerCustomDomain.
    const { data: edited } = await f.client.containerDomains.editContainerCustomDomain(f.container.id, created.id, {
      domain,
      generate_certificate: false,
      use_cdn: false,
    })
    assert.deepEqual([edited.id, edited.generate_certificate], [created.id, false])

    await f.client.containerDomains.deleteContainerCustomDomain(f.container.id, created.id)
    assert.deepEqual(await list(), [])

    // helm domain: the CLI has no create; list, edit and delete one made through the API.
    const helmDomain = `${uniqueName('chart').replace(' ', '-')}.example.com`
    const { data: made } = await f.client.helmDomains.createHelmCustomDomain(f.helm.id, { domain: helmDomain, generate_certificate: true })
    const helmListed = (await f.client.helmDomains.listHelmCustomDomain(f.helm.id)).data.results ?? []
    assert.deepEqual(
      helmListed.map((entry) => entry.domain),
      [helmDomain],
    )
    for (const link of (await f.client.helmMain.listHelmLinks(f.helm.id)).data.results ?? []) assert.equal(typeof link.url, 'string')
    const { data: helmEdited } = await f.client.helmDomains.editHelmCustomDomain(f.helm.id, made.id, {
      domain: helmDomain,
      generate_certificate: false,
      use_cdn: false,
    })
    assert.equal(helmEdited.generate_certificate, false)
    await f.client.helmDomains.deleteHelmCustomDomain(f.helm.id, made.id)
    assert.deepEqual((await f.client.helmDomains.listHelmCustomDomain(f.helm.id)).data.results, [])
  })
})

describe('environment stage commands', () => {
  it('stage list/create/edit/move/skip/unskip/delete', async () => {
    const f = await fixture()
    const stages = f.client.stages
    const list = async () => (await stages.listEnvironmentDeploymentStage(f.environment.id)).data.results ?? []

    // stage list: each stage's id, name, description, and its services' service_id and
    // service_type, whose name it reads with GetServiceNameByIdAndType.
    const initial = await list()
    const containerStage = initial.find((stage) => stage.services?.some((service) => service.service_id === f.container.id))
    assert.ok(containerStage)
    const service = containerStage.services!.find((entry) => entry.service_id === f.container.id)!
    assert.equal(service.service_type, 'CONTAINER')
    assert.equal((await f.client.containerMain.getContainer(service.service_id!)).data.name, f.container.name)
    const typed = initial
      .flatMap((stage) => stage.services ?? [])
      .map((entry) => entry.service_type)
      .sort()
    assert.deepEqual(typed, ['CONTAINER', 'DATABASE', 'HELM', 'JOB'])

    // stage create: {name, description}.
    await stages.createEnvironmentDeploymentStage(f.environment.id, { name: 'first', description: 'made by the CLI' })
    const made = (await list()).find((stage) => stage.name === 'first')
    assert.equal(made?.description, 'made by the CLI')

    // stage edit: found by name, EditDeploymentStage({name, description}).
    await stages.editDeploymentStage(made!.id, { name: 'renamed', description: 'edited' })
    const edited = (await list()).find((stage) => stage.id === made!.id)
    assert.deepEqual([edited?.name, edited?.description], ['renamed', 'edited'])

    // stage move: AttachServiceToDeploymentStage(stage, service) with no body.
    await stages.attachServiceToDeploymentStage(made!.id, f.container.id)
    const moved = (await list()).find((stage) => stage.id === made!.id)
    assert.deepEqual(
      moved?.services?.map((entry) => entry.service_id),
      [f.container.id],
    )

    // stage skip/unskip: the same call with {is_skipped}.
    await stages.attachServiceToDeploymentStage(made!.id, f.container.id, { is_skipped: true })
    const skipped = (await list()).find((stage) => stage.id === made!.id)?.services?.[0]
    assert.equal(skipped?.is_skipped, true)
    await stages.attachServiceToDeploymentStage(made!.id, f.container.id, { is_skipped: false })
    assert.equal((await list()).find((stage) => stage.id === made!.id)?.services?.[0]?.is_skipped, false)

    // stage delete: found by name, DeleteDeploymentStage (its services go back to a default stage).
    await stages.attachServiceToDeploymentStage(containerStage.id, f.container.id)
    await stages.deleteDeploymentStage(made!.id)
    assert.equal(
      (await list()).find((stage) => stage.id === made!.id),
      undefined,
    )
  })
})

describe('terraform commands', () => {
  it('terraform list, plan-and-apply (DeployAllServices), plan, force-unlock, migrate-state (DeployTerraform with its action), delete --skip-destroy and --resources-only', async () => {
    const f = await fixture()
    const environmentId = f.environment.id
    const name = uniqueName('infra')
    await f.client.terraforms.createTerraform(environmentId, {
      name,
      description: '',
      auto_deploy_config: { auto_deploy: false, terraform_action: 'DEFAULT' },
      terraform_files_source: { git_repository: { url: 'https://github.com/acme/infra.git', branch: 'main' } },
      terraform_variables_source: { tf_var_file_paths: [], tf_vars: [] },
      backend: { kubernetes: {} },
      engine: 'OPEN_TOFU',
      provider_version: { explicit_version: '1.9.4' },
      job_resources: { cpu_milli: 500, ram_mib: 512, gpu: 0, storage_gib: 1 },
    })

    // terraform list: ListTerraforms, GetEnvironmentStatuses, each terraform's state by its id.
    const terraform = byName((await f.client.terraforms.listTerraforms(environmentId)).data.results, name)!
    assert.equal(terraform.service_type, servedWord('IAC'))
    const statuses = (await f.client.environmentMain.getEnvironmentStatuses(environmentId)).data
    assert.equal(findStatus(statuses.terraforms, terraform.id), 'READY')

    // plan-and-apply: DeployAllServices with the terraforms (and the commit when --commit-id is given).
    await f.client.environmentActions.deployAllServices(environmentId, { terraforms: [{ id: terraform.id }] })
    assert.equal(await watchEnvironment(f.client, environmentId), 'DEPLOYED')
    // plan, force-unlock, migrate-state: DeployTerraform with the action, one terraform at a time.
    for (const action of ['PLAN', 'FORCE_UNLOCK', 'MIGRATE_STATE'] as const) {
      await f.client.terraformActions.deployTerraform(terraform.id, { action })
      assert.equal(await watchEnvironment(f.client, environmentId), 'DEPLOYED')
    }
    const history = (await f.client.environmentHistory.listEnvironmentDeploymentHistoryV2(environmentId)).data.results ?? []
    assert.deepEqual(
      history
        .slice(0, 4)
        .map((entry) => [
          entry.trigger_action,
          entry.stages?.flatMap((stage) => stage.services ?? []).find((s) => s.identifier.service_id === terraform.id)?.status_details?.sub_action,
        ]),
      [
        ['IAC_MIGRATE_STATE', 'IAC_MIGRATE_STATE'],
        ['IAC_FORCE_UNLOCK', 'IAC_FORCE_UNLOCK_STATE'],
        ['DEPLOY', 'IAC_PLAN_ONLY'],
        ['DEPLOY', 'IAC_PLAN_AND_APPLY'],
      ].map((words) => words.map(servedWord)),
    )

    // delete --resources-only is the uninstall's: refused; delete --skip-destroy deletes without destroying.
    assert.equal(await rejectedStatus(f.client.terraformMain.deleteTerraform(terraform.id, true)), 400)
    assert.equal((await f.client.terraformMain.deleteTerraform(terraform.id, undefined, undefined, 'SKIP_DESTROY')).status, 204)
    await until(
      () =>
        f.client.terraformMain.getTerraform(terraform.id).then(
          (res) => res.status,
          (error) => error.response?.status,
        ),
      (status) => status === 404,
      { what: 'the terraform deleted' },
    )
    const [deleted] = (await f.client.environmentHistory.listEnvironmentDeploymentHistoryV2(environmentId)).data.results ?? []
    assert.equal(deleted?.trigger_action, 'DELETE')
    assert.equal(
      deleted?.stages?.flatMap((stage) => stage.services ?? []).find((s) => s.identifier.service_id === terraform.id)?.status_details?.sub_action,
      'NONE',
    )
  })
})
