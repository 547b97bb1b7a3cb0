import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { createTestApp, type TestApp } from './helpers/app.ts'
import { assertError } from './helpers/assertions.ts'
import { type DeploymentCalls, deploymentCalls } from './helpers/deployments.ts'
import { factories } from './helpers/factories.ts'

// The deployment queue: what an environment (or a service) has queued, and the cancel of one
// request. The shared test database has no runner, so what is queued stays queued.

interface QueuedService {
  identifier: { service_id: string; service_type: string; name: string }
  status: string
  icon_uri: string
  details: Record<string, unknown>
}

interface QueuedRequest {
  identifier: { deployment_request_id: string; environment_id: string }
  auditing_data: { triggered_by: string; origin?: string }
  trigger_action: string
  stages: { name: string; status: string; services: QueuedService[] }[]
}

interface QueuedForService {
  identifier: { deployment_request_id: string; service_id: string; service_type: string; name: string }
  auditing_data: { triggered_by: string; origin?: string }
  status_details: { action: string; status: string; sub_action: string }
  icon_uri: string
}

let t: TestApp
let make: ReturnType<typeof factories>
let calls: DeploymentCalls

before(async () => {
  t = await createTestApp()
  make = factories(t.db)
  calls = deploymentCalls(t.app)
})
after(() => t?.close())

const environmentQueue = async (environmentId: string, authorization: string): Promise<QueuedRequest[]> => {
  const res = await calls.inject('GET', `/environment/${environmentId}/deploymentQueue`, authorization)
  assert.equal(res.statusCode, 200, res.body)
  const body = res.json()
  assert.deepEqual(body.has_more, false)
  return body.results
}

const serviceQueue = async (serviceId: string, authorization: string): Promise<QueuedForService[]> => {
  const res = await calls.inject('GET', `/service/${serviceId}/deploymentQueue`, authorization)
  assert.equal(res.statusCode, 200, res.body)
  return res.json().results
}

const cancel = (requestId: string, authorization: string, payload?: object) =>
  calls.inject('POST', `/deploymentQueue/${requestId}/cancelDeployment`, authorization, payload)

/** An environment with two helm services and three requests queued: a deploy of it, a deploy of `a` alone, a stop of it. */
async function queuedEnvironment() {
  const { environment, tokens, organization } = await make.environmentWithTokens()
  const [a, b] = [await make.helmService(environment.id, { name: 'alpha' }), await make.helmService(environment.id, { name: 'beta' })]
  const auth = tokens.deploy.authorization
  const deploy = await calls.trigger(`/environment/${environment.id}/deploy`, auth)
  const deployA = await calls.trigger(`/helm/${a.id}/deploy`, auth, { chart_version: '2.0.0' })
  const stop = await calls.trigger(`/environment/${environment.id}/stop`, auth)
  const ids = [deploy.execution_id as string, deployA.execution_id as string, stop.last_deployment_id as string]
  return { environment, organization, tokens, a, b, ids }
}

