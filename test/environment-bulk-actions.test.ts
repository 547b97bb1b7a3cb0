import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { Configuration, DeploymentStageMainCallsApi, EnvironmentActionsApi, EnvironmentMainCallsApi } from 'qovery-typescript-axios'
import { assertError, assertValidationError, rejectedStatus } from './helpers/assertions.ts'
import {
  createDeploymentsApp,
  type DeploymentCalls,
  type DeploymentsTestApp,
  deploymentCalls,
  ENVIRONMENT_STATUS_KEYS,
  type EnvironmentEntry,
  STATUS_KEYS,
} from './helpers/deployments.ts'
import { factories } from './helpers/factories.ts'

// The bulk actions of "Environment Actions" (what the CLI calls for every service command), one
// deployment of the selected services each; and what the environment tells of its services:
// their statuses, with and without stages, and the list of them in their kind's shape.

const STATUS_LIST_MEMBERS = ['applications', 'containers', 'databases', 'environment', 'helms', 'jobs', 'terraforms']

let d: DeploymentsTestApp
let make: ReturnType<typeof factories>
let calls: DeploymentCalls

before(async () => {
  d = await createDeploymentsApp(100)
  make = factories(d.db)
  calls = deploymentCalls(d.app)
})
after(() => d?.close())

/** The services of an entry, stage by stage, as [stage name, service ids]. */
const servicesOf = (entry: EnvironmentEntry) =>
  entry.stages.map((stage) => [stage.name, stage.services.map((service) => service.identifier.service_id).sort()])

/** A bulk action's request: expects `status`, returns the body. */
async function bulk(environmentId: string, action: string, authorization: string, payload: object | undefined, status: number) {
  const res = await calls.inject('POST', `/environment/${environmentId}/service/${action}`, authorization, payload)
  assert.equal(res.statusCode, status, `${action}: ${res.statusCode} ${res.body}`)
  return res.json()
}

