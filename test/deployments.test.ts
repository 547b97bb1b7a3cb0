import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { assertError, assertIsoTimestamp, assertRoutesNeedCredentials, UUID } from './helpers/assertions.ts'
import {
  createDeploymentsApp,
  type DeploymentCalls,
  type DeploymentsTestApp,
  deploymentCalls,
  durationMs,
  ENTRY_KEYS,
  ENVIRONMENT_STATUS_KEYS,
  type EnvironmentEntry,
  endedAt,
  isFinished as finished,
  ISO_DURATION,
  SERVICE_KEYS,
  type ServiceEntry,
  STATUS_KEYS,
  startedAt,
  until,
} from './helpers/deployments.ts'
import { factories } from './helpers/factories.ts'

// Environment-level deployments end to end: triggers, the runner, history entries and statuses.
// Two apps, each on a database of its own: a fast one (150 ms a service) for whole lifecycles,
// and a slow one (1 s a service) where a test must act while a deployment runs.

let fast: DeploymentsTestApp
let slow: DeploymentsTestApp

before(async () => {
  ;[fast, slow] = await Promise.all([createDeploymentsApp(150), createDeploymentsApp(1000)])
})

after(async () => {
  await Promise.all([fast?.close(), slow?.close()])
})

/** Checks an entry's auditing data: its timestamps, who triggered it and from where. */
function assertAuditing(auditing: EnvironmentEntry['auditing_data'], createdAt: string, tokenName: string) {
  assert.deepEqual(Object.keys(auditing).sort(), ['created_at', 'origin', 'triggered_by', 'updated_at'])
  assert.equal(auditing.created_at, createdAt)
  assertIsoTimestamp(auditing.updated_at, 'auditing_data.updated_at')
  assert.ok(auditing.updated_at >= auditing.created_at, 'updated before created')
  assert.equal(auditing.triggered_by, `API token ${tokenName}`)
  assert.equal(auditing.origin, 'API')
}

/** A service's entry, as far as its state goes. */
function assertService(service: ServiceEntry, status: string, action: string, actionStatus: string) {
  assert.equal(service.status, status, `${service.identifier.name}: ${JSON.stringify(service)}`)
  assert.deepEqual(service.status_details, { action, status: actionStatus, sub_action: 'NONE' })
}