describe('deployment queue', () => {
  it('lists the environment’s queued requests oldest first, with their stages and services (QueuedDeploymentRequestWithStages)', async () => {
    const { environment, tokens, a, b, ids } = await queuedEnvironment()

    const queue = await environmentQueue(environment.id, tokens.read.authorization)
    assert.deepEqual(
      queue.map((request) => request.identifier.deployment_request_id),
      ids,
      'oldest first',
    )
    assert.deepEqual(
      queue.map((request) => request.trigger_action),
      ['DEPLOY', 'DEPLOY', 'STOP'],
    )
    for (const request of queue) {
      assert.deepEqual(Object.keys(request).sort(), ['auditing_data', 'identifier', 'stages', 'trigger_action'])
      assert.deepEqual(Object.keys(request.identifier).sort(), ['deployment_request_id', 'environment_id'])
      assert.equal(request.identifier.environment_id, environment.id)
      assert.deepEqual(request.auditing_data, { triggered_by: `API token ${tokens.deploy.name}`, origin: 'API' })
      for (const stage of request.stages) {
        assert.deepEqual(Object.keys(stage).sort(), ['name', 'services', 'status'])
        assert.equal(stage.status, 'QUEUED')
        for (const service of stage.services) {
          assert.deepEqual(Object.keys(service).sort(), ['details', 'icon_uri', 'identifier', 'status'])
          assert.deepEqual(Object.keys(service.identifier).sort(), ['name', 'service_id', 'service_type'])
          assert.equal(service.status, 'QUEUED')
          assert.equal(service.identifier.service_type, 'HELM')
          assert.equal(service.icon_uri, a.iconUri)
        }
      }
    }
    const services = (request: QueuedRequest) =>
      request.stages.map((stage) => [stage.name, stage.services.map((service) => [service.identifier.name, service.identifier.service_id])])
    assert.deepEqual(services(queue[0]!), [
      [
        'HELM DEFAULT',
        [
          ['alpha', a.id],
          ['beta', b.id],
        ],
      ],
    ])
    assert.deepEqual(services(queue[1]!), [['HELM DEFAULT', [['alpha', a.id]]]])
    assert.deepEqual(queue[1]!.stages[0]!.services[0]!.details, { repository: { chart_name: 'app', chart_version: '2.0.0' } })
    assert.deepEqual(services(queue[2]!), services(queue[0]!))
  })

  it('lists a service’s part of the queue: the requests that include it (QueuedDeploymentRequestForService)', async () => {
    const { tokens, a, b, ids } = await queuedEnvironment()
    const ofA = await serviceQueue(a.id, tokens.read.authorization)
    assert.deepEqual(
      ofA.map((request) => request.identifier.deployment_request_id),
      ids,
    )
    for (const request of ofA) {
      assert.deepEqual(Object.keys(request).sort(), ['auditing_data', 'icon_uri', 'identifier', 'status_details'])
      assert.deepEqual(Object.keys(request.identifier).sort(), ['deployment_request_id', 'name', 'service_id', 'service_type'])
      assert.deepEqual([request.identifier.service_id, request.identifier.service_type, request.identifier.name], [a.id, 'HELM', 'alpha'])
      assert.deepEqual(request.auditing_data, { triggered_by: `API token ${tokens.deploy.name}`, origin: 'API' })
      assert.equal(request.icon_uri, a.iconUri)
    }
    assert.deepEqual(
      ofA.map((request) => request.status_details),
      [
        { action: 'DEPLOY', status: 'QUEUED', sub_action: 'NONE' },
        { action: 'DEPLOY', status: 'QUEUED', sub_action: 'NONE' },
        { action: 'STOP', status: 'QUEUED', sub_action: 'NONE' },
      ],
    )
    assert.deepEqual(
      (await serviceQueue(b.id, tokens.read.authorization)).map((request) => request.identifier.deployment_request_id),
      [ids[0], ids[2]],
      'the deploy of the other service alone does not include it',
    )
    const stranger = await make.organizationWithTokens()
    assertError(await calls.inject('GET', `/service/${a.id}/deploymentQueue`, stranger.tokens.admin.authorization), 404, 'not_found')
    assertError(await calls.inject('GET', `/service/${randomUUID()}/deploymentQueue`, tokens.read.authorization), 404, 'not_found')
  })

  it('is empty for an environment with nothing queued, and hidden from other organizations', async () => {
    const { environment, tokens } = await make.environmentWithTokens()
    const helm = await make.helmService(environment.id)
    assert.deepEqual(await environmentQueue(environment.id, tokens.read.authorization), [])
    assert.deepEqual(await serviceQueue(helm.id, tokens.read.authorization), [])
    const stranger = await make.organizationWithTokens()
    assertError(await calls.inject('GET', `/environment/${environment.id}/deploymentQueue`, stranger.tokens.admin.authorization), 404, 'not_found')
  })

  it('cancels exactly one queued request (202): the others stay queued, its history entry is CANCELED', async () => {
    const { environment, tokens, a, b, ids } = await queuedEnvironment()
    const [first, middle, last] = ids as [string, string, string]

    const res = await cancel(middle, tokens.deploy.authorization, {})
    assert.equal(res.statusCode, 202, res.body)
    assert.equal(res.body, '')

    assert.deepEqual(
      (await environmentQueue(environment.id, tokens.read.authorization)).map((request) => request.identifier.deployment_request_id),
      [first, last],
    )
    assert.deepEqual(
      (await serviceQueue(a.id, tokens.read.authorization)).map((request) => request.identifier.deployment_request_id),
      [first, last],
    )
    const history = await calls.entries(environment.id, tokens.read.authorization)
    const state = Object.fromEntries(history.map((entry) => [entry.identifier.execution_id, [entry.status, entry.action_status]]))
    assert.deepEqual(state, {
      [first]: ['DEPLOYMENT_QUEUED', 'QUEUED'],
      [middle]: ['CANCELED', 'CANCELED'],
      [last]: ['STOP_QUEUED', 'QUEUED'],
    })
    const canceled = history.find((entry) => entry.identifier.execution_id === middle)!
    assert.deepEqual(
      canceled.stages.map((stage) => [stage.status, stage.services.map((service) => [service.status, service.status_details.status])]),
      [['CANCELED', [['READY', 'CANCELED']]]],
      'a service the request never reached stays what it was',
    )
    const helmStatus = await calls.helmStatus(a.id, tokens.read.authorization)
    assert.equal(helmStatus.deployment_requests_count, 2)
    assert.equal(helmStatus.deployment_request_id, first)
    assert.equal((await calls.helmStatus(b.id, tokens.read.authorization)).deployment_requests_count, 2)

    // The official clients may send no body.
    assert.equal((await cancel(first, tokens.admin.authorization)).statusCode, 202)
    assert.deepEqual(
      (await environmentQueue(environment.id, tokens.read.authorization)).map((request) => request.identifier.deployment_request_id),
      [last],
    )
  })

  it('answers 409 to the cancel of a request no longer queued, 404 to another organization’s or an unknown one, and 403 to READ', async () => {
    const { environment, tokens, ids } = await queuedEnvironment()
    const [first, middle] = ids as [string, string]
    assert.equal((await cancel(first, tokens.deploy.authorization, {})).statusCode, 202)
    assertError(await cancel(first, tokens.deploy.authorization, {}), 409, 'conflict')

    assertError(await cancel(middle, tokens.read.authorization, {}), 403, 'forbidden')
    const stranger = await make.organizationWithTokens()
    assertError(await cancel(middle, stranger.tokens.admin.authorization, {}), 404, 'not_found')
    assertError(await cancel(randomUUID(), tokens.admin.authorization, {}), 404, 'not_found')
    assert.deepEqual(
      (await environmentQueue(environment.id, tokens.read.authorization)).map((request) => request.identifier.deployment_request_id),
      ids.slice(1),
      'the refused cancels changed nothing',
    )
  })
})
