import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { LABELS } from '#src/modules/executors/docker/docker-objects.ts'
import { type DeploymentCalls, type DeploymentsTestApp, until } from './helpers/deployments.ts'
import { buildScriptImage, type LoopbackRegistry } from './helpers/docker.ts'
import {
  containerVariable,
  createContainer,
  fetchText,
  readinessProbe,
  registryWorld,
  serviceInstances,
  startDockerSuite,
  stopDockerSuite,
  webContainerRequest,
} from './helpers/docker-world.ts'
import { factories } from './helpers/factories.ts'

// Issue 35, "Going back": a rollback deploys an earlier execution's snapshot again, in the real
// Docker engine: the image tag, configuration and variables of then, not today's.

const versionScript = (version: string) => `#!/bin/sh
mkdir -p /tmp/www
echo "${version} $GREETING" > /tmp/www/index.html
trap 'exit 0' TERM
httpd -f -p 8080 -h /tmp/www &
wait
`

let t: DeploymentsTestApp
let calls: DeploymentCalls
let registry: LoopbackRegistry
const environments: string[] = []

before(async () => {
  ;({ registry, t, calls } = await startDockerSuite({}, async (registry) => {
    for (const version of ['v1', 'v2']) {
      const local = `berth-test/rollback-web:${version}`
      await buildScriptImage(local, 'serve.sh', versionScript(version))
      await registry.push(local, 'rollback-web', version.slice(1))
    }
  }))
})

after(() => stopDockerSuite({ t, registry }, environments))

const containerRequest = (registryId: string, tag: string) =>
  webContainerRequest(registryId, { imageName: 'rollback-web', tag }, readinessProbe('http', 5))

const running = async (serviceId: string) => (await serviceInstances(serviceId)).filter((info) => info.State === 'running')

async function served(info: { Ports: { PrivatePort: number; PublicPort?: number }[] }): Promise<string | undefined> {
  const port = info.Ports.find((candidate) => candidate.PrivatePort === 8080 && candidate.PublicPort)?.PublicPort
  return port ? fetchText(`http://127.0.0.1:${port}/`) : undefined
}

/** Waits until the service runs one instance alone, and answers what that instance serves and its image. */
async function runningAlone(serviceId: string): Promise<{ answer: string | undefined; image: string; execution: string | undefined }> {
  const [instance] = await until(
    () => running(serviceId),
    (list) => list.length === 1,
    { what: 'one instance running', timeoutMs: 30_000, intervalMs: 100 },
  )
  return { answer: await served(instance!), image: instance!.Image, execution: instance!.Labels[LABELS.execution] }
}

async function world() {
  const w = await registryWorld(t, calls, registry, environments)
  const containerId = await createContainer(calls, w, containerRequest(w.registryId, '1'))
  const greetingId = await containerVariable(calls, w.tokens.write.authorization, containerId, 'GREETING', 'one')
  return { ...w, containerId, greetingId }
}

/** The container's entry in the environment's history entry of `executionId`. */
async function serviceEntryOf(environmentId: string, executionId: string, authorization: string) {
  const entry = (await calls.entries(environmentId, authorization)).find((candidate) => candidate.identifier.execution_id === executionId)
  assert.ok(entry, `an entry for ${executionId}`)
  return { entry, service: entry.stages.flatMap((stage) => stage.services)[0]! }
}