describe('bulk deploys (deployAllServices)', () => {
  it('deploys only the selected helm services, with the chart version asked for, in one deployment', async () => {
    const { environment, tokens } = await make.environmentWithTokens()
    const [chosen, alsoChosen, left] = [
      await make.helmService(environment.id),
      await make.helmService(environment.id),
      await make.helmService(environment.id),
    ]
    const queued = await bulk(
      environment.id,
      'deploy',
      tokens.deploy.authorization,
      { helms: [{ id: chosen.id, chart_version: '9.9.9' }, { id: alsoChosen.id }] },
      202,
    )
    assert.deepEqual(Object.keys(queued).sort(), ENVIRONMENT_STATUS_KEYS)
    assert.equal(queued.id, environment.id)

    const entries = await calls.waitUntilIdle(environment.id, tokens.read.authorization)
    assert.equal(entries.length, 1, 'one deployment for the whole selection')
    const [entry] = entries as [EnvironmentEntry]
    assert.equal(entry.identifier.execution_id, queued.last_deployment_id, 'the answer names the deployment it queued')
    assert.deepEqual([entry.trigger_action, entry.status, entry.action_status], ['DEPLOY', 'DEPLOYED', 'SUCCESS'])
    assert.deepEqual(servicesOf(entry), [['HELM DEFAULT', [chosen.id, alsoChosen.id].sort()]], 'only the selected services')
    const details = Object.fromEntries(entry.stages[0]!.services.map((service) => [service.identifier.service_id, service.details]))
    assert.deepEqual(details[chosen.id], { repository: { chart_name: 'app', chart_version: '9.9.9' } }, 'the chart version asked for')
    assert.deepEqual(details[alsoChosen.id], { repository: { chart_name: 'app', chart_version: '1.0.0' } }, "the service's own chart version")

    for (const helm of [chosen, alsoChosen]) assert.equal((await calls.helmStatus(helm.id, tokens.read.authorization)).state, 'DEPLOYED')
    const untouched = await calls.helmStatus(left.id, tokens.read.authorization)
    assert.deepEqual(
      [untouched.state, untouched.service_deployment_status, untouched.status_details.status],
      ['READY', 'NEVER_DEPLOYED', 'NEVER'],
      'a service left out is never deployed',
    )
    assert.deepEqual((await calls.helmHistory(left.id, tokens.read.authorization)).results, [])
  })

  it('answers 400 at the path of each service that is not a helm service of this environment, and queues nothing', async () => {
    const { environment, project, tokens } = await make.environmentWithTokens()
    const helm = await make.helmService(environment.id)
    const elsewhere = await make.helmService((await make.environment(project.id)).id)
    const fromGit = await make.helmService(environment.id, {
      source: { git_repository: { url: 'https://github.com/acme/charts.git', branch: 'main', root_path: '/charts' } },
    })
    const auth = tokens.deploy.authorization
    const deploy = (payload?: object) => calls.inject('POST', `/environment/${environment.id}/service/deploy`, auth, payload)

    const errors = assertValidationError(await deploy({ helms: [{ id: helm.id }, { id: randomUUID() }, { id: elsewhere.id }] }))
    assert.deepEqual(
      errors.map((error) => error.path),
      ['/helms/1/id', '/helms/2/id'],
      'every wrong id at once, each at its own path',
    )
    assert.match(errors[0]!.message, /not a helm service of this environment/)
    assert.equal(assertValidationError(await deploy({ helms: [{ id: randomUUID() }] }))[0]!.path, '/helms/0/id')

    const asContainer = assertValidationError(await deploy({ containers: [{ id: helm.id }] }))
    assert.deepEqual(
      asContainer.map((error) => error.path),
      ['/containers/0/id'],
    )
    assert.match(asContainer[0]!.message, /not a container service/)

    // What its source cannot take is refused at the field that asks for it.
    const version = assertValidationError(await deploy({ helms: [{ id: fromGit.id, chart_version: '2.0.0' }] }))
    assert.deepEqual(
      version.map((error) => error.path),
      ['/helms/0/chart_version'],
    )

    for (const empty of [undefined, {}, { helms: [] }, { helms: [], containers: [] }]) {
      const error = assertValidationError(await deploy(empty))
      assert.match(error[0]!.message, /names no service/, JSON.stringify(empty))
    }
    assert.deepEqual(await calls.entries(environment.id, auth), [], 'nothing was queued')
  })

  it('needs the DEPLOY role (403 for READ), and hides another organization’s environment (404)', async () => {
    const { environment, tokens } = await make.environmentWithTokens()
    const helm = await make.helmService(environment.id)
    for (const token of [tokens.read]) {
      for (const [action, payload] of [
        ['deploy', { helms: [{ id: helm.id }] }],
        ['stop', { helm_ids: [helm.id] }],
        ['restart-service', { helm_ids: [helm.id] }],
        ['uninstall', { helm_ids: [helm.id] }],
        ['delete', { helm_ids: [helm.id] }],
      ] as const) {
        assertError(await calls.inject('POST', `/environment/${environment.id}/service/${action}`, token.authorization, payload), 403, 'forbidden')
      }
    }
    // Deleting services needs the role that may delete them, not only deploy them.
    assertError(
      await calls.inject('POST', `/environment/${environment.id}/service/delete`, tokens.deploy.authorization, { helm_ids: [helm.id] }),
      403,
      'forbidden',
    )
    const stranger = await make.organizationWithTokens()
    assertError(
      await calls.inject('POST', `/environment/${environment.id}/service/deploy`, stranger.tokens.admin.authorization, { helms: [{ id: helm.id }] }),
      404,
      'not_found',
    )
    assert.deepEqual(await calls.entries(environment.id, tokens.read.authorization), [])
  })
})

