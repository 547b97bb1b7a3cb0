import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import { buildImage as buildFromContext, removeBuiltImages } from '#src/modules/executors/docker/image-builds.ts'
import { pushImage } from '#src/modules/executors/docker/image-pushes.ts'
import { MAX_LOG_LINE_LENGTH } from '#src/platform/secrets/secret-masking.ts'
import { createDeploymentsApp, type DeploymentCalls, type DeploymentsTestApp, deploymentCalls } from './helpers/deployments.ts'
import { buildImage, docker, type LoopbackRegistry } from './helpers/docker.ts'
import { type RegistryWorld, registryWorld, startDockerSuite, stopDockerSuite } from './helpers/docker-world.ts'
import { factories } from './helpers/factories.ts'

// Issue 31: the holes of the third hardening round that need the real Docker engine, each tried
// the way an attacker would, through the API, against a runner with the Docker executor.

let t: DeploymentsTestApp
let calls: DeploymentCalls
let registry: LoopbackRegistry
const environments: string[] = []

before(async () => {
  ;({ registry, t, calls } = await startDockerSuite({ BERTH_DOCKER_PIDS_LIMIT: '20' }, async (registry) => {
    await buildImage('berth-test/hardening:build', 'FROM berth-test/busybox:1\n')
    await registry.push('berth-test/hardening:build', 'hardening', '1')
  }))
})

after(() => stopDockerSuite({ t, registry }, environments))

const world = () => registryWorld(t, calls, registry, environments)

/** Creates a job running `script` with sh, deploys it, and returns its history entry and logs. */
async function runJob(w: RegistryWorld, script: string, extra: object = {}) {
  const created = await calls.inject('POST', `/environment/${w.environment.id}/job`, w.tokens.write.authorization, {
    name: `job-${randomUUID().slice(0, 8)}`,
    cpu: 250,
    memory: 64,
    max_nb_restart: 0,
    max_duration_seconds: 60,
    source: { image: { image_name: 'hardening', tag: '1', registry_id: w.registryId } },
    schedule: { on_start: { entrypoint: '/bin/sh', arguments: ['-c', script] } },
    healthchecks: {},
    ...extra,
  })
  assert.equal(created.statusCode, 201, created.body)
  const queued = await calls.trigger(`/job/${created.json().id}/deploy`, w.tokens.deploy.authorization)
  const [entry] = await calls.waitUntilIdle(w.environment.id, w.tokens.read.authorization)
  const logs = await calls.inject('GET', `/environment/${w.environment.id}/logs?version=${queued.execution_id}`, w.tokens.read.authorization)
  assert.equal(logs.statusCode, 200, logs.body)
  return { jobId: created.json().id as string, entry: entry!, logs: logs.body }
}

describe('hardening against the real Docker engine', () => {
  it('masks a secret before cutting a long line: padding a line so the secret straddles the cut shows none of it', async () => {
    const w = await world()
    const secret = randomUUID().replaceAll('-', '')
    const variable = await calls.inject('POST', '/variable', w.tokens.write.authorization, {
      key: 'PADDED_SECRET',
      value: secret,
      is_secret: true,
      variable_scope: 'ENVIRONMENT',
      variable_parent_id: w.environment.id,
    })
    assert.equal(variable.statusCode, 201, variable.body)
    // The secret starts 6 characters before the cut: cut first, its first 6 characters would show.
    const padding = MAX_LOG_LINE_LENGTH - 6
    const script = `p=${'x'.repeat(1000)}; q=${'x'.repeat(padding - 3000)}; echo "$p$p$p$q$PADDED_SECRET"`
    const { entry, logs } = await runJob(w, script)
    assert.equal(entry.status, 'DEPLOYED')
    assert.ok(logs.includes(`${'x'.repeat(50)}***`), 'the masked line is in the logs')
    assert.ok(!logs.includes(secret.slice(0, 6)), "the secret's beginning leaked")
  })
})