describe('rollbacks', () => {
  it('deploys an earlier execution of a container again: its first image, configuration and variables come back, the history says which execution it restores, the stored configuration stays', async () => {
    const w = await world()
    const { environment, tokens, containerId } = w

    const first = await calls.trigger(`/container/${containerId}/deploy`, tokens.deploy.authorization)
    await calls.waitUntilIdle(environment.id, tokens.read.authorization)
    assert.equal((await runningAlone(containerId)).answer, 'v1 one')

    // Today's configuration: another tag, another greeting, deployed with the environment.
    const edited = await calls.inject('PUT', `/container/${containerId}`, tokens.write.authorization, containerRequest(w.registryId, '2'))
    assert.equal(edited.statusCode, 200, edited.body)
    const greeting = await calls.inject('PUT', `/variable/${w.greetingId}`, tokens.write.authorization, { key: 'GREETING', value: 'two' })
    assert.equal(greeting.statusCode, 200, greeting.body)
    const second = await calls.trigger(`/environment/${environment.id}/deploy`, tokens.deploy.authorization)
    await calls.waitUntilIdle(environment.id, tokens.read.authorization)
    const secondRun = await runningAlone(containerId)
    assert.equal(secondRun.answer, 'v2 two')
    assert.match(secondRun.image, /rollback-web:2$/)

    // Back to the first execution: the engine runs tag 1 again, with the greeting of then.
    const rolledBack = await calls.trigger(`/container/${containerId}/rollback`, tokens.deploy.authorization, { execution_id: first.execution_id })
    assert.equal(rolledBack.state, 'DEPLOYMENT_QUEUED')
    await calls.waitUntilIdle(environment.id, tokens.read.authorization)
    const restored = await runningAlone(containerId)
    assert.equal(restored.answer, 'v1 one')
    assert.match(restored.image, /rollback-web:1$/)
    assert.equal(restored.execution, rolledBack.execution_id)
    const { entry, service } = await serviceEntryOf(environment.id, rolledBack.execution_id, tokens.read.authorization)
    assert.equal(entry.trigger_action, 'DEPLOY')
    assert.equal(entry.status, 'DEPLOYED')
    assert.equal(entry.action_status, 'SUCCESS')
    assert.equal((service.details as Record<string, unknown>).tag, '1')
    assert.equal((service.details as Record<string, unknown>).restores_execution_id, first.execution_id)
    // The service's own history says it too.
    const own = await calls.inject('GET', `/container/${containerId}/deploymentHistoryV2`, tokens.read.authorization)
    assert.equal(own.statusCode, 200, own.body)
    assert.equal(own.json().results[0].details.restores_execution_id, first.execution_id)

    // The stored configuration is today's: the service reads OUT_OF_DATE until deployed as configured.
    const stored = await calls.inject('GET', `/container/${containerId}`, tokens.read.authorization)
    assert.equal(stored.json().tag, '2')
    const status = await calls.inject('GET', `/container/${containerId}/status`, tokens.read.authorization)
    assert.equal(status.json().service_deployment_status, 'OUT_OF_DATE')

    // The whole environment back to its deployment of tag 2: as configured again.
    const environmentRollback = await calls.trigger(`/environment/${environment.id}/rollback`, tokens.deploy.authorization, {
      execution_id: second.execution_id,
    })
    await calls.waitUntilIdle(environment.id, tokens.read.authorization)
    const again = await runningAlone(containerId)
    assert.equal(again.answer, 'v2 two')
    assert.match(again.image, /rollback-web:2$/)
    const restoredEntry = await serviceEntryOf(environment.id, environmentRollback.execution_id, tokens.read.authorization)
    assert.equal(restoredEntry.entry.trigger_action, 'DEPLOY')
    assert.equal(restoredEntry.entry.status, 'DEPLOYED')
    assert.equal((restoredEntry.service.details as Record<string, unknown>).restores_execution_id, second.execution_id)
    const upToDate = await calls.inject('GET', `/container/${containerId}/status`, tokens.read.authorization)
    assert.equal(upToDate.json().service_deployment_status, 'UP_TO_DATE')
  })

  it('needs DEPLOY, hides other organizations (404), and refuses with a 400 an execution that is not a successful deploy of the service or environment', async () => {
    const w = await world()
    const { environment, tokens, containerId } = w
    const deployed = await calls.trigger(`/container/${containerId}/deploy`, tokens.deploy.authorization)
    await calls.waitUntilIdle(environment.id, tokens.read.authorization)
    const body = { execution_id: deployed.execution_id }

    const read = await calls.inject('POST', `/container/${containerId}/rollback`, tokens.read.authorization, body)
    assert.equal(read.statusCode, 403, read.body)
    const readEnvironment = await calls.inject('POST', `/environment/${environment.id}/rollback`, tokens.read.authorization, body)
    assert.equal(readEnvironment.statusCode, 403, readEnvironment.body)

    const other = await factories(t.db).environmentWithTokens()
    const foreign = await calls.inject('POST', `/container/${containerId}/rollback`, other.tokens.admin.authorization, body)
    assert.equal(foreign.statusCode, 404, foreign.body)
    const foreignEnvironment = await calls.inject('POST', `/environment/${environment.id}/rollback`, other.tokens.admin.authorization, body)
    assert.equal(foreignEnvironment.statusCode, 404, foreignEnvironment.body)
    // Another environment's execution is not one of this environment's.
    const elsewhere = await calls.inject('POST', `/environment/${other.environment.id}/rollback`, other.tokens.admin.authorization, body)
    assert.equal(elsewhere.statusCode, 400, elsewhere.body)
    assert.equal(elsewhere.json().errors[0].path, '/execution_id')

    const unknown = await calls.inject('POST', `/container/${containerId}/rollback`, tokens.deploy.authorization, { execution_id: randomUUID() })
    assert.equal(unknown.statusCode, 400, unknown.body)
    assert.match(unknown.json().errors[0].message, /is not a successful deployment of this container service/)
    const notUuid = await calls.inject('POST', `/container/${containerId}/rollback`, tokens.deploy.authorization, { execution_id: 'yesterday' })
    assert.equal(notUuid.statusCode, 400, notUuid.body)

    // A stop succeeded, but it deployed nothing to go back to.
    const stopped = await calls.trigger(`/container/${containerId}/stop`, tokens.deploy.authorization)
    await calls.waitUntilIdle(environment.id, tokens.read.authorization)
    for (const url of [`/container/${containerId}/rollback`, `/environment/${environment.id}/rollback`]) {
      const res = await calls.inject('POST', url, tokens.deploy.authorization, { execution_id: stopped.execution_id })
      assert.equal(res.statusCode, 400, `${url}: ${res.body}`)
      assert.equal(res.json().errors[0].path, '/execution_id')
    }
    // Nothing was queued by any refusal: the stop is the newest entry.
    assert.equal((await calls.entries(environment.id, tokens.read.authorization))[0]!.identifier.execution_id, stopped.execution_id)

    // DEPLOY may roll back: the stopped container runs its deployed version again.
    await calls.trigger(`/container/${containerId}/rollback`, tokens.deploy.authorization, body)
    await calls.waitUntilIdle(environment.id, tokens.read.authorization)
    assert.equal((await runningAlone(containerId)).answer, 'v1 one')
  })
})