describe('bulk stop, restart, uninstall and delete', () => {
  it('stops the selected services only (200), then answers 409 while every one of them is already stopped', async () => {
    const { environment, tokens } = await make.environmentWithTokens()
    const [stopped, running] = [await make.helmService(environment.id), await make.helmService(environment.id)]
    const auth = tokens.deploy.authorization
    await calls.trigger(`/environment/${environment.id}/deploy`, auth)
    await calls.waitUntilIdle(environment.id, auth)

    const answer = await bulk(environment.id, 'stop', auth, { helm_ids: [stopped.id] }, 200)
    assert.deepEqual(Object.keys(answer).sort(), ENVIRONMENT_STATUS_KEYS)
    const [entry] = await calls.waitUntilIdle(environment.id, auth)
    assert.deepEqual([entry!.trigger_action, entry!.status], ['STOP', 'STOPPED'])
    assert.deepEqual(servicesOf(entry!), [['HELM DEFAULT', [stopped.id]]])
    assert.equal((await calls.helmStatus(stopped.id, auth)).state, 'STOPPED')
    assert.equal((await calls.helmStatus(running.id, auth)).state, 'DEPLOYED', 'a service not selected keeps running')

    assertError(await calls.inject('POST', `/environment/${environment.id}/service/stop`, auth, { helm_ids: [stopped.id] }), 409, 'conflict')
    // With one of them still running, the stop goes on.
    await bulk(environment.id, 'stop', auth, { helm_ids: [stopped.id, running.id] }, 200)
    await calls.waitUntilIdle(environment.id, auth)
    assert.equal((await calls.helmStatus(running.id, auth)).state, 'STOPPED')
    assert.equal((await calls.entries(environment.id, auth)).length, 3, 'the refused stop queued nothing')
  })

  it('restarts the selected services with the helm_ids extension, answering 202 and a Status', async () => {
    const { environment, tokens } = await make.environmentWithTokens()
    const [restarted, left] = [await make.helmService(environment.id), await make.helmService(environment.id)]
    const auth = tokens.deploy.authorization
    await calls.trigger(`/environment/${environment.id}/deploy`, auth)
    await calls.waitUntilIdle(environment.id, auth)

    const status = await bulk(environment.id, 'restart-service', auth, { helm_ids: [restarted.id] }, 202)
    assert.deepEqual(Object.keys(status).sort(), STATUS_KEYS)
    assert.equal(status.id, environment.id)
    assert.equal(status.state, 'RESTART_QUEUED')
    assert.deepEqual(status.status_details, { action: 'RESTART', status: 'QUEUED', sub_action: 'NONE' })
    const [entry] = await calls.waitUntilIdle(environment.id, auth)
    assert.equal(entry!.identifier.execution_id, status.execution_id)
    assert.deepEqual([entry!.trigger_action, entry!.status], ['RESTART', 'RESTARTED'])
    assert.deepEqual(servicesOf(entry!), [['HELM DEFAULT', [restarted.id]]])
    assert.equal((await calls.helmStatus(left.id, auth)).state, 'DEPLOYED')
    assertValidationError(await calls.inject('POST', `/environment/${environment.id}/service/restart-service`, auth, { container_ids: [left.id] }))
  })

  it('uninstalls the selected services and keeps their configuration', async () => {
    const { environment, tokens } = await make.environmentWithTokens()
    const [uninstalled, left] = [await make.helmService(environment.id), await make.helmService(environment.id)]
    const auth = tokens.deploy.authorization
    await calls.trigger(`/environment/${environment.id}/deploy`, auth)
    await calls.waitUntilIdle(environment.id, auth)

    assert.deepEqual(Object.keys(await bulk(environment.id, 'uninstall', auth, { helm_ids: [uninstalled.id] }, 200)).sort(), ENVIRONMENT_STATUS_KEYS)
    const [entry] = await calls.waitUntilIdle(environment.id, auth)
    assert.deepEqual([entry!.trigger_action, entry!.status, entry!.action_status], ['UNINSTALL', 'DELETED', 'SUCCESS'])
    assert.deepEqual(servicesOf(entry!), [['HELM DEFAULT', [uninstalled.id]]])
    assert.equal((await calls.helmStatus(uninstalled.id, auth)).state, 'DELETED')
    assert.equal((await calls.inject('GET', `/helm/${uninstalled.id}`, auth)).statusCode, 200, 'the service itself stays')
    assert.equal((await calls.helmStatus(left.id, auth)).state, 'DEPLOYED')
  })

  it('deletes the selected services once their uninstall succeeded, and keeps the environment history of it', async () => {
    const { environment, tokens } = await make.environmentWithTokens()
    const [deleted, left] = [await make.helmService(environment.id), await make.helmService(environment.id)]
    const auth = tokens.deploy.authorization
    await calls.trigger(`/environment/${environment.id}/deploy`, auth)
    await calls.waitUntilIdle(environment.id, auth)

    const answer = await bulk(environment.id, 'delete?skipReconcile=true', tokens.write.authorization, { helm_ids: [deleted.id] }, 200)
    assert.deepEqual(Object.keys(answer).sort(), ENVIRONMENT_STATUS_KEYS)
    const [entry] = await calls.waitUntilIdle(environment.id, auth)
    assert.deepEqual([entry!.trigger_action, entry!.status, entry!.action_status], ['DELETE', 'DELETED', 'SUCCESS'])
    assert.deepEqual(servicesOf(entry!), [['HELM DEFAULT', [deleted.id]]])
    assert.equal(entry!.stages[0]!.services[0]!.identifier.name, deleted.name, 'the entry still names the service')

    assertError(await calls.inject('GET', `/helm/${deleted.id}`, auth), 404, 'not_found')
    assertError(await calls.inject('GET', `/helm/${deleted.id}/status`, auth), 404, 'not_found')
    assert.equal((await calls.inject('GET', `/helm/${left.id}`, auth)).statusCode, 200)
    const history = await calls.entries(environment.id, auth)
    assert.deepEqual(
      history.map((e) => e.trigger_action),
      ['DELETE', 'DEPLOY'],
    )
    assert.ok(
      history[1]!.stages[0]!.services.some((service) => service.identifier.service_id === deleted.id),
      'older entries keep the deleted service',
    )
    const statuses = (await calls.inject('GET', `/environment/${environment.id}/statuses`, auth)).json()
    assert.deepEqual(
      statuses.helms.map((status: { id: string }) => status.id),
      [left.id],
    )
  })

  it('keeps a service whose uninstall failed during a delete', async () => {
    const { environment, tokens } = await make.environmentWithTokens()
    const failing = await make.helmService(environment.id, { values_override: { set: [['berth.simulate.fail', 'uninstall']] } })
    const healthy = await make.helmService(environment.id)
    const auth = tokens.deploy.authorization
    await calls.trigger(`/environment/${environment.id}/deploy`, auth)
    await calls.waitUntilIdle(environment.id, auth)

    await bulk(environment.id, 'delete', tokens.write.authorization, { helm_ids: [failing.id, healthy.id] }, 200)
    const [entry] = await calls.waitUntilIdle(environment.id, auth)
    assert.deepEqual([entry!.trigger_action, entry!.status, entry!.action_status], ['DELETE', 'DELETE_ERROR', 'ERROR'])
    const byId = Object.fromEntries(entry!.stages[0]!.services.map((service) => [service.identifier.service_id, service.status]))
    assert.deepEqual(byId, { [failing.id]: 'DELETE_ERROR', [healthy.id]: 'DELETED' })

    assert.equal((await calls.inject('GET', `/helm/${failing.id}`, auth)).statusCode, 200, 'a failed uninstall keeps the service')
    assert.equal((await calls.helmStatus(failing.id, auth)).state, 'DELETE_ERROR')
    assertError(await calls.inject('GET', `/helm/${healthy.id}`, auth), 404, 'not_found')
  })
})