describe('containers are confined', () => {
  it('stops a fork bomb at BERTH_DOCKER_PIDS_LIMIT processes', async () => {
    const w = await world()
    // 50 processes at once: past the limit of 20, the shell cannot fork and the run fails.
    const { entry, logs } = await runJob(w, 'i=0; while [ $i -lt 50 ]; do sleep 3 & i=$((i+1)); done; echo started-$i; wait')
    assert.match(logs, /can't fork/)
    assert.doesNotMatch(logs, /started-50/)
    assert.equal(entry.status, 'DEPLOYMENT_ERROR')
  })

  it('runs without the capabilities BERTH_DOCKER_CAP_DROP names (NET_RAW by default): no raw sockets to spoof neighbours on the bridge', async () => {
    const w = await world()
    const { entry, logs } = await runJob(w, 'cat /proc/self/status')
    assert.equal(entry.status, 'DEPLOYED')
    const lines = (JSON.parse(logs) as { message: { safe_message: string } }[]).map((line) => line.message.safe_message)
    const effective = lines.map((line) => /^CapEff:\s*([0-9a-f]+)$/.exec(line)).find((match) => match !== null)
    assert.ok(effective, 'the run printed its capabilities')
    const caps = BigInt(`0x${effective[1]}`)
    for (const [name, bit] of [
      ['NET_RAW', 13n],
      ['MKNOD', 27n],
      ['AUDIT_WRITE', 29n],
      ['SETFCAP', 31n],
      ['SETPCAP', 8n],
    ] as const) {
      assert.equal((caps >> bit) & 1n, 0n, `${name} is still granted`)
    }
    // What services commonly need stays: changing owners and users.
    assert.equal((caps >> 0n) & 1n, 1n, 'CHOWN')
    assert.equal((caps >> 7n) & 1n, 1n, 'SETUID')
  })
})

describe('the address guard at pull time', () => {
  let guarded: DeploymentsTestApp
  let sink: { url: string; requests: string[]; close(): Promise<void> }
  before(async () => {
    // The operator did not allow private addresses: registries must lead to public ones when pulled from.
    guarded = await createDeploymentsApp(0, {
      BERTH_EXECUTOR: 'docker',
      BERTH_DOCKER_PUBLISH_HOST: '127.0.0.1',
      BERTH_RUNNER_LEASE_MS: '30000',
      BERTH_RATE_LIMIT_PER_CREDENTIAL: '0',
      BERTH_RATE_LIMIT_PER_ADDRESS: '0',
    })
    const requests: string[] = []
    const server: Server = createServer((req, res) => {
      requests.push(`${req.method} ${req.url} ${req.headers.authorization ?? ''}`)
      res.writeHead(401, { 'www-authenticate': 'Basic realm="sink"' })
      res.end()
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    sink = {
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      requests,
      close: () => new Promise<void>((resolve) => server.close(() => resolve())),
    }
  })
  after(async () => {
    await guarded?.close()
    await sink?.close()
  })

  it('refuses to pull from a registry whose host leads to loopback when the deployment runs, saying why, and the engine never connects there', async () => {
    const guardedCalls = deploymentCalls(guarded.app)
    const f = factories(guarded.db)
    const w = await f.environmentWithTokens()
    environments.push(w.environment.id)
    // Stored while its name led elsewhere (the factories skip the write-time rule): DNS can change after.
    const registryRow = await f.containerRegistry(w.organization.id, {
      kind: 'GENERIC_CR',
      url: sink.url,
      config: { username: 'robot' },
      secrets: { password: `pw-${randomUUID()}` },
    })
    const created = await guardedCalls.inject('POST', `/environment/${w.environment.id}/container`, w.tokens.write.authorization, {
      name: 'pulled',
      registry_id: registryRow.id,
      image_name: 'internal/app',
      tag: randomUUID().slice(0, 8),
      arguments: [],
      cpu: 250,
      memory: 64,
      min_running_instances: 1,
      max_running_instances: 1,
      ports: [],
      healthchecks: {},
    })
    assert.equal(created.statusCode, 201, created.body)
    const queued = await guardedCalls.trigger(`/container/${created.json().id}/deploy`, w.tokens.deploy.authorization)
    const [entry] = await guardedCalls.waitUntilIdle(w.environment.id, w.tokens.read.authorization)
    assert.equal(entry!.status, 'DEPLOYMENT_ERROR')
    const message = entry!.stages.flatMap((stage) => stage.services)[0]!.message ?? ''
    assert.match(message, /pull of .* refused: 127\.0\.0\.1 leads to a loopback/)
    const logs = await guardedCalls.inject('GET', `/environment/${w.environment.id}/logs?version=${queued.execution_id}`, w.tokens.read.authorization)
    assert.match(logs.body, /BERTH_ALLOW_PRIVATE_URLS/)
    assert.deepEqual(sink.requests, [], 'the engine connected to the registry')
  })

  it('refuses to push a built image to a registry whose host leads to loopback, before the engine connects', async () => {
    const said: string[] = []
    const target = `${new URL(sink.url).host}/built/app:${randomUUID().slice(0, 8)}`
    await assert.rejects(
      pushImage(
        docker,
        'berth-test/busybox:1',
        target,
        { username: 'robot', password: 'pw', serveraddress: new URL(sink.url).host },
        (line) => said.push(line),
        AbortSignal.timeout(30_000),
        {
          allowPrivateUrls: false,
        },
      ),
      /push of .* refused: 127\.0\.0\.1 leads to a loopback/,
    )
    assert.match(said.join('\n'), /BERTH_ALLOW_PRIVATE_URLS/)
    assert.deepEqual(sink.requests, [], 'the engine connected to the registry')
  })
})

describe('build contexts', () => {
  it('refuses a context over BERTH_BUILD_CONTEXT_MAX_BYTES before sending anything, and streams one under it to the engine', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'berth-context-'))
    const serviceId = randomUUID()
    try {
      await writeFile(path.join(dir, 'Dockerfile'), 'FROM berth-test/busybox:1\nCOPY big.bin /big.bin\n')
      await writeFile(path.join(dir, 'big.bin'), Buffer.alloc(8 * 1024 * 1024, 7))
      const said: string[] = []
      const spec = {
        serviceId,
        checkout: dir,
        rootPath: '/',
        dockerfilePath: null,
        target: null,
        tag: `berth/${serviceId}:context`,
        timeoutSeconds: 120,
        allowPrivateUrls: false,
      }
      const refused = await buildFromContext(
        docker,
        { ...spec, contextMaxBytes: 1024 * 1024 },
        (line) => said.push(line),
        AbortSignal.timeout(60_000),
      )
      assert.equal(refused.ok, false)
      assert.match((refused as { message: string }).message, /over the 1048576 a build may send \(BERTH_BUILD_CONTEXT_MAX_BYTES\)/)
      assert.equal(said.length, 0, 'nothing was built')

      const built = await buildFromContext(
        docker,
        { ...spec, contextMaxBytes: 16 * 1024 * 1024 },
        (line) => said.push(line),
        AbortSignal.timeout(120_000),
      )
      assert.equal(built.ok, true, JSON.stringify(built))
      const image = await docker.getImage(spec.tag).inspect()
      assert.ok(image.Size >= 8 * 1024 * 1024, 'the 8 MiB file reached the image')
    } finally {
      await removeBuiltImages(docker, serviceId).catch(() => undefined)
      await rm(dir, { recursive: true, force: true })
    }
  })
})
