import assert from 'node:assert/strict'
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import { loadConfig } from '#src/config.ts'
import { LABELS, networkName } from '#src/modules/executors/docker/docker-objects.ts'
import { databaseVolume } from '#src/modules/services/kinds/database/database.workload.ts'
import { openEmbeddedDatabase } from '#src/platform/db/embedded.ts'
import { createTestApp, type TestApp } from './helpers/app.ts'
import { baseEnv, processScenario } from './helpers/berth-processes.ts'
import { createDeploymentsApp, type DeploymentCalls, type DeploymentsTestApp, deploymentCalls, until } from './helpers/deployments.ts'
import { buildScriptImage, docker, type LoopbackRegistry, removeEnvironments, startRegistry } from './helpers/docker.ts'
import { containerVariable, createContainer, readinessProbe, registryWorld, serviceInstances, webContainerRequest } from './helpers/docker-world.ts'
import { factories } from './helpers/factories.ts'
import { startWorker } from './helpers/process.ts'

// Issue 33: the Docker executor keeps its promises. Nothing leaks (networks), a service with
// storage never runs twice on its volume, a crash during a first deploy ends with the engine and
// the history in agreement, the default cluster says the executor it deploys with, volumes carry
// Berth's labels, log lines carry the engine's timestamps, an old instance's stop does not hold the
// queue and the grace period is the service's, and published ports keep to their range.

const WEB_SCRIPT = `#!/bin/sh
mkdir -p /tmp/www
echo "$GREETING" > /tmp/www/index.html
echo "web starting: $GREETING"
if [ -n "$IGNORE_TERM" ]; then trap '' TERM; else trap 'exit 0' TERM; fi
trap 'echo "stopped by USR1"; exit 0' USR1
if [ -n "$BREAK_HTTP" ]; then while true; do sleep 1; done; fi
httpd -f -p 8080 -h /tmp/www &
while true; do sleep 1; done
`
// A stand-in for postgres: serves on 5432, keeps its starts in its data directory.
const DATABASE_SCRIPT = `#!/bin/sh
mkdir -p /var/lib/postgresql/data /tmp/www
date >> /var/lib/postgresql/data/starts
trap 'exit 0' TERM
httpd -f -p 5432 -h /tmp/www &
wait
`
const PUBLISH_PORTS = { from: 20_400, to: 20_499 }

let registry: LoopbackRegistry
const environments: string[] = []

before(async () => {
  registry = await startRegistry()
  await buildScriptImage('berth-test/promises-web:build', 'serve.sh', WEB_SCRIPT)
  await registry.push('berth-test/promises-web:build', 'promises-web', '1')
  // The same, stopped with SIGUSR1 (its STOPSIGNAL).
  await buildScriptImage('berth-test/promises-web:usr1', 'serve.sh', WEB_SCRIPT, { stopSignal: 'SIGUSR1' })
  await registry.push('berth-test/promises-web:usr1', 'promises-web', 'usr1')
  await buildScriptImage('berth-test/promises/postgres:16', 'db.sh', DATABASE_SCRIPT)
})

after(async () => {
  await removeEnvironments(environments).catch(() => undefined)
  await registry?.close()
})

const APP_ENV = {
  BERTH_EXECUTOR: 'docker',
  BERTH_DOCKER_PUBLISH_HOST: '127.0.0.1',
  BERTH_DOCKER_DATABASE_IMAGES: 'berth-test/promises',
  BERTH_GIT_ALLOW_PRIVATE_URLS: 'true',
  BERTH_RATE_LIMIT_PER_CREDENTIAL: '0',
  BERTH_RATE_LIMIT_PER_ADDRESS: '0',
}

const instances = (serviceId: string) => serviceInstances(serviceId, { all: true })
const running = async (serviceId: string) => (await instances(serviceId)).filter((info) => info.State === 'running')
/** What the engine holds of a container's configuration (dockerode's type leaves out the stop settings). */
const engineConfig = async (id: string) => (await docker.getContainer(id).inspect()).Config as { StopTimeout?: number; StopSignal?: string }
const networkExists = async (environmentId: string) =>
  (await docker.listNetworks({ filters: { name: [networkName(environmentId)] } })).some((network) => network.Name === networkName(environmentId))

