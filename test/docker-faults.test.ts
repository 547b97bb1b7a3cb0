import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type Docker from 'dockerode'
import { LABELS } from '#src/modules/executors/docker/docker-objects.ts'
import { createDockerRuntime } from '#src/modules/executors/docker/docker-runtime.ts'
import { addressLinks } from '#src/modules/services/service-links.ts'
import { createTestApp, type TestApp } from './helpers/app.ts'
import { baseEnv, processScenario } from './helpers/berth-processes.ts'
import { createDeploymentsApp, type DeploymentCalls, type DeploymentsTestApp, deploymentCalls, until } from './helpers/deployments.ts'
import { buildScriptImage, docker, type LoopbackRegistry, removeEnvironments, startRegistry } from './helpers/docker.ts'
import {
  containerVariable,
  createContainer,
  fetchText,
  readinessProbe,
  registryWorld,
  serviceInstances,
  webContainerRequest,
} from './helpers/docker-world.ts'
import { startWorker } from './helpers/process.ts'

// Issue 21, faults of the Docker executor: links answer the addresses the engine published,
// statuses read the engine (a container that died shows, a Berth restarted finds its services
// running), a cancel during a rollout keeps the previous version, and a runner killed in the middle
// of one leaves nothing half-made once the next runner ended its run.

const WEB_SCRIPT = `#!/bin/sh
mkdir -p /tmp/www
echo "$GREETING" > /tmp/www/index.html
trap 'exit 0' TERM
if [ -n "$BREAK_HTTP" ]; then sleep 3600 & wait; fi
httpd -f -p 8080 -h /tmp/www &
wait
`

let registry: LoopbackRegistry
const environments: string[] = []

before(async () => {
  registry = await startRegistry()
  await buildScriptImage('berth-test/faults:build', 'serve.sh', WEB_SCRIPT)
  await registry.push('berth-test/faults:build', 'faults', '1')
})

after(async () => {
  await removeEnvironments(environments).catch(() => undefined)
  await registry?.close()
})

const APP_ENV = { BERTH_GIT_ALLOW_PRIVATE_URLS: 'true', BERTH_RATE_LIMIT_PER_CREDENTIAL: '0', BERTH_RATE_LIMIT_PER_ADDRESS: '0' }

/** An environment with tokens, a loopback registry and a web container of it (readiness every second, up to 60 s). */
async function world(t: TestApp, calls: DeploymentCalls) {
  const w = await registryWorld(t, calls, registry, environments)
  const containerId = await createContainer(calls, w, webContainerRequest(w.registryId, { imageName: 'faults', tag: '1' }, readinessProbe('tcp', 60)))
  const variable = async (key: string, value: string) => {
    await containerVariable(calls, w.tokens.write.authorization, containerId, key, value)
  }
  await variable('GREETING', 'hello')
  return { ...w, containerId, variable }
}

const instances = (serviceId: string) => serviceInstances(serviceId, { all: true })
const running = async (serviceId: string) => (await instances(serviceId)).filter((info) => info.State === 'running')