describe('a deletion and the deployments queued behind it', () => {
  it('does not deploy again a service that a deletion queued before it took away', async () => {
    const { environment, tokens } = await make.environmentWithTokens()
    const [deleted, kept] = [await make.helmService(environment.id), await make.helmService(environment.id)]
    const auth = tokens.deploy.authorization
    await calls.trigger(`/environment/${environment.id}/deploy`, auth)
    await calls.waitUntilIdle(environment.id, auth)

    await bulk(environment.id, 'delete', tokens.write.authorization, { helm_ids: [deleted.id] }, 200)
    const redeploy = await calls.trigger(`/environment/${environment.id}/deploy`, auth)
    const queued = (await calls.entries(environment.id, auth)).find((entry) => entry.identifier.execution_id === redeploy.execution_id)!
    assert.deepEqual(servicesOf(queued), [['HELM DEFAULT', [deleted.id, kept.id].sort()]], 'queued while the service still existed')

    const entries = await calls.waitUntilIdle(environment.id, auth)
    assertError(await calls.inject('GET', `/helm/${deleted.id}`, auth), 404, 'not_found')
    const later = entries.find((entry) => entry.identifier.execution_id === redeploy.execution_id)!
    const ofDeleted = later.stages.flatMap((stage) => stage.services).find((service) => service.identifier.service_id === deleted.id)
    assert.notEqual(ofDeleted?.status, 'DEPLOYED', 'the deleted service was deployed again')
  })
})

