import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { assertError, assertIsoTimestamp, assertValidationError, UUID } from './helpers/assertions.ts'
import {
  createDeploymentsApp,
  type DeploymentCalls,
  type DeploymentsTestApp,
  deploymentCalls,
  ISO_DURATION,
  SERVICE_KEYS,
  type ServiceEntry,
} from './helpers/deployments.ts'
import { factories } from './helpers/factories.ts'

// Deployments of one helm service: its triggers, its status and its own deploymentHistoryV2.

const PAGE_KEYS = ['has_more', 'next_start_id', 'page', 'page_size', 'results']

let t: DeploymentsTestApp
let make: ReturnType<typeof factories>
let calls: DeploymentCalls

before(async () => {
  t = await createDeploymentsApp(100)
  make = factories(t.db)
  calls = deploymentCalls(t.app)
})

after(() => t?.close())

const GIT_REPOSITORY = { url: 'https://github.com/acme/charts.git', branch: 'main', root_path: '/charts/api' }

describe('helm deployments', () => {
  it('deploys one helm service with a chart_version override, and its own history has the service-level entry', async () => {
    const { environment, tokens } = await make.environmentWithTokens()
    const helm = await make.helmService(environment.id)
    const other = await make.helmService(environment.id)

    const queued = await calls.trigger(`/helm/${helm.id}/deploy?forceEvent=DIFF`, tokens.deploy.authorization, { chart_version: '2.0.0' })
    assert.equal(queued.id, helm.id)
    assert.equal(queued.state, 'DEPLOYMENT_QUEUED')
    assert.equal(queued.service_deployment_status, 'NEVER_DEPLOYED')
    assert.equal(queued.is_part_last_deployment, true)
    assert.match(queued.execution_id, UUID)
    assert.equal(queued.deployment_request_id, queued.execution_id)
    assert.equal(queued.deployment_requests_count, 1)
    assertIsoTimestamp(queued.last_deployment_date, 'last_deployment_date')
    assert.deepEqual(queued.status_details, { action: 'DEPLOY', status: 'QUEUED', sub_action: 'NONE' })

    const [entry] = await calls.waitUntilIdle(environment.id, tokens.read.authorization)
    assert.equal(entry!.identifier.execution_id, queued.execution_id)
    assert.equal(entry!.trigger_action, 'DEPLOY')
    assert.equal(entry!.status, 'DEPLOYED')
    assert.deepEqual(
      entry!.stages.map((stage) => [stage.name, stage.services.map((service) => service.identifier.service_id)]),
      [['HELM DEFAULT', [helm.id]]],
      'a helm trigger deploys that service only',
    )
    const inEnvironment = entry!.stages[0]!.services[0]!
    assert.deepEqual(inEnvironment.details, { repository: { chart_name: 'app', chart_version: '2.0.0' } })

    const page = await calls.helmHistory(helm.id, tokens.read.authorization)
    assert.deepEqual(Object.keys(page).sort(), PAGE_KEYS)
    assert.deepEqual({ ...page, results: [] }, { page: 1, page_size: 20, results: [], next_start_id: null, has_more: false })
    assert.equal(page.results.length, 1)
    const own = page.results[0]!
    assert.deepEqual(Object.keys(own).sort(), SERVICE_KEYS)
    assert.deepEqual(own, inEnvironment, "the service's entry is the same in both histories")
    assert.deepEqual(own.identifier, { name: helm.name, service_id: helm.id, service_type: 'HELM', execution_id: queued.execution_id })
    assert.equal(own.status, 'DEPLOYED')
    assert.deepEqual(own.status_details, { action: 'DEPLOY', status: 'SUCCESS', sub_action: 'NONE' })
    assert.equal(own.auditing_data.created_at, queued.last_deployment_date)
    assert.equal(own.auditing_data.triggered_by, `API token ${tokens.deploy.name}`)
    assert.equal(own.auditing_data.origin, 'API')
    assert.equal(own.icon_uri, helm.iconUri)
    assert.match(own.total_duration, ISO_DURATION)

    assert.deepEqual((await calls.helmHistory(other.id, tokens.read.authorization)).results, [])
    const otherStatus = await calls.helmStatus(other.id, tokens.read.authorization)
    assert.equal(otherStatus.state, 'READY')
    assert.equal(otherStatus.is_part_last_deployment, false)
  })

  it('accepts a helm deploy without a body, and records a git commit for a chart in a git repository', async () => {
    const { environment, tokens } = await make.environmentWithTokens()
    const fromGit = await make.helmService(environment.id, { source: { git_repository: GIT_REPOSITORY } })
    await calls.trigger(`/helm/${fromGit.id}/deploy`, tokens.deploy.authorization)
    await calls.trigger(`/helm/${fromGit.id}/deploy`, tokens.deploy.authorization, { git_commit_id: 'abc123' })
    await calls.waitUntilIdle(environment.id, tokens.read.authorization)
    const [withCommit, withoutCommit] = (await calls.helmHistory(fromGit.id, tokens.read.authorization)).results as [ServiceEntry, ServiceEntry]
    assert.deepEqual(withoutCommit.details, { commit: null })
    assert.deepEqual(withCommit.details, { commit: null, git_commit_id: 'abc123' })
  })

  it('refuses (400) helm deploy overrides that do not fit the service, and queues nothing', async () => {
    const { environment, tokens } = await make.environmentWithTokens()
    const fromRepository = await make.helmService(environment.id)
    const fromGit = await make.helmService(environment.id, { source: { git_repository: GIT_REPOSITORY } })
    const refused: [string, object, string][] = [
      [fromRepository.id, { git_commit_id: 'abc123' }, '/git_commit_id'],
      [fromRepository.id, { chart_version: '2.0.0', git_commit_id: 'abc123' }, '/git_commit_id'],
      [fromRepository.id, { values_override_git_commit_id: 'abc123' }, '/values_override_git_commit_id'],
      [fromRepository.id, { chart_version: '' }, '/chart_version'],
      [fromRepository.id, { chart_version: 2 }, '/chart_version'],
      [fromGit.id, { chart_version: '2.0.0' }, '/chart_version'],
      [fromGit.id, { values_override_git_commit_id: 'abc123' }, '/values_override_git_commit_id'],
    ]
    for (const [helmId, body, path] of refused) {
      const errors = assertValidationError(await calls.inject('POST', `/helm/${helmId}/deploy`, tokens.deploy.authorization, body))
      assert.ok(
        errors.some((error) => error.path === path),
        `${JSON.stringify(body)}: ${JSON.stringify(errors)}`,
      )
    }
    assert.deepEqual(await calls.entries(environment.id, tokens.read.authorization), [])

    const withValuesFile = await make.helmService(environment.id, {
      values_override: { file: { git: { git_repository: GIT_REPOSITORY, paths: ['/values.yaml'] } } },
    })
    await calls.trigger(`/helm/${withValuesFile.id}/deploy`, tokens.deploy.authorization, {
      chart_version: '2.0.0',
      values_override_git_commit_id: 'abc',
    })
  })

  it('uninstalls: 204 while the chart is not installed, 202 when a queued deployment installs it, DELETED after', async () => {
    const { environment, tokens } = await make.environmentWithTokens()
    const helm = await make.helmService(environment.id)
    const url = `/helm/${helm.id}/uninstall`

    const nothing = await calls.inject('POST', url, tokens.deploy.authorization)
    assert.equal(nothing.statusCode, 204, nothing.body)
    assert.equal(nothing.body, '')
    assert.equal((await calls.inject('POST', url, tokens.deploy.authorization, {})).statusCode, 204)
    assert.deepEqual(await calls.entries(environment.id, tokens.read.authorization), [], 'an uninstall of nothing queues nothing')

    // Deployments of another service of the environment ahead in the queue keep the deploy queued.
    const busy = await make.helmService(environment.id)
    for (let i = 0; i < 4; i++) await calls.trigger(`/helm/${busy.id}/redeploy`, tokens.deploy.authorization)
    const deploying = await calls.trigger(`/helm/${helm.id}/deploy`, tokens.deploy.authorization)
    const uninstalling = await calls.trigger(url, tokens.deploy.authorization)
    assert.equal(uninstalling.state, 'DELETE_QUEUED')
    assert.deepEqual(uninstalling.status_details, { action: 'DELETE', status: 'QUEUED', sub_action: 'NONE' })
    const queue = await calls.entries(environment.id, tokens.read.authorization)
    assert.equal(
      queue.find((entry) => entry.identifier.execution_id === deploying.execution_id)?.status,
      'DEPLOYMENT_QUEUED',
      'the deploy is still queued',
    )

    const [uninstall, deploy] = await calls.waitUntilIdle(environment.id, tokens.read.authorization)
    assert.equal(deploy!.status, 'DEPLOYED')
    assert.equal(uninstall!.identifier.execution_id, uninstalling.execution_id)
    assert.equal(uninstall!.trigger_action, 'UNINSTALL')
    assert.equal(uninstall!.status, 'DELETED')
    assert.equal(uninstall!.action_status, 'SUCCESS')
    const service = uninstall!.stages[0]!.services[0]!
    assert.equal(service.status, 'DELETED')
    assert.deepEqual(service.status_details, { action: 'DELETE', status: 'SUCCESS', sub_action: 'NONE' })

    const status = await calls.helmStatus(helm.id, tokens.read.authorization)
    assert.equal(status.state, 'DELETED')
    assert.deepEqual(status.status_details, { action: 'DELETE', status: 'SUCCESS', sub_action: 'NONE' })
    assert.equal((await calls.inject('POST', url, tokens.deploy.authorization)).statusCode, 204, 'already uninstalled')
  })

  it('fails an uninstall the service is configured to fail', async () => {
    const { environment, tokens } = await make.environmentWithTokens()
    const helm = await make.helmService(environment.id, { values_override: { set_string: [['berth.simulate.fail', 'uninstall']] } })
    await calls.trigger(`/helm/${helm.id}/deploy`, tokens.deploy.authorization)
    await calls.trigger(`/helm/${helm.id}/uninstall`, tokens.deploy.authorization)
    const [uninstall, deploy] = await calls.waitUntilIdle(environment.id, tokens.read.authorization)
    assert.equal(deploy!.status, 'DEPLOYED')
    assert.equal(uninstall!.status, 'DELETE_ERROR')
    assert.equal(uninstall!.action_status, 'ERROR')
    assert.deepEqual(uninstall!.stages[0]!.services[0]!.status_details, { action: 'DELETE', status: 'ERROR', sub_action: 'NONE' })
    assert.equal((await calls.helmStatus(helm.id, tokens.read.authorization)).state, 'DELETE_ERROR')
  })

  it('reports NEVER_DEPLOYED, UP_TO_DATE, then OUT_OF_DATE once the service is edited, and UP_TO_DATE again after a redeploy', async () => {
    const { environment, tokens } = await make.environmentWithTokens()
    const helm = await make.helmService(environment.id)

    assert.deepEqual(await calls.helmStatus(helm.id, tokens.read.authorization), {
      id: helm.id,
      state: 'READY',
      service_deployment_status: 'NEVER_DEPLOYED',
      is_part_last_deployment: false,
      status_details: { action: 'DEPLOY', status: 'NEVER', sub_action: 'NONE' },
      deployment_request_id: null,
      deployment_requests_count: 0,
    })
    assert.deepEqual(await calls.environmentStatus(environment.id, tokens.read.authorization), {
      id: environment.id,
      state: 'READY',
      last_deployment_date: null,
      last_deployment_state: 'READY',
      last_deployment_id: null,
      total_deployment_duration_in_seconds: null,
      origin: null,
      triggered_by: null,
      deployment_status: 'NEVER_DEPLOYED',
      deployment_request_id: null,
    })

    const deployed = await calls.trigger(`/environment/${environment.id}/deploy`, tokens.deploy.authorization)
    const [entry] = await calls.waitUntilIdle(environment.id, tokens.read.authorization)
    assert.deepEqual(await calls.helmStatus(helm.id, tokens.read.authorization), {
      id: helm.id,
      state: 'DEPLOYED',
      service_deployment_status: 'UP_TO_DATE',
      last_deployment_date: entry!.auditing_data.created_at,
      is_part_last_deployment: true,
      execution_id: deployed.execution_id,
      status_details: { action: 'DEPLOY', status: 'SUCCESS', sub_action: 'NONE' },
      deployment_request_id: null,
      deployment_requests_count: 0,
    })
    assert.equal((await calls.environmentStatus(environment.id, tokens.read.authorization)).deployment_status, 'UP_TO_DATE')

    const source = 'helmRepository' in helm.source ? helm.source.helmRepository : assert.fail('a chart of a helm repository')
    const edited = await calls.inject('PUT', `/helm/${helm.id}`, tokens.write.authorization, {
      name: helm.name,
      auto_deploy: false,
      source: { helm_repository: { repository: source.repositoryId, chart_name: 'app', chart_version: '1.1.0' } },
      arguments: [],
      values_override: {},
    })
    assert.equal(edited.statusCode, 200, edited.body)
    assert.equal((await calls.helmStatus(helm.id, tokens.read.authorization)).service_deployment_status, 'OUT_OF_DATE')
    assert.equal((await calls.environmentStatus(environment.id, tokens.read.authorization)).deployment_status, 'OUT_OF_DATE')

    const restarting = await calls.trigger(`/helm/${helm.id}/redeploy`, tokens.deploy.authorization)
    assert.equal(restarting.state, 'RESTART_QUEUED')
    assert.equal(restarting.service_deployment_status, 'OUT_OF_DATE')
    assert.deepEqual(restarting.status_details, { action: 'RESTART', status: 'QUEUED', sub_action: 'NONE' })
    const [restart] = await calls.waitUntilIdle(environment.id, tokens.read.authorization)
    assert.equal(restart!.status, 'RESTARTED')
    assert.deepEqual(restart!.stages[0]!.services[0]!.details, { repository: { chart_name: 'app', chart_version: '1.1.0' } })
    const status = await calls.helmStatus(helm.id, tokens.read.authorization)
    assert.equal(status.state, 'RESTARTED')
    assert.equal(status.service_deployment_status, 'UP_TO_DATE')
    assert.equal((await calls.environmentStatus(environment.id, tokens.read.authorization)).deployment_status, 'UP_TO_DATE')
  })

  it('pages the helm history with startId, filters it, and refuses a startId that is not of this service', async () => {
    const { environment, tokens } = await make.environmentWithTokens()
    const helm = await make.helmService(environment.id)
    const other = await make.helmService(environment.id)
    const environmentDeploy = await calls.trigger(`/environment/${environment.id}/deploy`, tokens.deploy.authorization)
    const helmDeploy = await calls.trigger(`/helm/${helm.id}/deploy`, tokens.deploy.authorization)
    const otherDeploy = await calls.trigger(`/helm/${other.id}/deploy`, tokens.deploy.authorization)
    const helmRedeploy = await calls.trigger(`/helm/${helm.id}/redeploy`, tokens.deploy.authorization)
    await calls.waitUntilIdle(environment.id, tokens.read.authorization)

    const first = await calls.helmHistory(helm.id, tokens.read.authorization, { pageSize: 2 })
    assert.deepEqual(
      first.results.map((entry) => entry.identifier.execution_id),
      [helmRedeploy.execution_id, helmDeploy.execution_id],
    )
    assert.equal(first.page, 1)
    assert.equal(first.page_size, 2)
    assert.equal(first.has_more, true)
    assert.equal(first.next_start_id, helmDeploy.execution_id)
    const second = await calls.helmHistory(helm.id, tokens.read.authorization, { pageSize: 2, startId: first.next_start_id! })
    assert.deepEqual(
      second.results.map((entry) => entry.identifier.execution_id),
      [environmentDeploy.execution_id],
    )
    assert.deepEqual({ ...second, results: [] }, { page: 2, page_size: 2, results: [], next_start_id: null, has_more: false })

    const restarts = await calls.helmHistory(helm.id, tokens.read.authorization, { trigger_action: 'RESTART' })
    assert.deepEqual(
      restarts.results.map((entry) => [entry.identifier.execution_id, entry.status]),
      [[helmRedeploy.execution_id, 'RESTARTED']],
    )

    const url = (startId: string) => `/helm/${helm.id}/deploymentHistoryV2?startId=${startId}`
    for (const startId of [otherDeploy.execution_id, randomUUID(), 'nope']) {
      assertError(await calls.inject('GET', url(startId), tokens.read.authorization), 400, 'validation_failed')
    }
    assertValidationError(await calls.inject('GET', `/helm/${helm.id}/deploymentHistoryV2?pageSize=0`, tokens.read.authorization))

    const res = await calls.inject('GET', `/helm/${helm.id}/deploymentHistoryV2`, tokens.read.authorization)
    const etag = String(res.headers.etag)
    assert.match(etag, /^"[^"]+"$/)
    const cached = await calls.inject('GET', `/helm/${helm.id}/deploymentHistoryV2`, tokens.read.authorization, undefined, { 'if-none-match': etag })
    assert.equal(cached.statusCode, 304)
    assert.equal(cached.body, '')
  })
})