describe('environment deployments', () => {
  let make: ReturnType<typeof factories>
  let calls: DeploymentCalls
  before(() => {
    make = factories(fast.db)
    calls = deploymentCalls(fast.app)
  })

  it('deploys every helm service of the environment to DEPLOYED and fills every field of the history entry (contract 2.3-2.9)', async () => {
    const { environment, tokens } = await make.environmentWithTokens()
    const repository = await make.helmRepository(environment.organizationId)
    const helms = [
      await make.helmService(environment.id),
      await make.helmService(environment.id, {
        source: { helm_repository: { repository: repository.id, chart_name: 'redis', chart_version: '18.1.0' } },
      }),
    ]

    const queued = await calls.trigger(`/environment/${environment.id}/deploy`, tokens.deploy.authorization)
    assert.deepEqual(Object.keys(queued).sort(), STATUS_KEYS)
    assert.equal(queued.id, environment.id)
    assert.equal(queued.state, 'DEPLOYMENT_QUEUED')
    assert.equal(queued.service_deployment_status, 'NEVER_DEPLOYED')
    assert.match(queued.execution_id, UUID)
    assert.equal(queued.deployment_request_id, queued.execution_id)
    assert.equal(queued.deployment_requests_count, 1)
    assert.equal(queued.is_part_last_deployment, true)
    assertIsoTimestamp(queued.last_deployment_date, 'last_deployment_date')
    assert.deepEqual(queued.status_details, { action: 'DEPLOY', status: 'QUEUED', sub_action: 'NONE' })

    // Whatever states the polls catch come in the order of the DEPLOY family.
    const order = ['DEPLOYMENT_QUEUED/QUEUED', 'DEPLOYING/ONGOING', 'DEPLOYED/SUCCESS']
    const seen: string[] = []
    const [entry] = await calls.waitForEntries(environment.id, tokens.read.authorization, (entries) => {
      const state = `${entries[0]?.status}/${entries[0]?.action_status}`
      if (seen.at(-1) !== state) seen.push(state)
      return entries[0]?.action_status === 'SUCCESS'
    })
    assert.ok(entry)
    for (const state of seen) assert.ok(order.includes(state), `unexpected state ${state}`)
    assert.deepEqual(
      seen,
      order.filter((state) => seen.includes(state)),
      'states out of order',
    )

    assert.deepEqual(Object.keys(entry).sort(), ENTRY_KEYS)
    assert.deepEqual(entry.identifier, { execution_id: queued.execution_id, environment_id: environment.id })
    assertAuditing(entry.auditing_data, queued.last_deployment_date, tokens.deploy.name)
    assert.equal(entry.status, 'DEPLOYED')
    assert.equal(entry.trigger_action, 'DEPLOY')
    assert.equal(entry.action_status, 'SUCCESS')
    assert.equal(entry.message, null)
    assert.match(entry.total_duration, ISO_DURATION)
    assert.ok(durationMs(entry.total_duration) >= fast.stepMs - 5, `total_duration ${entry.total_duration} is shorter than a step`)

    assert.equal(entry.stages.length, 1, 'one stage per kind of service')
    const [stage] = entry.stages
    assert.deepEqual(Object.keys(stage!).sort(), ['duration', 'name', 'services', 'status'])
    assert.equal(stage!.name, 'HELM DEFAULT')
    assert.equal(stage!.status, 'DONE')
    assert.match(stage!.duration, ISO_DURATION)
    assert.ok(durationMs(stage!.duration) <= durationMs(entry.total_duration))
    assert.deepEqual(stage!.services.map((service) => service.identifier.service_id).sort(), helms.map((helm) => helm.id).sort())

    for (const service of stage!.services) {
      const helm = helms.find((h) => h.id === service.identifier.service_id)!
      assert.deepEqual(Object.keys(service).sort(), SERVICE_KEYS)
      assert.deepEqual(service.identifier, { name: helm.name, service_id: helm.id, service_type: 'HELM', execution_id: queued.execution_id })
      assertService(service, 'DEPLOYED', 'DEPLOY', 'SUCCESS')
      assertAuditing(service.auditing_data, queued.last_deployment_date, tokens.deploy.name)
      const source = 'helmRepository' in helm.source ? helm.source.helmRepository : assert.fail('a chart of a helm repository')
      assert.deepEqual(service.details, { repository: { chart_name: source.chartName, chart_version: source.chartVersion } })
      assert.equal(service.icon_uri, helm.iconUri)
      assert.ok(URL.canParse(service.icon_uri), 'icon_uri is a URI')
      assert.match(service.total_duration, ISO_DURATION)
      assert.ok(durationMs(service.total_duration) >= fast.stepMs - 5, `a service took ${service.total_duration}`)
      assert.equal(service.message, null)
    }

    const status = await calls.environmentStatus(environment.id, tokens.read.authorization)
    assert.deepEqual(Object.keys(status).sort(), ENVIRONMENT_STATUS_KEYS)
    assert.deepEqual(status, {
      id: environment.id,
      state: 'DEPLOYED',
      last_deployment_date: queued.last_deployment_date,
      last_deployment_state: 'DEPLOYED',
      last_deployment_id: queued.execution_id,
      total_deployment_duration_in_seconds: Math.round(durationMs(entry.total_duration) / 1000),
      origin: 'API',
      triggered_by: `API token ${tokens.deploy.name}`,
      deployment_status: 'UP_TO_DATE',
      deployment_request_id: null,
    })
  })

  it('runs the deployments of one environment one at a time, in the order they were triggered', async () => {
    const { environment, tokens } = await make.environmentWithTokens()
    const helm = await make.helmService(environment.id)
    const base = `/environment/${environment.id}`
    const deployed = await calls.trigger(`${base}/deploy`, tokens.deploy.authorization)
    const stopped = await calls.trigger(`${base}/stop`, tokens.deploy.authorization)
    assert.deepEqual(Object.keys(stopped).sort(), ENVIRONMENT_STATUS_KEYS, 'stop answers an EnvironmentStatus')
    const restarted = await calls.trigger(`${base}/redeploy`, tokens.deploy.authorization)
    assert.deepEqual(Object.keys(restarted).sort(), ENVIRONMENT_STATUS_KEYS, 'redeploy answers an EnvironmentStatus')
    assert.notEqual(stopped.last_deployment_id, restarted.last_deployment_id)

    let mostRunning = 0
    const entries = await calls.waitForEntries(environment.id, tokens.read.authorization, (list) => {
      mostRunning = Math.max(mostRunning, list.filter((entry) => entry.action_status === 'ONGOING').length)
      return list.length === 3 && list.every(finished)
    })
    assert.ok(mostRunning <= 1, 'two deployments of one environment ran at once')
    const [restart, stop, deploy] = entries as [EnvironmentEntry, EnvironmentEntry, EnvironmentEntry]
    assert.deepEqual(
      entries.map((entry) => [entry.trigger_action, entry.status, entry.action_status]),
      [
        ['RESTART', 'RESTARTED', 'SUCCESS'],
        ['STOP', 'STOPPED', 'SUCCESS'],
        ['DEPLOY', 'DEPLOYED', 'SUCCESS'],
      ],
    )
    assert.equal(deploy.identifier.execution_id, deployed.execution_id)
    assert.equal(stop.identifier.execution_id, stopped.last_deployment_id, "the stop's answer names it as the newest deployment")
    assert.equal(restart.identifier.execution_id, restarted.last_deployment_id)
    assert.ok(deploy.auditing_data.created_at < stop.auditing_data.created_at && stop.auditing_data.created_at < restart.auditing_data.created_at)
    // Each starts once the one before has ended (start = end less total_duration, both to the millisecond).
    assert.ok(startedAt(stop) >= endedAt(deploy), `stop started ${startedAt(stop)}, before the deploy ended ${endedAt(deploy)}`)
    assert.ok(startedAt(restart) >= endedAt(stop), `redeploy started ${startedAt(restart)}, before the stop ended ${endedAt(stop)}`)

    assertService(stop.stages[0]!.services[0]!, 'STOPPED', 'STOP', 'SUCCESS')
    assertService(restart.stages[0]!.services[0]!, 'RESTARTED', 'RESTART', 'SUCCESS')

    const status = await calls.environmentStatus(environment.id, tokens.read.authorization)
    assert.equal(status.state, 'RESTARTED')
    assert.equal(status.last_deployment_state, 'RESTARTED')
    assert.equal(status.last_deployment_id, restart.identifier.execution_id)
    assert.equal(status.deployment_request_id, null)
    const helmStatus = await calls.helmStatus(helm.id, tokens.read.authorization)
    assert.equal(helmStatus.state, 'RESTARTED')
    assert.deepEqual(helmStatus.status_details, { action: 'RESTART', status: 'SUCCESS', sub_action: 'NONE' })
  })

  it('fails the stage and the deployment when a service fails, and still finishes the other services of the stage', async () => {
    const { environment, tokens } = await make.environmentWithTokens()
    const healthy = await make.helmService(environment.id)
    const failing = await make.helmService(environment.id, { values_override: { set: [['berth.simulate.fail', 'true']] } })
    const queued = await calls.trigger(`/environment/${environment.id}/deploy`, tokens.deploy.authorization)

    const [entry] = await calls.waitForEntries(environment.id, tokens.read.authorization, (entries) => entries[0]?.action_status === 'ERROR')
    assert.equal(entry!.identifier.execution_id, queued.execution_id)
    assert.equal(entry!.status, 'DEPLOYMENT_ERROR')
    assert.match(entry!.message ?? '', new RegExp(`^stage HELM DEFAULT failed: ${failing.name}: simulated deploy failure`))
    assert.equal(entry!.stages[0]!.status, 'ERROR')
    const service = (id: string) => entry!.stages[0]!.services.find((s) => s.identifier.service_id === id)!
    assertService(service(failing.id), 'DEPLOYMENT_ERROR', 'DEPLOY', 'ERROR')
    assert.match(service(failing.id).message ?? '', /simulated deploy failure/)
    assertService(service(healthy.id), 'DEPLOYED', 'DEPLOY', 'SUCCESS')
    assert.equal(service(healthy.id).message, null)

    const status = await calls.environmentStatus(environment.id, tokens.read.authorization)
    assert.equal(status.state, 'DEPLOYMENT_ERROR')
    assert.equal(status.last_deployment_state, 'DEPLOYMENT_ERROR')
    const failed = await calls.helmStatus(failing.id, tokens.read.authorization)
    assert.equal(failed.state, 'DEPLOYMENT_ERROR')
    assert.deepEqual(failed.status_details, { action: 'DEPLOY', status: 'ERROR', sub_action: 'NONE' })
    assert.equal(failed.service_deployment_status, 'NEVER_DEPLOYED', 'a failed deployment deploys nothing')
    assert.equal((await calls.helmStatus(healthy.id, tokens.read.authorization)).service_deployment_status, 'UP_TO_DATE')
  })

  it('fails only the actions a comma-separated berth.simulate.fail names', async () => {
    const { environment, tokens } = await make.environmentWithTokens()
    await make.helmService(environment.id, { values_override: { set: [['berth.simulate.fail', 'stop, uninstall']] } })
    const base = `/environment/${environment.id}`
    await calls.trigger(`${base}/deploy`, tokens.deploy.authorization)
    await calls.trigger(`${base}/stop`, tokens.deploy.authorization)
    await calls.trigger(`${base}/redeploy`, tokens.deploy.authorization)
    const entries = await calls.waitForEntries(environment.id, tokens.read.authorization, (list) => list.length === 3 && list.every(finished))
    assert.deepEqual(
      entries.map((entry) => [entry.trigger_action, entry.status, entry.stages[0]!.status, entry.stages[0]!.services[0]!.status]),
      [
        ['RESTART', 'RESTARTED', 'DONE', 'RESTARTED'],
        ['STOP', 'STOP_ERROR', 'ERROR', 'STOP_ERROR'],
        ['DEPLOY', 'DEPLOYED', 'DONE', 'DEPLOYED'],
      ],
    )
    assert.match(entries[1]!.message ?? '', /simulated stop failure/)
  })

  it('answers 409 to a stop of a stopped environment or helm, and to a cancel with nothing to cancel', async () => {
    const { environment, tokens } = await make.environmentWithTokens()
    const helm = await make.helmService(environment.id)
    const base = `/environment/${environment.id}`
    assertError(await calls.inject('POST', `${base}/cancelDeployment`, tokens.deploy.authorization), 409, 'conflict')

    await calls.trigger(`${base}/deploy`, tokens.deploy.authorization)
    await calls.trigger(`${base}/stop`, tokens.deploy.authorization)
    // A stop queued behind another is accepted: the environment is not stopped yet.
    await calls.trigger(`${base}/stop`, tokens.deploy.authorization)
    const entries = await calls.waitForEntries(environment.id, tokens.read.authorization, (list) => list.length === 3 && list.every(finished))
    assert.deepEqual(
      entries.map((entry) => entry.status),
      ['STOPPED', 'STOPPED', 'DEPLOYED'],
    )

    assertError(await calls.inject('POST', `${base}/stop`, tokens.deploy.authorization), 409, 'conflict')
    assertError(await calls.inject('POST', `/helm/${helm.id}/stop`, tokens.deploy.authorization), 409, 'conflict')
    assertError(await calls.inject('POST', `${base}/cancelDeployment`, tokens.deploy.authorization), 409, 'conflict')
    assert.equal((await calls.entries(environment.id, tokens.read.authorization)).length, 3, 'a refused trigger queues nothing')

    // Once something else ran, stopping is possible again.
    await calls.trigger(`/helm/${helm.id}/deploy`, tokens.deploy.authorization)
    await calls.waitUntilIdle(environment.id, tokens.read.authorization)
    await calls.trigger(`/helm/${helm.id}/stop`, tokens.deploy.authorization)
    await calls.waitUntilIdle(environment.id, tokens.read.authorization)
    assertError(await calls.inject('POST', `/helm/${helm.id}/stop`, tokens.deploy.authorization), 409, 'conflict')
    // The environment's newest run (the helm's stop) is STOPPED.
    assertError(await calls.inject('POST', `${base}/stop`, tokens.deploy.authorization), 409, 'conflict')
  })

  it('stops an environment whose newest deployment stopped only one of its services', async () => {
    const { environment, tokens } = await make.environmentWithTokens()
    const [stoppedAlone, stillRunning] = [await make.helmService(environment.id), await make.helmService(environment.id)]
    await calls.trigger(`/environment/${environment.id}/deploy`, tokens.deploy.authorization)
    await calls.waitUntilIdle(environment.id, tokens.read.authorization)
    await calls.trigger(`/helm/${stoppedAlone.id}/stop`, tokens.deploy.authorization)
    await calls.waitUntilIdle(environment.id, tokens.read.authorization)
    assert.equal((await calls.helmStatus(stillRunning.id, tokens.read.authorization)).state, 'DEPLOYED')

    const res = await calls.inject('POST', `/environment/${environment.id}/stop`, tokens.deploy.authorization)
    assert.equal(res.statusCode, 202, `a service of the environment is still deployed, yet: ${res.body}`)
    const [stop] = await calls.waitUntilIdle(environment.id, tokens.read.authorization)
    assert.equal(stop!.status, 'STOPPED')
    assert.equal((await calls.helmStatus(stillRunning.id, tokens.read.authorization)).state, 'STOPPED')
  })

  describe('access', () => {
    const triggers = (environmentId: string, helmId: string): string[] => [
      `/environment/${environmentId}/deploy`,
      `/environment/${environmentId}/redeploy`,
      `/environment/${environmentId}/stop`,
      `/environment/${environmentId}/cancelDeployment`,
      `/helm/${helmId}/deploy`,
      `/helm/${helmId}/redeploy`,
      `/helm/${helmId}/stop`,
      `/helm/${helmId}/uninstall`,
    ]
    const reads = (environmentId: string, helmId: string): string[] => [
      `/environment/${environmentId}/status`,
      `/environment/${environmentId}/deploymentHistoryV2`,
      `/helm/${helmId}/status`,
      `/helm/${helmId}/deploymentHistoryV2`,
    ]

    it('refuses every trigger to a READ token (403) and queues nothing; reads need READ only', async () => {
      const { environment, tokens } = await make.environmentWithTokens()
      const helm = await make.helmService(environment.id)
      for (const url of triggers(environment.id, helm.id)) {
        assertError(await calls.inject('POST', url, tokens.read.authorization), 403, 'forbidden')
      }
      for (const url of reads(environment.id, helm.id)) {
        assert.equal((await calls.inject('GET', url, tokens.read.authorization)).statusCode, 200, url)
      }
      assert.deepEqual(await calls.entries(environment.id, tokens.read.authorization), [])
      assert.deepEqual((await calls.helmHistory(helm.id, tokens.read.authorization)).results, [])
    })

    it('lets DEPLOY, WRITE and ADMIN tokens trigger', async () => {
      const { environment, tokens } = await make.environmentWithTokens()
      for (const token of [tokens.deploy, tokens.write, tokens.admin]) {
        await calls.trigger(`/environment/${environment.id}/deploy`, token.authorization)
      }
      const entries = await calls.waitUntilIdle(environment.id, tokens.read.authorization)
      assert.deepEqual(
        entries.map((entry) => entry.auditing_data.triggered_by),
        [tokens.admin, tokens.write, tokens.deploy].map((token) => `API token ${token.name}`),
      )
    })

    it("answers 404 for another organization's environment or helm, and for ones that do not exist", async () => {
      const { environment, tokens } = await make.environmentWithTokens()
      const helm = await make.helmService(environment.id)
      const stranger = await make.organizationWithTokens()
      for (const url of triggers(environment.id, helm.id)) {
        assertError(await calls.inject('POST', url, stranger.tokens.admin.authorization), 404, 'not_found')
      }
      for (const url of reads(environment.id, helm.id)) {
        assertError(await calls.inject('GET', url, stranger.tokens.admin.authorization), 404, 'not_found')
      }
      for (const url of [...triggers(randomUUID(), randomUUID())]) {
        assertError(await calls.inject('POST', url, tokens.admin.authorization), 404, 'not_found')
      }
      for (const url of reads(randomUUID(), randomUUID())) {
        assertError(await calls.inject('GET', url, tokens.admin.authorization), 404, 'not_found')
      }
      assert.deepEqual(await calls.entries(environment.id, tokens.read.authorization), [])
    })

    it('needs credentials on every deployment route (401)', async () => {
      const environmentId = randomUUID()
      const helmId = randomUUID()
      await assertRoutesNeedCredentials(fast.app, [
        ...triggers(environmentId, helmId).map((url): ['POST', string] => ['POST', url]),
        ...reads(environmentId, helmId).map((url): ['GET', string] => ['GET', url]),
      ])
    })
  })
})