describe("an environment's services and their statuses", () => {
  it('lists a Status per helm service, and empty lists for the kinds Berth has none of', async () => {
    const { environment, tokens } = await make.environmentWithTokens()
    const auth = tokens.read.authorization
    const empty = (await calls.inject('GET', `/environment/${environment.id}/statuses`, auth)).json()
    assert.deepEqual(Object.keys(empty).sort(), STATUS_LIST_MEMBERS)
    assert.equal(empty.environment.state, 'READY')
    for (const member of STATUS_LIST_MEMBERS.filter((m) => m !== 'environment')) assert.deepEqual(empty[member], [], member)

    const [deployed, idle] = [await make.helmService(environment.id), await make.helmService(environment.id)]
    await calls.trigger(`/helm/${deployed.id}/deploy`, tokens.deploy.authorization)
    await calls.waitUntilIdle(environment.id, auth)

    const res = await calls.inject('GET', `/environment/${environment.id}/statuses`, auth)
    assert.equal(res.statusCode, 200)
    const statuses = res.json()
    assert.deepEqual(Object.keys(statuses).sort(), STATUS_LIST_MEMBERS)
    assert.deepEqual(Object.keys(statuses.environment).sort(), ENVIRONMENT_STATUS_KEYS)
    assert.equal(statuses.environment.id, environment.id)
    assert.deepEqual(statuses.environment, await calls.environmentStatus(environment.id, auth))
    for (const member of ['applications', 'containers', 'jobs', 'databases', 'terraforms']) assert.deepEqual(statuses[member], [], member)
    assert.equal(statuses.helms.length, 2)
    for (const status of statuses.helms) {
      // Keys absent for a service never deployed (no date, no execution).
      for (const key of Object.keys(status)) assert.ok(STATUS_KEYS.includes(key), key)
      assert.deepEqual(status, await calls.helmStatus(status.id, auth), 'the same Status as the service’s own')
    }
    const states = Object.fromEntries(statuses.helms.map((status: { id: string; state: string }) => [status.id, status.state]))
    assert.deepEqual(states, { [deployed.id]: 'DEPLOYED', [idle.id]: 'READY' })

    const stranger = await make.organizationWithTokens()
    assertError(await calls.inject('GET', `/environment/${environment.id}/statuses`, stranger.tokens.admin.authorization), 404, 'not_found')
  })

  it('lists the stages in deploy order, each with the statuses of its services', async () => {
    const { environment, tokens } = await make.environmentWithTokens()
    const auth = tokens.write.authorization
    const [first, second] = [await make.helmService(environment.id), await make.helmService(environment.id)]
    const stage = (await calls.inject('POST', `/environment/${environment.id}/deploymentStage`, auth, { name: 'Early', description: 'first' })).json()
    const helmDefault = (await calls.inject('GET', `/service/${first.id}/deploymentStage`, auth)).json()
    await calls.inject('PUT', `/deploymentStage/${stage.id}/moveBefore/${helmDefault.id}`, auth)
    await calls.inject('PUT', `/deploymentStage/${stage.id}/service/${second.id}`, auth, {})
    await calls.trigger(`/environment/${environment.id}/deploy`, tokens.deploy.authorization)
    await calls.waitUntilIdle(environment.id, auth)

    const res = await calls.inject('GET', `/environment/${environment.id}/statusesWithStages`, tokens.read.authorization)
    assert.equal(res.statusCode, 200)
    const body = res.json()
    assert.deepEqual(Object.keys(body).sort(), ['environment', 'stages'])
    assert.equal(body.environment.state, 'DEPLOYED')
    assert.deepEqual(
      body.stages.map((s: { stage: object }) => s.stage),
      [
        { id: stage.id, name: 'Early', description: 'first', status: 'DONE' },
        { id: helmDefault.id, name: 'HELM DEFAULT', description: '', status: 'DONE' },
      ],
    )
    const [early, helms] = body.stages
    assert.deepEqual(Object.keys(early).sort(), ['applications', 'containers', 'databases', 'helms', 'jobs', 'stage', 'terraforms'])
    assert.deepEqual(
      early.helms.map((status: { id: string; state: string }) => [status.id, status.state]),
      [[second.id, 'DEPLOYED']],
    )
    assert.deepEqual(
      helms.helms.map((status: { id: string; state: string }) => [status.id, status.state]),
      [[first.id, 'DEPLOYED']],
    )
    for (const member of ['applications', 'containers', 'jobs', 'databases', 'terraforms']) assert.deepEqual(early[member], [], member)

    // A stage no deployment ran yet has no status.
    const unused = (await calls.inject('POST', `/environment/${environment.id}/deploymentStage`, auth, { name: 'Unused' })).json()
    const again = (await calls.inject('GET', `/environment/${environment.id}/statusesWithStages`, auth)).json()
    assert.deepEqual(again.stages.at(-1).stage, { id: unused.id, name: 'Unused', description: '' })
    assert.deepEqual(again.stages.at(-1).helms, [])
  })

  it('lists every service of the environment in its kind’s shape, helm services as GET /helm answers them', async () => {
    const { environment, project, tokens } = await make.environmentWithTokens()
    const auth = tokens.read.authorization
    assert.deepEqual((await calls.inject('GET', `/environment/${environment.id}/services`, auth)).json(), { results: [], has_more: false })
    const helms = [await make.helmService(environment.id, { name: 'b-service' }), await make.helmService(environment.id, { name: 'A-service' })]
    await make.helmService((await make.environment(project.id)).id)

    const res = await calls.inject('GET', `/environment/${environment.id}/services`, auth)
    assert.equal(res.statusCode, 200)
    const { results } = res.json()
    assert.deepEqual(
      results.map((service: { name: string }) => service.name),
      ['A-service', 'b-service'],
      'by name, ignoring case; only this environment’s',
    )
    for (const service of results) {
      assert.equal(service.service_type, 'HELM')
      assert.deepEqual(service, (await calls.inject('GET', `/helm/${service.id}`, auth)).json(), 'the HelmResponse of the service')
    }
    assert.deepEqual(results.map((service: { id: string }) => service.id).sort(), helms.map((helm) => helm.id).sort())
    const stranger = await make.organizationWithTokens()
    assertError(await calls.inject('GET', `/environment/${environment.id}/services`, stranger.tokens.admin.authorization), 404, 'not_found')
  })
})