describe('the Docker executor, seen from the API', () => {
  let t: DeploymentsTestApp
  let calls: DeploymentCalls

  before(async () => {
    t = await createDeploymentsApp(0, {
      ...APP_ENV,
      BERTH_EXECUTOR: 'docker',
      // Published on every address: links name the public host instead.
      BERTH_DOCKER_PUBLISH_HOST: '0.0.0.0',
      BERTH_DOCKER_PUBLIC_HOST: '127.0.0.1',
      BERTH_RUNNER_LEASE_MS: '30000',
    })
    calls = deploymentCalls(t.app)
  })
  after(async () => {
    await t?.close()
  })

  it('links answer the published addresses; statuses show instances that died or went, and a restarted Berth finds them running; a cancel during the readiness wait keeps the previous version', async () => {
    const { environment, tokens, containerId, variable } = await world(t, calls)
    const read = tokens.read.authorization
    const status = async (app = t.app) => {
      const res = await app.inject({ method: 'GET', url: `/container/${containerId}/status`, headers: { authorization: read } })
      assert.equal(res.statusCode, 200, res.body)
      return res.json().state as string
    }
    const environmentState = async () => {
      const res = await calls.inject('GET', `/environment/${environment.id}/statuses`, read)
      assert.equal(res.statusCode, 200, res.body)
      return res.json().containers.find((entry: { id: string }) => entry.id === containerId).state as string
    }

    // Before any deployment nothing answers: no link (issue 34: links nothing serves are not listed).
    const before = (await calls.inject('GET', `/container/${containerId}/link`, read)).json().results as { url: string }[]
    assert.deepEqual(before, [])

    await calls.trigger(`/container/${containerId}/deploy`, tokens.deploy.authorization)
    const [deployed] = await calls.waitUntilIdle(environment.id, read)
    assert.equal(deployed!.status, 'DEPLOYED', JSON.stringify(deployed))
    const links = (await calls.inject('GET', `/container/${containerId}/link`, read)).json().results as {
      url: string
      internal_port: number
      external_port: number
      is_default: boolean
    }[]
    // Without a front door (this app runs none), the published address alone: the derived names are served by nothing.
    const real = links.filter((link) => link.url.startsWith('http://'))
    assert.equal(real.length, 1, JSON.stringify(links))
    assert.equal(links.length, 1, JSON.stringify(links))
    assert.match(real[0]!.url, /^http:\/\/127\.0\.0\.1:\d+$/)
    assert.equal(real[0]!.internal_port, 8080)
    assert.equal(real[0]!.external_port, Number(new URL(real[0]!.url).port))
    assert.equal(real[0]!.is_default, false)
    assert.equal(await fetchText(`${real[0]!.url}/`), 'hello')
    assert.equal(await status(), 'DEPLOYED')

    // Berth restarted: another process on the same database finds the service running.
    const restarted = await createTestApp({ DATABASE_URL: t.config.database.url!, BERTH_EXECUTOR: 'docker', ...APP_ENV })
    try {
      assert.equal(await status(restarted.app), 'DEPLOYED')
      // Stopped outside Berth: STOPPED, in the service's status and the environment's statuses, in every process.
      const [instance] = await running(containerId)
      await docker.getContainer(instance!.Id).stop({ t: 0 })
      assert.equal(await status(), 'STOPPED')
      assert.equal(await status(restarted.app), 'STOPPED')
      assert.equal(await environmentState(), 'STOPPED')
      assert.deepEqual(
        ((await calls.inject('GET', `/container/${containerId}/link`, read)).json().results as { url: string }[]).filter((link) =>
          link.url.startsWith('http://'),
        ),
        [],
        'no address while nothing runs',
      )
      // Started again: as recorded.
      await docker.getContainer(instance!.Id).start()
      assert.equal(await status(), 'DEPLOYED')
      // Removed outside Berth: STOPPED.
      await docker.getContainer(instance!.Id).remove({ force: true })
      assert.equal(await status(restarted.app), 'STOPPED')
    } finally {
      await restarted.close()
    }

    // Deployed again, then a version that never gets ready is canceled while the rollout waits for it.
    await calls.trigger(`/container/${containerId}/deploy`, tokens.deploy.authorization)
    await calls.waitUntilIdle(environment.id, read)
    assert.equal(await status(), 'DEPLOYED')
    const [previous] = await running(containerId)
    await variable('BREAK_HTTP', '1')
    await calls.trigger(`/container/${containerId}/redeploy`, tokens.deploy.authorization)
    await until(
      () => running(containerId),
      (list) => list.length === 2,
      { what: 'the new instance started and waited for', timeoutMs: 20_000 },
    )
    const canceled = await calls.inject('POST', `/environment/${environment.id}/cancelDeployment`, tokens.deploy.authorization)
    assert.equal(canceled.statusCode, 202, canceled.body)
    const [entry] = await calls.waitUntilIdle(environment.id, read)
    assert.equal(entry!.status, 'CANCELED', JSON.stringify(entry))
    const kept = await instances(containerId)
    assert.deepEqual(
      kept.map((info) => [info.Id, info.State]),
      [[previous!.Id, 'running']],
      'the new instance is gone, the previous one runs',
    )
    const address = (await calls.inject('GET', `/container/${containerId}/link`, read))
      .json()
      .results.find((link: { url: string }) => link.url.startsWith('http://'))
    assert.equal(await fetchText(`${address.url}/`), 'hello')

    // Nothing is left once the service is deleted.
    assert.equal((await calls.inject('DELETE', `/container/${containerId}`, tokens.write.authorization)).statusCode, 204)
    await calls.waitUntilIdle(environment.id, read)
    assert.deepEqual(await instances(containerId), [])
  })
})

