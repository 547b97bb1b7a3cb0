/**
 * Issue 48: environments that sleep. A project's deployment rule gives a new environment its
 * auto-stop schedule; the server's schedule tick (every 200 ms here) stops the running Docker
 * environment at its stop time and deploys it again at its start time, as the platform
 * (origin PLATFORM_INTERNAL), once. The times are set a few seconds ahead; nothing is timed.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { type DeploymentCalls, type DeploymentsTestApp, until } from './helpers/deployments.ts'
import { buildScriptImage, type LoopbackRegistry } from './helpers/docker.ts'
import {
  createContainer,
  readinessProbe,
  registryWorld,
  serviceInstances,
  startDockerSuite,
  stopDockerSuite,
  webContainerRequest,
} from './helpers/docker-world.ts'

const WEB_SCRIPT = `#!/bin/sh
mkdir -p /tmp/www && echo sleepy > /tmp/www/index.html
trap 'exit 0' TERM
httpd -f -p 8080 -h /tmp/www &
wait
`

let t: DeploymentsTestApp
let calls: DeploymentCalls
let registry: LoopbackRegistry
const environments: string[] = []

before(async () => {
  ;({ registry, t, calls } = await startDockerSuite({ BERTH_ENVIRONMENT_SCHEDULE_TICK_MS: '200' }, async (registry) => {
    await buildScriptImage('berth-test/sleepy:build', 'serve.sh', WEB_SCRIPT)
    await registry.push('berth-test/sleepy:build', 'sleepy', '1')
  }))
})

after(() => stopDockerSuite({ t, registry }, environments))

const running = async (serviceId: string) => (await serviceInstances(serviceId)).filter((info) => info.State === 'running')

/** A time of day `seconds` from now, on a whole second (the schedule's precision), as the reference writes times. */
const timeIn = (seconds: number) => new Date(Math.ceil(Date.now() / 1000) * 1000 + seconds * 1000).toISOString()
const FAR = '1970-01-01T03:33:33.000Z'
const EVERY_DAY = ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY']

describe('deployment rules on the Docker executor', () => {
  it('stop a running environment at its stop time and start it again at its start time, as the platform, once each', async () => {
    const testStarted = new Date(Date.now() - 1_000).toISOString()
    const w = await registryWorld(t, calls, registry, environments)
    const { admin, write } = w.tokens
    const clusterId = w.environment.clusterId
    // The rule gives environments named sleepy-* its schedule; its times are far for now.
    const rule = await calls.inject('POST', `/project/${w.project.id}/deploymentRule`, write.authorization, {
      name: 'nights off',
      mode: 'STAGING',
      cluster_id: clusterId,
      auto_stop: true,
      timezone: 'UTC',
      start_time: FAR,
      stop_time: FAR,
      weekdays: EVERY_DAY,
      wildcard: 'sleepy-*',
    })
    assert.equal(rule.statusCode, 201, rule.body)
    const created = await calls.inject('POST', `/project/${w.project.id}/environment`, write.authorization, { name: 'sleepy-dev' })
    assert.equal(created.statusCode, 201, created.body)
    const environmentId = created.json().id as string
    environments.push(environmentId)
    assert.equal(created.json().mode, 'STAGING', "the rule's mode")
    const given = (await calls.inject('GET', `/environment/${environmentId}/deploymentRule`, admin.authorization)).json()
    assert.equal(given.auto_stop, true)
    assert.deepEqual(given.weekdays, EVERY_DAY)

    const containerId = await createContainer(
      calls,
      { ...w, environment: { ...w.environment, id: environmentId } },
      webContainerRequest(w.registryId, { imageName: 'sleepy', tag: '1' }, readinessProbe('http', 10)),
    )
    await calls.trigger(`/environment/${environmentId}/deploy`, write.authorization)
    await until(
      () => running(containerId),
      (list) => list.length === 1,
      { timeoutMs: 60_000, what: 'the container running' },
    )
    await calls.waitUntilIdle(environmentId, admin.authorization)

    // The environment's schedule, moved: it stops in two seconds.
    const setStop = await calls.inject('PUT', `/environment/${environmentId}/deploymentRule/${environmentId}`, write.authorization, {
      auto_stop: true,
      timezone: 'UTC',
      start_time: FAR,
      stop_time: timeIn(2),
      weekdays: EVERY_DAY,
    })
    assert.equal(setStop.statusCode, 200, setStop.body)
    const stopped = await calls.waitForEntries(
      environmentId,
      admin.authorization,
      (list) => list[0]?.trigger_action === 'STOP' && list[0].action_status === 'SUCCESS',
      'the scheduled stop done',
    )
    assert.equal(stopped[0]!.auditing_data.origin, 'PLATFORM_INTERNAL')
    assert.equal(stopped[0]!.auditing_data.triggered_by, 'deployment rule schedule')
    assert.deepEqual(await running(containerId), [], 'nothing runs once stopped')

    // And starts in two seconds.
    const setStart = await calls.inject('PUT', `/environment/${environmentId}/deploymentRule/${environmentId}`, write.authorization, {
      auto_stop: true,
      timezone: 'UTC',
      start_time: timeIn(2),
      stop_time: FAR,
      weekdays: EVERY_DAY,
    })
    assert.equal(setStart.statusCode, 200, setStart.body)
    const started = await until(
      () => calls.entries(environmentId, admin.authorization),
      (list) => list[0]?.trigger_action === 'DEPLOY' && list[0].action_status === 'SUCCESS',
      { timeoutMs: 60_000, what: 'the scheduled start done' },
    )
    assert.equal(started[0]!.auditing_data.origin, 'PLATFORM_INTERNAL')
    await until(
      () => running(containerId),
      (list) => list.length === 1,
      { timeoutMs: 30_000, what: 'the container running again' },
    )
    // Each event was acted on once: one scheduled stop, one scheduled start.
    const scheduled = (await calls.entries(environmentId, admin.authorization)).filter((entry) => entry.auditing_data.origin === 'PLATFORM_INTERNAL')
    assert.deepEqual(
      scheduled.map((entry) => entry.trigger_action),
      ['DEPLOY', 'STOP'],
    )
    // The Docker engine's own events of the cluster say the same: the environment's container died, then started again.
    const window = `from_date_time=${encodeURIComponent(testStarted)}&to_date_time=${encodeURIComponent(new Date().toISOString())}`
    const events = await calls.inject('GET', `/cluster/${clusterId}/events?${window}`, admin.authorization)
    assert.equal(events.statusCode, 200, events.body)
    const ofEnvironment = (events.json().results as { namespace?: string; kind: string; reason: string; reporting_component: string }[]).filter(
      (event) => event.namespace === environmentId && event.kind === 'container',
    )
    const reasons = ofEnvironment.map((event) => event.reason)
    assert.ok(reasons.includes('die'), reasons.join(' '))
    assert.ok(reasons.lastIndexOf('start') > reasons.indexOf('die'), reasons.join(' '))
    assert.ok(ofEnvironment.every((event) => event.reporting_component === 'docker'))
  })
})
