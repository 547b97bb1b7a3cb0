/**
 * Issue 42, what a new user tripped on, against the real Docker engine: a rollout's previous
 * instance stopping in the background (an image that ignores its stop signal, so that it lingers
 * for its grace period) is not counted by a dry run; a stop that listed it after the rollout's
 * background retirement removed it meanwhile does not fail ("no such container"); and a service
 * without a public web port (a database) is never said to get traffic from the front door.
 */
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import type Docker from 'dockerode'
import { ensureNetwork, LABELS, type PublicPort, serviceContainers } from '#src/modules/executors/docker/docker-objects.ts'
import { servingInstances } from '#src/modules/executors/docker/instance-workloads.ts'
import { type InstanceSpec, rollOut, stopInstances } from '#src/modules/executors/docker/service-instances.ts'
import { buildScriptImage, docker, removeEnvironments } from './helpers/docker.ts'

// Ignores TERM: stopped, it lingers until its grace period ends and the engine kills it.
const STUBBORN_SCRIPT = `#!/bin/sh
trap '' TERM
echo "stubborn starting"
while true; do sleep 1; done
`
const IMAGE = 'berth-test/stubborn:1'

describe('instances a rollout retires in the background (issue 42)', () => {
  const environmentId = randomUUID()
  let network: string

  before(async () => {
    await buildScriptImage(IMAGE, 'stubborn.sh', STUBBORN_SCRIPT)
    network = await ensureNetwork(docker, environmentId)
  })
  after(() => removeEnvironments([environmentId]))

  function spec(serviceId: string, executionId: string, publicPorts: PublicPort[] = []): InstanceSpec {
    return {
      owner: { serviceId, environmentId, executionId, kind: 'CONTAINER' },
      serviceName: 'stubborn',
      networkAlias: 'stubborn',
      network,
      image: IMAGE,
      entrypoint: null,
      command: null,
      env: [],
      files: [],
      cpuMilli: 100,
      memoryMb: 32,
      ports: publicPorts.map((port) => ({ internal: port.internalPort, protocol: 'TCP' as const, publish: false })),
      publicPorts,
      volumes: [],
      readiness: null,
      instances: 1,
      // Long enough that the previous instance is still there while the test looks.
      stopGraceSeconds: 60,
    }
  }

  const lines: string[] = []
  const say = (_step: string, message: string) => {
    lines.push(message)
  }
  const publish = { host: '127.0.0.1', ports: '' }
  const rolledOut = async (serviceId: string) => {
    const first = await rollOut(docker, spec(serviceId, randomUUID()), publish, say, new AbortController().signal)
    assert.equal(first.ok, true, JSON.stringify(first))
    const second = await rollOut(docker, spec(serviceId, randomUUID()), publish, say, new AbortController().signal)
    assert.equal(second.ok, true, JSON.stringify(second))
    const running = (await serviceContainers(docker, serviceId)).filter((info) => info.State === 'running')
    assert.equal(running.length, 2, 'the previous instance still stops in the background')
    return running
  }

  it('a dry run counts the instance that serves, not the one being retired', async () => {
    const serviceId = randomUUID()
    const running = await rolledOut(serviceId)
    const serving = servingInstances(await serviceContainers(docker, serviceId))
    assert.equal(serving.length, 1)
    const newest = running.reduce((found, info) => (info.Created >= found.Created ? info : found))
    const retiring = running.find((info) => info.Id !== serving[0]!.Id)!
    assert.equal(serving[0]!.Labels[LABELS.execution], newest.Labels[LABELS.execution])
    assert.ok(serving[0]!.Labels[LABELS.replaces]?.includes(retiring.Id), 'the one serving replaces the one left out')
  })

  it('a stop of instances the background retirement removed meanwhile succeeds: a container already gone is stopped', async () => {
    const serviceId = randomUUID()
    const running = await rolledOut(serviceId)
    const serving = servingInstances(running)
    const retiring = running.find((info) => !serving.includes(info))!
    // The engine as the stop sees it: the retirement removes the old instance right after the stop listed it.
    const racing = new Proxy(docker, {
      get(target, property, receiver) {
        if (property === 'listContainers') {
          return async (options: Docker.ContainerListOptions) => {
            const listed = await target.listContainers(options)
            await target.getContainer(retiring.Id).remove({ force: true })
            return listed
          }
        }
        const value = Reflect.get(target, property, receiver)
        return typeof value === 'function' ? value.bind(target) : value
      },
    })
    lines.length = 0
    const stopped = await stopInstances(racing, serviceId, 1, say)
    assert.deepEqual(stopped, { ok: true })
    assert.ok(
      lines.some((line) => line.includes('already gone')),
      lines.join('\n'),
    )
    const left = await serviceContainers(docker, serviceId)
    assert.ok(left.every((info) => info.State !== 'running'))
  })

  it('tells the front door of a ready instance only when it has a public web port, and only then says so', async () => {
    const told: string[] = []
    const withFrontDoor = { ...publish, instanceReady: async ({ containerId }: { containerId: string }) => void told.push(containerId) }
    lines.length = 0
    const database = randomUUID()
    const tcp: PublicPort = { internalPort: 5432, protocol: 'TCP', publiclyAccessible: true, isDefault: true }
    const asDatabase = await rollOut(docker, spec(database, randomUUID(), [tcp]), withFrontDoor, say, new AbortController().signal)
    assert.equal(asDatabase.ok, true)
    assert.deepEqual(told, [])
    assert.ok(!asDatabase.routed, 'nothing was routed: the deployment waits for the load after it')
    assert.ok(!lines.some((line) => line.includes('front door')), lines.join('\n'))

    const web = randomUUID()
    const http: PublicPort = { internalPort: 8080, protocol: 'HTTP', publiclyAccessible: true, isDefault: true }
    const asWeb = await rollOut(docker, spec(web, randomUUID(), [http]), withFrontDoor, say, new AbortController().signal)
    assert.equal(asWeb.ok, true)
    assert.equal(told.length, 1)
    assert.equal(asWeb.routed, true, 'every new instance is routed: the load after it runs in the background')
    assert.ok(lines.some((line) => line.includes('the front door sends')))
  })

  it("drains a replaced instance in the background, after the front door's switch; a first deploy has nothing to drain", async () => {
    const told: string[] = []
    const withFrontDoor = {
      ...publish,
      instanceReady: async ({ containerId }: { containerId: string }) => void told.push(containerId),
      drainMs: 3_000,
    }
    const http: PublicPort = { internalPort: 8080, protocol: 'HTTP', publiclyAccessible: true, isDefault: true }
    const serviceId = randomUUID()
    // A short grace: the stubborn image is killed soon after its stop signal.
    const quick = () => ({ ...spec(serviceId, randomUUID(), [http]), stopGraceSeconds: 1 })
    lines.length = 0
    const first = await rollOut(docker, quick(), withFrontDoor, say, new AbortController().signal)
    assert.equal(first.ok, true, JSON.stringify(first))
    assert.equal(told.length, 1)
    assert.ok(!lines.some((line) => line.includes('stopping the previous instance')), lines.join('\n'))

    const redeploy = await rollOut(docker, quick(), withFrontDoor, say, new AbortController().signal)
    assert.equal(redeploy.ok, true, JSON.stringify(redeploy))
    assert.equal(told.length, 2)
    // The rollout is done while the replaced instance still answers what it holds.
    const settled = await Promise.race([redeploy.retired!.then(() => 'retired'), Promise.resolve('draining')])
    assert.equal(settled, 'draining')
    assert.ok(
      lines.some((line) => line.includes('in the background, once it answered what it had (3 s)')),
      lines.join('\n'),
    )
    await redeploy.retired
    const left = await serviceContainers(docker, serviceId)
    assert.deepEqual(
      left.map((info) => info.Id),
      [told[1]],
    )
  })
})