describe('a berth worker killed while a rollout waits for readiness', () => {
  const scenario = processScenario()
  let t: TestApp

  before(async () => {
    t = await createTestApp({ DATABASE_URL: scenario.database.url, BERTH_EXECUTOR: 'docker', ...APP_ENV })
  })
  after(async () => {
    await t?.close()
  })

  it('leaves the half-made instance to the next worker, which removes it once it ended the run; the previous version runs throughout', async () => {
    const calls = deploymentCalls(t.app)
    const { environment, tokens, containerId, variable } = await world(t, calls)
    const read = tokens.read.authorization
    const workerEnv = baseEnv(scenario.database, {
      BERTH_EXECUTOR: 'docker',
      BERTH_DOCKER_PUBLISH_HOST: '127.0.0.1',
      // The loopback registry is on a private address.
      BERTH_GIT_ALLOW_PRIVATE_URLS: 'true',
      // No front door here (front-door.test.ts has it): the worker must not load routes into a Caddy it finds on the default admin port.
      BERTH_PROXY: 'off',
      BERTH_RUNNER_LEASE_MS: '1500',
      BERTH_LOG_LEVEL: 'info',
    })
    const doomed = await scenario.group.add(startWorker(workerEnv))
    const first = await calls.trigger(`/container/${containerId}/deploy`, tokens.deploy.authorization)
    await until(
      () => calls.entries(environment.id, read),
      (list) => list[0]?.status === 'DEPLOYED',
      { what: 'the first version deployed', timeoutMs: 30_000, intervalMs: 100 },
    )
    const [previous] = await running(containerId)
    assert.equal(previous!.Labels[LABELS.execution], first.execution_id)

    await variable('BREAK_HTTP', '1')
    await calls.trigger(`/container/${containerId}/redeploy`, tokens.deploy.authorization)
    const [halfMade] = (
      await until(
        () => running(containerId),
        (list) => list.length === 2,
        { what: 'the new instance started and waited for', timeoutMs: 20_000 },
      )
    ).filter((info) => info.Id !== previous!.Id)
    assert.equal(await doomed.stop('SIGKILL'), null)
    assert.equal((await docker.getContainer(halfMade!.Id).inspect()).State.Running, true, 'the killed worker left it running')

    const rescuer = await scenario.group.add(startWorker(workerEnv))
    const [interrupted] = await until(
      () => calls.entries(environment.id, read),
      (list) => list[0]?.action_status === 'ERROR',
      { what: 'the interrupted run ended by the next worker', timeoutMs: 20_000, intervalMs: 100 },
    )
    assert.match(interrupted!.message ?? '', /interrupted|lost/i, JSON.stringify(interrupted))
    const left = await until(
      () => instances(containerId),
      (list) => list.length === 1,
      { what: 'the half-made instance removed', timeoutMs: 10_000, intervalMs: 100 },
    )
    assert.deepEqual(
      left.map((info) => [info.Id, info.State]),
      [[previous!.Id, 'running']],
    )
    // The next deployment is the rescuer's, on a clean slate.
    assert.equal((await calls.inject('DELETE', `/container/${containerId}`, tokens.write.authorization)).statusCode, 204)
    await until(
      () => instances(containerId),
      (list) => list.length === 0,
      { what: 'the service deleted by the next worker', timeoutMs: 20_000, intervalMs: 100 },
    )
    await rescuer.stop('SIGTERM')
  })
})