async function containerWorld(t: TestApp, calls: DeploymentCalls, options: { tag?: string; variables?: Record<string, string> } = {}) {
  const w = await registryWorld(t, calls, registry, environments)
  const containerId = await createContainer(
    calls,
    w,
    webContainerRequest(w.registryId, { imageName: 'promises-web', tag: options.tag ?? '1' }, readinessProbe('tcp', 60)),
  )
  for (const [key, value] of Object.entries({ GREETING: 'hello', ...options.variables }))
    await containerVariable(calls, w.tokens.write.authorization, containerId, key, value)
  return { ...w, containerId }
}

async function logLines(calls: DeploymentCalls, environmentId: string, executionId: string, authorization: string) {
  const res = await calls.inject('GET', `/environment/${environmentId}/logs?version=${executionId}`, authorization)
  assert.equal(res.statusCode, 200, res.body)
  return res.json() as { timestamp: string; message: { safe_message: string } | null }[]
}
const text = (lines: { message: { safe_message: string } | null }[]) => lines.map((line) => line.message?.safe_message ?? '').join('\n')

describe('the Docker executor keeps its promises', () => {
  let t: DeploymentsTestApp
  let calls: DeploymentCalls

  before(async () => {
    t = await createDeploymentsApp(0, {
      ...APP_ENV,
      BERTH_DOCKER_PUBLISH_PORTS: `${PUBLISH_PORTS.from}-${PUBLISH_PORTS.to}`,
      BERTH_RUNNER_LEASE_MS: '30000',
    })
    calls = deploymentCalls(t.app)
  })
  after(async () => {
    await t?.close()
  })

  it('leaves no network behind: 40 environments made, deployed and deleted in a row', async () => {
    const { tokens, project } = await factories(t.db).environmentWithTokens()
    for (let round = 0; round < 40; round++) {
      const environment = await factories(t.db).environment(project.id)
      environments.push(environment.id)
      const databaseId = (await factories(t.db).database(environment.id, { name: 'db', accessibility: 'PRIVATE' })).id
      await calls.trigger(`/database/${databaseId}/deploy`, tokens.deploy.authorization)
      const [deployed] = await calls.waitUntilIdle(environment.id, tokens.read.authorization)
      assert.equal(deployed!.status, 'DEPLOYED', `round ${round}: ${JSON.stringify(deployed)}`)
      assert.equal(await networkExists(environment.id), true)
      const deleted = await calls.inject('DELETE', `/environment/${environment.id}`, tokens.write.authorization)
      assert.ok([202, 204].includes(deleted.statusCode), deleted.body)
      await until(
        () => calls.inject('GET', `/environment/${environment.id}`, tokens.read.authorization),
        (res) => res.statusCode === 404,
        { what: `environment of round ${round} deleted`, timeoutMs: 30_000, intervalMs: 100 },
      )
      assert.equal(await networkExists(environment.id), false, `round ${round}: the network of a deleted environment is gone`)
    }
    const left = await docker.listNetworks({ filters: { label: [`${LABELS.environment}`] } })
    const ours = new Set(environments)
    assert.deepEqual(
      left.filter((network) => ours.has(network.Labels?.[LABELS.environment] ?? '')).map((network) => network.Name),
      [],
    )
  })

  it('leaves nothing behind when a project or an organization goes with its environments', async () => {
    const { organization, tokens, environment, project } = await factories(t.db).environmentWithTokens()
    environments.push(environment.id)
    const other = await factories(t.db).environment((await factories(t.db).project(organization.id)).id)
    environments.push(other.id)
    const deployed = async (environmentId: string) => {
      const database = await factories(t.db).database(environmentId, { name: 'db', accessibility: 'PRIVATE' })
      await calls.trigger(`/database/${database.id}/deploy`, tokens.deploy.authorization)
      const [entry] = await calls.waitUntilIdle(environmentId, tokens.read.authorization)
      assert.equal(entry!.status, 'DEPLOYED', JSON.stringify(entry))
      return database.id
    }
    const left = async (environmentId: string, databaseId: string) => ({
      containers: (await docker.listContainers({ all: true, filters: { label: [`${LABELS.environment}=${environmentId}`] } })).length,
      network: await networkExists(environmentId),
      volume: await docker
        .getVolume(databaseVolume(databaseId))
        .inspect()
        .then(
          () => true,
          () => false,
        ),
    })
    const nothing = { containers: 0, network: false, volume: false }
    const inProject = await deployed(environment.id)
    const inOrganization = await deployed(other.id)
    assert.equal((await calls.inject('DELETE', `/project/${project.id}`, tokens.admin.authorization)).statusCode, 204)
    await until(
      () => left(environment.id, inProject),
      (now) => JSON.stringify(now) === JSON.stringify(nothing),
      {
        what: "the deleted project's environment gone from the engine",
        timeoutMs: 20_000,
        intervalMs: 100,
      },
    )
    assert.deepEqual(await left(other.id, inOrganization), { containers: 1, network: true, volume: true }, 'another project keeps running')
    assert.equal((await calls.inject('DELETE', `/organization/${organization.id}`, tokens.admin.authorization)).statusCode, 204)
    await until(
      () => left(other.id, inOrganization),
      (now) => JSON.stringify(now) === JSON.stringify(nothing),
      {
        what: "the deleted organization's environment gone from the engine",
        timeoutMs: 20_000,
        intervalMs: 100,
      },
    )
  })

  it('never runs a database twice on its volume: a redeploy stops the old one first, says so, and the history shows the downtime; its volume carries labels', async () => {
    const { environment, tokens } = await factories(t.db).environmentWithTokens()
    environments.push(environment.id)
    const database = await factories(t.db).database(environment.id, { name: 'main', accessibility: 'PRIVATE' })
    await calls.trigger(`/database/${database.id}/deploy`, tokens.deploy.authorization)
    const [first] = await calls.waitUntilIdle(environment.id, tokens.read.authorization)
    assert.equal(first!.status, 'DEPLOYED', JSON.stringify(first))

    const onVolume = async () =>
      (await docker.listContainers({ filters: { volume: [databaseVolume(database.id)], status: ['running', 'restarting', 'created'] } })).length
    const redeploy = await calls.trigger(`/database/${database.id}/redeploy`, tokens.deploy.authorization)
    let most = 0
    let samples = 0
    for (;;) {
      most = Math.max(most, await onVolume())
      samples++
      const [latest] = await calls.entries(environment.id, tokens.read.authorization)
      if (latest && latest.identifier.execution_id === redeploy.execution_id && ['SUCCESS', 'ERROR', 'CANCELED'].includes(latest.action_status)) break
    }
    const [entry] = await calls.entries(environment.id, tokens.read.authorization)
    assert.equal(entry!.status, 'RESTARTED', JSON.stringify(entry))
    assert.ok(samples > 1)
    assert.equal(most, 1, 'never two containers on the volume')
    assert.equal(await onVolume(), 1)
    const service = entry!.stages.flatMap((stage) => stage.services)[0]!
    const downtime = (service.details as { downtime?: { reason: string; seconds: number } }).downtime
    assert.ok(downtime, `the history entry shows the downtime: ${JSON.stringify(service)}`)
    assert.match(downtime.reason, /stopped before the new one started/)
    assert.equal(typeof downtime.seconds, 'number')
    const logs = text(await logLines(calls, environment.id, redeploy.execution_id, tokens.read.authorization))
    assert.match(logs, /stop before the new ones start/)
    assert.match(logs, /the service was down for [\d.]+ s/)

    const volume = await docker.getVolume(databaseVolume(database.id)).inspect()
    assert.equal(volume.Labels?.[LABELS.service], database.id, 'the volume names its service')
    assert.equal(volume.Labels?.[LABELS.environment], environment.id)
    assert.equal(volume.Labels?.[LABELS.kind], 'DATABASE')
  })

  it("lets a stubborn old instance stop after the new one serves, with the service's grace period; honours the image's STOPSIGNAL", async () => {
    const { environment, tokens, containerId } = await containerWorld(t, calls, { variables: { IGNORE_TERM: '1' } })
    const settings = await calls.inject('PUT', `/container/${containerId}/advancedSettings`, tokens.write.authorization, {
      'deployment.termination_grace_period_seconds': 45,
    })
    assert.equal(settings.statusCode, 201, settings.body)
    await calls.trigger(`/container/${containerId}/deploy`, tokens.deploy.authorization)
    const [deployed] = await calls.waitUntilIdle(environment.id, tokens.read.authorization)
    assert.equal(deployed!.status, 'DEPLOYED', JSON.stringify(deployed))
    const [old] = await running(containerId)

    const redeploy = await calls.trigger(`/container/${containerId}/redeploy`, tokens.deploy.authorization)
    const [restarted] = await calls.waitUntilIdle(environment.id, tokens.read.authorization)
    assert.equal(restarted!.status, 'RESTARTED', JSON.stringify(restarted))
    // The image ignores SIGTERM: had the stop held the queue, the old instance would be gone by now.
    const oldState = await docker
      .getContainer(old!.Id)
      .inspect()
      .then((info) => info.State.Running)
      .catch(() => false)
    assert.equal(oldState, true, 'the old instance is still being stopped while the deployment is over')
    const logs = text(await logLines(calls, environment.id, redeploy.execution_id, tokens.read.authorization))
    assert.match(logs, /stopping the previous instance 0 \([0-9a-f]+\) in the background, with its image's stop signal and 45 s of grace/)
    await docker.getContainer(old!.Id).remove({ force: true })
    const [replacement] = await running(containerId)
    assert.equal((await engineConfig(replacement!.Id)).StopTimeout, 45, "the engine knows the service's grace period")

    // An image whose STOPSIGNAL it handles stops at once, though it ignores SIGTERM.
    const usr1 = await containerWorld(t, calls, { tag: 'usr1', variables: { IGNORE_TERM: '1' } })
    await calls.trigger(`/container/${usr1.containerId}/deploy`, usr1.tokens.deploy.authorization)
    await calls.waitUntilIdle(usr1.environment.id, usr1.tokens.read.authorization)
    const [first] = await running(usr1.containerId)
    assert.equal((await engineConfig(first!.Id)).StopSignal, 'SIGUSR1')
    await calls.trigger(`/container/${usr1.containerId}/redeploy`, usr1.tokens.deploy.authorization)
    await calls.waitUntilIdle(usr1.environment.id, usr1.tokens.read.authorization)
    // Well within the 60 s a SIGTERM-only stop would take.
    await until(
      () => instances(usr1.containerId),
      (list) => !list.some((info) => info.Id === first!.Id),
      { what: 'the old instance stopped by its STOPSIGNAL and removed', timeoutMs: 30_000, intervalMs: 200 },
    )
  })

  it('publishes ports within BERTH_DOCKER_PUBLISH_PORTS', async () => {
    const { environment, tokens, containerId } = await containerWorld(t, calls)
    await calls.trigger(`/container/${containerId}/deploy`, tokens.deploy.authorization)
    const [deployed] = await calls.waitUntilIdle(environment.id, tokens.read.authorization)
    assert.equal(deployed!.status, 'DEPLOYED', JSON.stringify(deployed))
    const [instance] = await running(containerId)
    const port = instance!.Ports.find((binding) => binding.PrivatePort === 8080 && binding.PublicPort)?.PublicPort
    assert.ok(port !== undefined && port >= PUBLISH_PORTS.from && port <= PUBLISH_PORTS.to, `published on ${port}`)
  })

  it("says the default cluster's executor is the one it deploys with", async () => {
    const { organization, tokens } = await factories(t.db).organizationWithTokens()
    const res = await calls.inject('GET', `/organization/${organization.id}/cluster`, tokens.read.authorization)
    assert.equal(res.statusCode, 200, res.body)
    const [cluster] = (res.json().results as { is_default: boolean; executor: string }[]).filter((c) => c.is_default)
    assert.equal(cluster?.executor, 'DOCKER')
  })

  it("times an instance's lines when the engine says they were printed", async () => {
    const { environment, tokens, containerId } = await containerWorld(t, calls)
    const queued = await calls.trigger(`/container/${containerId}/deploy`, tokens.deploy.authorization)
    await calls.waitUntilIdle(environment.id, tokens.read.authorization)
    const [instance] = await running(containerId)
    const engineLog = (await docker.getContainer(instance!.Id).logs({ stdout: true, stderr: true, timestamps: true })) as unknown as Buffer
    const printed = engineLog
      .toString('utf8')
      .split('\n')
      .find((line) => line.includes('web starting: hello'))
    assert.ok(printed, engineLog.toString('utf8'))
    const engineAt = new Date(printed.slice(printed.search(/\d{4}-\d\d-\d\dT/), printed.indexOf(' '))).toISOString()
    const line = (await logLines(calls, environment.id, queued.execution_id, tokens.read.authorization)).find((candidate) =>
      candidate.message?.safe_message.includes('web starting: hello'),
    )
    assert.ok(line, 'the line is in the deployment log')
    assert.equal(line.timestamp, engineAt)
  })
})

describe('a berth worker killed during a first deploy', () => {
  const scenario = processScenario()
  let t: TestApp

  before(async () => {
    t = await createTestApp({ DATABASE_URL: scenario.database.url, ...APP_ENV })
  })
  after(async () => {
    await t?.close()
  })

  it('ends with the engine and the history in agreement: the half-made instance of a service never deployed is removed, and the run says so', async () => {
    const calls = deploymentCalls(t.app)
    const { environment, tokens, containerId } = await containerWorld(t, calls, { variables: { BREAK_HTTP: '1' } })
    const read = tokens.read.authorization
    const workerEnv = baseEnv(scenario.database, { ...APP_ENV, BERTH_RUNNER_LEASE_MS: '1500', BERTH_LOG_LEVEL: 'info' })
    const doomed = await scenario.group.add(startWorker(workerEnv))
    const first = await calls.trigger(`/container/${containerId}/deploy`, tokens.deploy.authorization)
    const [halfMade] = await until(
      () => running(containerId),
      (list) => list.length === 1,
      { what: 'the first instance started and waited for', timeoutMs: 20_000 },
    )
    assert.equal(await doomed.stop('SIGKILL'), null)
    assert.equal((await docker.getContainer(halfMade!.Id).inspect()).State.Running, true, 'the killed worker left it running')

    const rescuer = await scenario.group.add(startWorker(workerEnv))
    const [interrupted] = await until(
      () => calls.entries(environment.id, read),
      (list) => list[0]?.action_status === 'ERROR',
      { what: 'the interrupted run ended by the next worker', timeoutMs: 20_000, intervalMs: 100 },
    )
    assert.equal(interrupted!.identifier.execution_id, first.execution_id)
    await until(
      () => instances(containerId),
      (list) => list.length === 0,
      { what: 'the half-made instance removed', timeoutMs: 10_000, intervalMs: 100 },
    )
    const said = await until(
      async () => text(await logLines(calls, environment.id, first.execution_id, read)),
      (logs) => /removed instance 0/.test(logs),
      { what: 'the run says what became of its instance', timeoutMs: 10_000, intervalMs: 100 },
    )
    assert.match(
      said,
      /removed instance 0 \(.+\) of the interrupted deployment: nothing of the service ran before it \(a first deploy, or one after a stop\) and the deployment never finished/,
    )
    const status = await calls.inject('GET', `/container/${containerId}/status`, read)
    assert.notEqual(status.json().state, 'DEPLOYED')
    await rescuer.stop('SIGTERM')
  })
})

describe('port ranges', () => {
  it('reads BERTH_DOCKER_PUBLISH_PORTS and BERTH_EMBEDDED_DB_PORTS, refusing what is not a range', () => {
    const config = loadConfig({ BERTH_DOCKER_PUBLISH_PORTS: '30000-30999', BERTH_EMBEDDED_DB_PORTS: '25432' })
    assert.deepEqual(config.runner.dockerPublishPorts, { from: 30000, to: 30999 })
    assert.deepEqual(config.database.embeddedPorts, { from: 25432, to: 25432 })
    assert.equal(loadConfig({}).runner.dockerPublishPorts, undefined)
    for (const bad of ['30999-30000', '0-10', '1-70000', 'any', '3000-']) {
      assert.throws(() => loadConfig({ BERTH_DOCKER_PUBLISH_PORTS: bad }), /BERTH_DOCKER_PUBLISH_PORTS must be a port range/)
    }
  })

  it('starts the embedded PostgreSQL on a port of BERTH_EMBEDDED_DB_PORTS', async () => {
    const root = await fs.mkdtemp(path.join(os.tmpdir(), 'berth-ports-'))
    await fs.chmod(root, 0o711)
    const range = { from: 20_540, to: 20_559 }
    const embedded = await openEmbeddedDatabase(path.join(root, 'data'), 'command', () => {}, range)
    try {
      const port = Number(new URL(embedded.url).port)
      assert.ok(port >= range.from && port <= range.to, `listens on ${port}`)
    } finally {
      await embedded.release()
      await fs.rm(root, { recursive: true, force: true })
    }
  })
})