describe('bulk actions through the official client', () => {
  let basePath: string
  before(async () => {
    basePath = await d.listen()
  })

  const client = (authorization: string) => {
    const configuration = new Configuration({ basePath, apiKey: authorization })
    return {
      actions: new EnvironmentActionsApi(configuration),
      main: new EnvironmentMainCallsApi(configuration),
      stages: new DeploymentStageMainCallsApi(configuration),
    }
  }

  it('deploys a selection, stops part of it, and reads the statuses, services and stages', async () => {
    const { environment, tokens } = await make.environmentWithTokens()
    const [a, b, c] = [await make.helmService(environment.id), await make.helmService(environment.id), await make.helmService(environment.id)]
    const deployer = client(tokens.deploy.authorization)
    const reader = client(tokens.read.authorization)

    const deployed = await deployer.actions.deployAllServices(environment.id, { helms: [{ id: a.id, chart_version: '3.1.4' }, { id: b.id }] })
    assert.equal(deployed.status, 202)
    assert.equal(deployed.data.id, environment.id)
    const [entry] = await calls.waitUntilIdle(environment.id, tokens.read.authorization)
    assert.deepEqual(servicesOf(entry!), [['HELM DEFAULT', [a.id, b.id].sort()]])

    const stopped = await deployer.actions.stopSelectedServices(environment.id, { helm_ids: [a.id] })
    assert.equal(stopped.status, 200)
    await calls.waitUntilIdle(environment.id, tokens.read.authorization)
    assert.equal(await rejectedStatus(deployer.actions.stopSelectedServices(environment.id, { helm_ids: [a.id] })), 409)
    assert.equal(await rejectedStatus(reader.actions.deployAllServices(environment.id, { helms: [{ id: c.id }] })), 403)
    assert.equal(await rejectedStatus(deployer.actions.deployAllServices(environment.id, { helms: [{ id: randomUUID() }] })), 400)

    const { data: statuses } = await reader.main.getEnvironmentStatuses(environment.id)
    assert.equal(statuses.environment.id, environment.id)
    assert.deepEqual(Object.fromEntries(statuses.helms.map((status) => [status.id, status.state])), {
      [a.id]: 'STOPPED',
      [b.id]: 'DEPLOYED',
      [c.id]: 'READY',
    })
    assert.deepEqual(statuses.containers, [])

    const { data: services } = await reader.main.listServicesByEnvironmentId(environment.id)
    assert.deepEqual(services.results?.map((service) => [service.id, service.service_type]).sort(), [
      ...[a, b, c].map((helm) => [helm.id, 'HELM']).sort(),
    ])

    const { data: stages } = await reader.stages.listEnvironmentDeploymentStage(environment.id)
    assert.deepEqual(
      stages.results?.map((stage) => [stage.name, stage.deployment_order, stage.services?.length]),
      [['HELM DEFAULT', 1, 3]],
    )
  })
})