describe('the Docker runtime port, without the engine', () => {
  const info = (serviceId: string, instance: string, state: string, ports: object[] = []) =>
    ({
      Id: `${serviceId}-${instance}`,
      State: state,
      Status: state,
      Labels: { [LABELS.service]: serviceId, [LABELS.instance]: instance },
      Ports: ports,
    }) as unknown as Docker.ContainerInfo
  const runtime = (listContainers: () => Promise<Docker.ContainerInfo[]>, onDocker = true, publishHost = '0.0.0.0') => {
    let asked = 0
    const port = createDockerRuntime({
      docker: {
        listContainers: () => {
          asked++
          return listContainers()
        },
      } as unknown as Docker,
      deploysToDocker: async () => onDocker,
      publishHost,
      publicHost: 'berth.example',
      timeoutMs: 100,
    })
    return { port, asked: () => asked }
  }

  it('says STOPPED when no instance runs, UNAVAILABLE when some do not, nothing when all run', async () => {
    const { port } = runtime(async () => [
      info('a', '0', 'running'),
      info('b', '0', 'running'),
      info('b', '1', 'exited'),
      info('c', '0', 'exited'),
      info('d', '0', 'restarting'),
    ])
    const states = await port.liveStates('env', ['a', 'b', 'c', 'd', 'gone'])
    assert.deepEqual(Object.fromEntries([...states].map(([id, live]) => [id, live.state])), {
      b: 'UNAVAILABLE',
      c: 'STOPPED',
      d: 'STOPPED',
      gone: 'STOPPED',
    })
  })

  it('leaves the recorded states when the engine fails or is slow, and never asks about environments that do not deploy to Docker', async () => {
    const failing = runtime(async () => {
      throw new Error('engine down')
    })
    assert.equal((await failing.port.liveStates('env', ['a'])).size, 0)
    assert.equal(await failing.port.addresses({ id: 'a', environmentId: 'env' }), undefined)
    const slow = runtime(() => new Promise(() => {}))
    const started = Date.now()
    assert.equal((await slow.port.liveStates('env', ['a'])).size, 0)
    assert.ok(Date.now() - started < 2_000, 'answered within its timeout')
    const simulated = runtime(async () => [], false)
    assert.equal((await simulated.port.liveStates('env', ['a'])).size, 0)
    assert.equal(await simulated.port.addresses({ id: 'a', environmentId: 'env' }), undefined)
    assert.equal(simulated.asked(), 0)
  })

  it('answers each published port once, on the public host when published everywhere, as links of the public ports', async () => {
    const published = [
      { PrivatePort: 8080, PublicPort: 32768, Type: 'tcp', IP: '0.0.0.0' },
      { PrivatePort: 8080, PublicPort: 32768, Type: 'tcp', IP: '::' },
      { PrivatePort: 9000, PublicPort: 32769, Type: 'udp', IP: '0.0.0.0' },
      { PrivatePort: 7000, Type: 'tcp' },
    ]
    const { port } = runtime(async () => [info('a', '0', 'running', published), info('a', '1', 'exited', published)])
    const addresses = (await port.addresses({ id: 'a', environmentId: 'env' }))!
    assert.deepEqual(addresses, [
      { internalPort: 8080, protocol: 'TCP', host: 'berth.example', hostPort: 32768 },
      { internalPort: 9000, protocol: 'UDP', host: 'berth.example', hostPort: 32769 },
    ])
    const ports = [
      { internalPort: 8080, publiclyAccessible: true, protocol: 'HTTP' as const },
      { internalPort: 9000, publiclyAccessible: true, protocol: 'UDP' as const },
    ]
    assert.deepEqual(
      addressLinks({ id: 'a', kind: 'APPLICATION' }, ports, addresses).map((link) => [
        link.url,
        link.internal_port,
        link.external_port,
        link.is_default,
      ]),
      [
        ['http://berth.example:32768', 8080, 32768, false],
        ['udp://berth.example:32769', 9000, 32769, false],
      ],
    )
    // A port no longer public gives no link; a host address of its own is named as is.
    assert.deepEqual(addressLinks({ id: 'a', kind: 'CONTAINER' }, [{ ...ports[0]!, publiclyAccessible: false }], addresses), [])
    const onLoopback = runtime(async () => [info('a', '0', 'running', published)], true, '127.0.0.1')
    assert.equal((await onLoopback.port.addresses({ id: 'a', environmentId: 'env' }))![0]!.host, '127.0.0.1')
  })
})