describe('queued and canceled deployments', () => {
  let make: ReturnType<typeof factories>
  let calls: DeploymentCalls
  before(() => {
    make = factories(slow.db)
    calls = deploymentCalls(slow.app)
  })

  it('shows a deployment queued behind a running one, cancels the queued one at once and the running one through CANCELING', async () => {
    const { environment, tokens } = await make.environmentWithTokens()
    const helm = await make.helmService(environment.id)
    const base = `/environment/${environment.id}`
    const first = await calls.trigger(`${base}/deploy`, tokens.deploy.authorization)
    const second = await calls.trigger(`${base}/deploy`, tokens.deploy.authorization)
    assert.equal(second.state, 'DEPLOYMENT_QUEUED')
    assert.equal(second.deployment_requests_count, 2, 'the first is still queued or running')

    const [queued, running] = (await calls.waitForEntries(
      environment.id,
      tokens.read.authorization,
      (entries) => entries[1]?.stages[0]?.status === 'ONGOING',
      'the first deployment running its stage',
    )) as [EnvironmentEntry, EnvironmentEntry]
    assert.equal(running.identifier.execution_id, first.execution_id)
    assert.equal(running.action_status, 'ONGOING')
    assert.equal(running.stages[0]!.status, 'ONGOING')
    assertService(running.stages[0]!.services[0]!, 'DEPLOYING', 'DEPLOY', 'ONGOING')
    assert.match(running.total_duration, ISO_DURATION)

    assert.equal(queued.identifier.execution_id, second.execution_id)
    assert.equal(queued.status, 'DEPLOYMENT_QUEUED')
    assert.equal(queued.action_status, 'QUEUED')
    assert.deepEqual(
      queued.stages.map((stage) => [stage.name, stage.status, stage.duration]),
      [['HELM DEFAULT', 'QUEUED', 'PT0S']],
    )
    assertService(queued.stages[0]!.services[0]!, 'DEPLOYMENT_QUEUED', 'DEPLOY', 'QUEUED')
    assert.equal(queued.total_duration, 'PT0S')
    assert.equal(queued.stages[0]!.services[0]!.total_duration, 'PT0S')

    const busy = await calls.environmentStatus(environment.id, tokens.read.authorization)
    assert.equal(busy.state, 'DEPLOYING', 'the environment is busy with the first')
    assert.equal(busy.deployment_request_id, first.execution_id)
    assert.equal(busy.last_deployment_id, second.execution_id)
    assert.equal(busy.last_deployment_state, 'DEPLOYMENT_QUEUED')
    const helmBusy = await calls.helmStatus(helm.id, tokens.read.authorization)
    assert.equal(helmBusy.state, 'DEPLOYMENT_QUEUED', "the helm's newest entry is the queued one")
    assert.equal(helmBusy.execution_id, second.execution_id)
    assert.equal(helmBusy.deployment_request_id, first.execution_id)
    assert.equal(helmBusy.deployment_requests_count, 2)

    const canceled = await calls.trigger(`${base}/cancelDeployment`, tokens.deploy.authorization, { force_cancel: true })
    assert.deepEqual(Object.keys(canceled).sort(), ENVIRONMENT_STATUS_KEYS)
    assert.equal(canceled.deployment_request_id, first.execution_id, 'the running one is still being canceled')
    assert.equal(canceled.state, 'CANCELING')
    assertError(await calls.inject('POST', `${base}/cancelDeployment`, tokens.deploy.authorization), 409, 'conflict')

    // The queued one is canceled at once; the service it never reached keeps its state. The
    // running one shows CANCELING at once, and until its runner has stopped it.
    const [queuedNow, canceling] = await calls.entries(environment.id, tokens.read.authorization)
    assert.equal(queuedNow!.status, 'CANCELED')
    assert.equal(queuedNow!.action_status, 'CANCELED')
    assert.equal(queuedNow!.stages[0]!.status, 'CANCELED')
    assert.equal(queuedNow!.stages[0]!.duration, 'PT0S')
    assertService(queuedNow!.stages[0]!.services[0]!, 'READY', 'DEPLOY', 'CANCELED')

    assert.equal(canceling!.status, 'CANCELING', `the running one goes through CANCELING: ${JSON.stringify(canceling)}`)
    assert.equal(canceling!.action_status, 'CANCELING')
    assertService(canceling!.stages[0]!.services[0]!, 'CANCELING', 'DEPLOY', 'CANCELING')

    const [, ended] = await calls.waitForEntries(environment.id, tokens.read.authorization, (entries) => entries.every(finished))
    assert.equal(ended!.status, 'CANCELED')
    assert.equal(ended!.action_status, 'CANCELED')
    assert.equal(ended!.message, 'canceled')
    assert.equal(ended!.stages[0]!.status, 'CANCELED')
    assertService(ended!.stages[0]!.services[0]!, 'CANCELED', 'DEPLOY', 'CANCELED')
    assert.ok(durationMs(ended!.total_duration) > 0)

    assertError(await calls.inject('POST', `${base}/cancelDeployment`, tokens.deploy.authorization), 409, 'conflict')
    const idle = await calls.environmentStatus(environment.id, tokens.read.authorization)
    assert.equal(idle.state, 'CANCELED')
    assert.equal(idle.deployment_request_id, null)
    const helmIdle = await calls.helmStatus(helm.id, tokens.read.authorization)
    assert.equal(helmIdle.deployment_requests_count, 0)
    assert.equal(helmIdle.deployment_request_id, null)
  })

  it('leaves a service that a canceled queued deployment never reached in the state it reached meanwhile', async () => {
    const { environment, tokens } = await make.environmentWithTokens()
    const [a, b] = [await make.helmService(environment.id), await make.helmService(environment.id)]
    const deployA = await calls.trigger(`/helm/${a.id}/deploy`, tokens.deploy.authorization)
    await calls.trigger(`/helm/${b.id}/deploy`, tokens.deploy.authorization)
    const stopA = await calls.trigger(`/helm/${a.id}/stop`, tokens.deploy.authorization)
    // a is deployed while b deploys and the stop of a waits behind it.
    await calls.waitForEntries(environment.id, tokens.read.authorization, (entries) => entries[1]?.status === 'DEPLOYING', 'b deploying')
    assert.equal((await calls.helmStatus(a.id, tokens.read.authorization)).execution_id, stopA.execution_id)
    await calls.trigger(`/environment/${environment.id}/cancelDeployment`, tokens.deploy.authorization)
    const entries = await calls.waitUntilIdle(environment.id, tokens.read.authorization)
    assert.equal(entries.find((entry) => entry.identifier.execution_id === deployA.execution_id)?.status, 'DEPLOYED')

    const canceledStop = entries.find((entry) => entry.identifier.execution_id === stopA.execution_id)!
    assert.equal(canceledStop.status, 'CANCELED')
    assertService(canceledStop.stages[0]!.services[0]!, 'DEPLOYED', 'STOP', 'CANCELED')
    assert.equal((await calls.helmStatus(a.id, tokens.read.authorization)).state, 'DEPLOYED', 'a is still deployed')
    const uninstall = await calls.inject('POST', `/helm/${a.id}/uninstall`, tokens.deploy.authorization)
    assert.equal(uninstall.statusCode, 202, 'the chart of a is installed: uninstalling it is not "nothing to do"')
  })

  it('runs what is queued after a cancel', async () => {
    const { environment, tokens } = await make.environmentWithTokens()
    await make.helmService(environment.id)
    const base = `/environment/${environment.id}`
    await calls.trigger(`${base}/deploy`, tokens.deploy.authorization)
    await calls.trigger(`${base}/cancelDeployment`, tokens.deploy.authorization)
    const next = await calls.trigger(`${base}/deploy`, tokens.deploy.authorization)
    const entries = await until(
      () => calls.entries(environment.id, tokens.read.authorization),
      (list) => list.length === 2 && list.every(finished),
      { what: 'both deployments ended' },
    )
    assert.deepEqual(
      entries.map((entry) => [entry.identifier.execution_id === next.execution_id, entry.status]),
      [
        [true, 'DEPLOYED'],
        [false, 'CANCELED'],
      ],
    )
  })
})
