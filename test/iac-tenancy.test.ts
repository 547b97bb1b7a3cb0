import assert from 'node:assert/strict'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import net from 'node:net'
import { after, before, describe, it } from 'node:test'
import { LABELS } from '#src/modules/executors/docker/docker-objects.ts'
import { builtImageRepository } from '#src/modules/executors/docker/image-builds.ts'
import { runNetwork, scratchVolume } from '#src/modules/executors/docker/step-workloads.ts'
import { openStateEndpoint } from '#src/modules/services/kinds/iac/iac-state-endpoint.ts'
import { createIacStatesRepository } from '#src/modules/services/kinds/iac/iac-states.repository.ts'
import { type DeploymentCalls, type DeploymentsTestApp, type EnvironmentEntry, isFinished, until } from './helpers/deployments.ts'
import { docker } from './helpers/docker.ts'
import { factories } from './helpers/factories.ts'
import type { FakeProvider, FakeRepository } from './helpers/fake-git-providers.ts'
import { type GitBuildWorld, startGitBuildWorld } from './helpers/git-build-world.ts'
import type { LoopbackGitServer } from './helpers/git-server.ts'
import { tofuStandinImage } from './helpers/tofu-standin-image.ts'

// Issue 42, item 1: an IAC run is tenant code, and must hold no Berth credential nor reach Berth.
// A WRITE token's dockerfile_fragment makes its own code run inside the engine's process (node's
// NODE_OPTIONS preloads a file of the repository into the stand-in engine, as a copied-in `tofu`
// would be on a real engine's image). That code reports what it holds and what it reaches: its
// environment and command line, Berth's database, Berth's API and a Caddy-like admin API on the
// host's loopback and on its network's gateway, and the state endpoint without the run's
// credential. The test asserts none of it works, inspects the run's container through the Docker
// API while it runs, and that the run itself still keeps its state in Berth.

let builds: GitBuildWorld
let t: DeploymentsTestApp
let calls: DeploymentCalls
let git: LoopbackGitServer
let github: FakeProvider
let repository: { commit(files: Record<string, string>, message: string): Promise<string> }
const fakeRepository: FakeRepository = { defaultBranch: 'main', branches: [], commits: [] }
const environments: string[] = []
const services: string[] = []
/** A stand-in for Caddy's admin API: unauthenticated, on the host's loopback; it records who reached it. */
let adminApi: Server
const adminRequests: string[] = []

before(async () => {
  const { tag } = await tofuStandinImage()
  builds = await startGitBuildWorld({
    name: 'tenant/infra',
    fakeRepository,
    environments,
    services,
    env: { BERTH_IAC_IMAGES: `OPEN_TOFU=berth-test/tofu-standin:${tag},TERRAFORM=berth-test/tofu-standin:${tag}` },
  })
  ;({ t, calls, git, github } = builds)
  repository = await git.repository('tenant/infra.git')
  // Berth's API really listens, as a server does.
  await t.app.listen({ host: '127.0.0.1', port: 0 })
  adminApi = createServer((req, res) => {
    adminRequests.push(`${req.method} ${req.url}`)
    res.end('{}')
  })
  await new Promise<void>((resolve) => adminApi.listen(0, '127.0.0.1', resolve))
})

after(async () => {
  await builds?.close()
  await new Promise((resolve) => adminApi?.close(resolve))
  for (const id of services)
    await docker
      .getVolume(scratchVolume('IAC', id))
      .remove()
      .catch(() => undefined)
})

/** The tenant's code: reports (base64 JSON, past the logs' masks) what the engine's process holds and reaches. */
function probeSource(targets: Record<string, number>): string {
  return `
const fs = require('node:fs')
const net = require('node:net')
const parent = JSON.parse(process.argv[2])
// The gateway of the container's network: the host, as the container sees it.
const route = fs.readFileSync('/proc/net/route', 'utf8').split('\\n').map((line) => line.trim().split(/\\s+/)).find((f) => f[1] === '00000000')
const gateway = route ? Buffer.from(route[2], 'hex').reverse().join('.') : ''
const targets = ${JSON.stringify(targets)}
const reach = (host, port) => new Promise((resolve) => {
  const socket = net.connect({ host, port })
  const done = (how) => { socket.destroy(); resolve(how) }
  socket.setTimeout(3000, () => done('timeout'))
  socket.on('connect', () => done('open'))
  socket.on('error', (error) => done(error.code || 'error'))
})
const main = async () => {
  const reached = {}
  for (const [name, port] of Object.entries(targets)) {
    reached[name + '@loopback'] = await reach('127.0.0.1', port)
    if (gateway) reached[name + '@gateway'] = await reach(gateway, port)
  }
  const state = parent.env.TF_HTTP_ADDRESS
  const status = async (url, headers) => { try { return (await fetch(url, { headers })).status } catch (e) { return String(e.cause?.code || e.message) } }
  const endpoint = state ? {
    noCredential: await status(state, {}),
    wrongCredential: await status(state, { authorization: 'Basic ' + Buffer.from('berth-iac-run:guess').toString('base64') }),
    otherPath: await status(new URL('/organization', state).toString(), { authorization: 'Basic ' + Buffer.from(parent.env.TF_HTTP_USERNAME + ':' + parent.env.TF_HTTP_PASSWORD).toString('base64') }),
  } : null
  // Held until the test has inspected this container through the Docker API (or a minute).
  for (let i = 0; i < 300 && !fs.existsSync('/tmp/inspected'); i++) await new Promise((r) => setTimeout(r, 200))
  const report = { env: parent.env, argv: parent.argv, gateway, reached, endpoint }
  process.stdout.write('ATTACK ' + Buffer.from(JSON.stringify(report)).toString('base64') + '\\n')
}
main()
`
}

/** Preloaded into the engine's process: runs the probe (once, at init) with what that process holds, then lets the engine go on. */
const PRELOAD = `
if (process.argv.includes('init')) {
  const { spawnSync } = require('node:child_process')
  const parent = JSON.stringify({ env: process.env, argv: process.argv })
  spawnSync(process.execPath, ['/berth/iac/probe.cjs', parent], { stdio: 'inherit', env: { PATH: process.env.PATH } })
}
`

const MAIN_TF = `
variable "api_key" {}
resource "standin_bucket" "assets" {
  key = "\${var.api_key}"
}
`

async function settled(environmentId: string, authorization: string): Promise<EnvironmentEntry> {
  const list = await until(
    () => calls.entries(environmentId, authorization),
    (entries) => entries.length > 0 && entries.every(isFinished),
    { what: 'every deployment finished', timeoutMs: 240_000, intervalMs: 250 },
  )
  return list[0]!
}

describe("an IAC run is tenant code: it holds no Berth credential and reaches nothing of Berth's but its own state", () => {
  it("a WRITE token's code in the engine's process finds no credential and cannot reach the database, the API or the admin API", async () => {
    const databaseUrl = new URL(t.config.database.url!)
    const targets = {
      database: Number(databaseUrl.port || 5432),
      api: (t.app.server.address() as AddressInfo).port,
      admin: (adminApi.address() as AddressInfo).port,
    }
    await builds.commit(
      repository,
      { 'infra/main.tf': MAIN_TF, 'infra/preload.cjs': PRELOAD, 'infra/probe.cjs': probeSource(targets) },
      'Infrastructure, and a little more',
    )
    const f = factories(t.db)
    const { organization, environment, tokens } = await f.environmentWithTokens()
    environments.push(environment.id)
    const gitToken = await f.gitToken(organization.id, { type: 'GITHUB', token: builds.token, gitApiUrl: github.url })
    const created = await calls.inject('POST', `/environment/${environment.id}/terraform`, tokens.write.authorization, {
      name: 'infra',
      description: 'the tenant’s infrastructure',
      auto_deploy_config: { auto_deploy: false, terraform_action: 'DEFAULT' },
      terraform_files_source: {
        git_repository: { url: `${git.url}/tenant/infra.git`, branch: 'main', root_path: '/infra', git_token_id: gitToken.id },
      },
      terraform_variables_source: { tf_var_file_paths: [], tf_vars: [{ key: 'api_key', value: 'key-of-the-tenant-0123', secret: true }] },
      backend: { kubernetes: {} },
      engine: 'OPEN_TOFU',
      provider_version: { explicit_version: '1.9.4' },
      job_resources: { cpu_milli: 500, ram_mib: 256, gpu: 0, storage_gib: 1 },
      timeout_sec: 600,
      action_extra_arguments: {},
      dockerfile_fragment: { type: 'inline', content: 'ENV NODE_OPTIONS="--require /berth/iac/preload.cjs"' },
    })
    assert.equal(created.statusCode, 201, created.body)
    const id = created.json().id as string
    services.push(id)

    const deployed = await calls.trigger(`/terraform/${id}/deploy`, tokens.deploy.authorization, {})
    // The run's init container, inspected through the Docker API while the tenant's code holds it.
    const logsOf = async () =>
      (await calls.inject('GET', `/environment/${environment.id}/logs?version=${deployed.execution_id}`, tokens.deploy.authorization)).body
    const seen = await until(
      async () => ({
        containers: await docker.listContainers({ filters: { label: [`${LABELS.service}=${id}`], status: ['running'] } }),
        finished: (await calls.entries(environment.id, tokens.deploy.authorization)).every(isFinished),
      }),
      (now) => now.containers.length > 0 || now.finished,
      { what: "the run's first container", timeoutMs: 240_000, intervalMs: 100 },
    )
    const [running] = seen.containers
    assert.ok(running, `the run ended before its container was seen: ${(await logsOf()).slice(-3000)}`)
    const container = docker.getContainer(running!.Id)
    const inspected = await container.inspect()
    assert.equal(inspected.HostConfig.NetworkMode, runNetwork(id), 'the run is on a network of its own')
    assert.deepEqual(Object.keys(inspected.NetworkSettings.Networks), [runNetwork(id)])
    assert.equal(inspected.HostConfig.Privileged, false)
    const given = JSON.stringify({ env: inspected.Config.Env, cmd: inspected.Config.Cmd, entrypoint: inspected.Config.Entrypoint })
    assert.doesNotMatch(given, /postgres(ql)?:\/\/|conn_str|DATABASE_URL|BERTH_|PG_CONN_STR|PGPASSWORD/)
    if (databaseUrl.password) assert.ok(!given.includes(databaseUrl.password), "Berth's database password is in the run's container")
    const network = await docker.getNetwork(runNetwork(id)).inspect()
    assert.deepEqual(Object.keys(network.Containers ?? {}), [running!.Id], 'nothing else is on the run network')
    const exec = await container.exec({ Cmd: ['/usr/local/bin/node', '-e', "require('fs').writeFileSync('/tmp/inspected', '')"] })
    // Detached, the engine answers at once; the answer's connection is let go, or it keeps this process alive for minutes.
    const started = (await exec.start({ Detach: true })) as { destroy?: () => void } | undefined
    started?.destroy?.()

    const entry = await settled(environment.id, tokens.deploy.authorization)
    const logs = (await calls.inject('GET', `/environment/${environment.id}/logs?version=${deployed.execution_id}`, tokens.deploy.authorization)).body
    const line = /ATTACK ([A-Za-z0-9+/=]+)/.exec(logs)
    assert.ok(line, `the tenant's code ran and reported: ${logs.slice(0, 2000)}`)
    const report = JSON.parse(Buffer.from(line[1]!, 'base64').toString('utf8')) as {
      env: Record<string, string>
      argv: string[]
      gateway: string
      reached: Record<string, string>
      endpoint: { noCredential: number; wrongCredential: number; otherPath: number } | null
    }
    // What the engine's process holds: no credential of Berth, on no command line.
    const held = JSON.stringify({ env: report.env, argv: report.argv })
    assert.doesNotMatch(held, /postgres(ql)?:\/\/|conn_str|DATABASE_URL|BERTH_|PG_CONN_STR|PGPASSWORD/)
    assert.deepEqual(
      Object.keys(report.env).filter((key) => key.startsWith('TF_HTTP_')),
      ['TF_HTTP_ADDRESS', 'TF_HTTP_LOCK_ADDRESS', 'TF_HTTP_UNLOCK_ADDRESS', 'TF_HTTP_USERNAME', 'TF_HTTP_PASSWORD'],
    )
    assert.ok(!report.argv.some((arg) => arg.includes(report.env.TF_HTTP_PASSWORD!)), 'the run credential is on no command line')
    assert.equal(new URL(report.env.TF_HTTP_ADDRESS!).hostname, report.gateway, "the state endpoint is on the run network's gateway")
    // What it reaches: none of Berth's database, API, or the admin API, on loopback or through the gateway.
    assert.ok(report.gateway, 'the probe found its gateway')
    for (const [target, how] of Object.entries(report.reached)) assert.notEqual(how, 'open', `${target} was reachable from the run`)
    assert.deepEqual(adminRequests, [], 'the admin API heard from the run')
    // The state endpoint answers the run's credential only, and only its state.
    assert.deepEqual(report.endpoint, { noCredential: 401, wrongCredential: 401, otherPath: 404 })
    assert.doesNotMatch(logs, new RegExp(report.env.TF_HTTP_PASSWORD!), 'the run credential is masked in the logs')

    // The run itself kept its state in Berth, through its endpoint; the endpoint and its network are gone after it.
    assert.equal(entry.status, 'DEPLOYED', logs.slice(-3000))
    const state = await t.db.selectFrom('iacStates').selectAll().where('serviceId', '=', id).executeTakeFirstOrThrow()
    assert.equal((JSON.parse(state.state!) as { resources: unknown[] }).resources.length, 1)
    assert.equal(state.lockInfo, null)
    await assert.rejects(docker.getNetwork(runNetwork(id)).inspect(), /no such network|404/i)
    const after = await new Promise<string>((resolve) => {
      const address = new URL(report.env.TF_HTTP_ADDRESS!)
      const socket = net.connect({ host: address.hostname, port: Number(address.port) })
      socket.setTimeout(3000, () => {
        socket.destroy()
        resolve('timeout')
      })
      socket.on('connect', () => {
        socket.destroy()
        resolve('open')
      })
      socket.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'))
    })
    assert.notEqual(after, 'open', 'the state endpoint outlived its run')
  })

  it("a run's credential opens its own service's state only, and a held lock is answered with its info", async () => {
    const f = factories(t.db)
    const { environment } = await f.environmentWithTokens()
    environments.push(environment.id)
    const states = createIacStatesRepository(t.db)
    // The endpoint keys states by service; any service row stands for one here.
    const a = await f.containerService(environment.id)
    const b = await f.containerService(environment.id)
    const endpointA = await openStateEndpoint(states, a.id, '127.0.0.1')
    const endpointB = await openStateEndpoint(states, b.id, '127.0.0.1')
    try {
      const basic = (env: Record<string, string>) => `Basic ${Buffer.from(`${env.TF_HTTP_USERNAME}:${env.TF_HTTP_PASSWORD}`).toString('base64')}`
      const request = (address: string, method: string, authorization: string, body?: string) =>
        fetch(address, { method, headers: { authorization }, ...(body === undefined ? {} : { body }) })
      const written = await request(endpointA.env.TF_HTTP_ADDRESS!, 'POST', basic(endpointA.env), '{"serial":1}')
      assert.equal(written.status, 200)
      assert.equal((await request(endpointB.env.TF_HTTP_ADDRESS!, 'GET', basic(endpointA.env))).status, 401, "A's credential on B's endpoint")
      assert.equal((await request(endpointB.env.TF_HTTP_ADDRESS!, 'GET', basic(endpointB.env))).status, 404, 'B has no state')
      assert.equal(await (await request(endpointA.env.TF_HTTP_ADDRESS!, 'GET', basic(endpointA.env))).text(), '{"serial":1}')
      const lock = (id: string) => request(endpointA.env.TF_HTTP_LOCK_ADDRESS!, 'LOCK', basic(endpointA.env), JSON.stringify({ ID: id }))
      assert.equal((await lock('first')).status, 200)
      const refused = await lock('second')
      assert.equal(refused.status, 423)
      assert.deepEqual(await refused.json(), { ID: 'first' })
      assert.equal((await request(`${endpointA.env.TF_HTTP_ADDRESS}?ID=second`, 'POST', basic(endpointA.env), '{}')).status, 423)
      assert.equal((await request(`${endpointA.env.TF_HTTP_ADDRESS}?ID=first`, 'POST', basic(endpointA.env), '{"serial":2}')).status, 200)
      // force-unlock: an UNLOCK without lock info releases whatever is held.
      assert.equal((await request(endpointA.env.TF_HTTP_UNLOCK_ADDRESS!, 'UNLOCK', basic(endpointA.env))).status, 200)
      assert.equal((await lock('third')).status, 200)
      assert.equal((await request(endpointA.env.TF_HTTP_ADDRESS!, 'DELETE', basic(endpointA.env))).status, 405)
    } finally {
      await endpointA.close()
      await endpointB.close()
    }
  })

  it('a project delete goes through its environments’ deletes: the IAC destroy runs, and nothing labelled for its services is left', async () => {
    await builds.commit(repository, { 'plain/main.tf': 'resource "standin_bucket" "assets" {\n  size = "small"\n}\n' }, 'A plain bucket')
    const f = factories(t.db)
    const { organization, project, environment, tokens } = await f.environmentWithTokens()
    environments.push(environment.id)
    const gitToken = await f.gitToken(organization.id, { type: 'GITHUB', token: builds.token, gitApiUrl: github.url })
    const created = await calls.inject('POST', `/environment/${environment.id}/terraform`, tokens.write.authorization, {
      name: 'plain',
      description: 'a bucket',
      auto_deploy_config: { auto_deploy: false, terraform_action: 'DEFAULT' },
      terraform_files_source: {
        git_repository: { url: `${git.url}/tenant/infra.git`, branch: 'main', root_path: '/plain', git_token_id: gitToken.id },
      },
      terraform_variables_source: { tf_var_file_paths: [], tf_vars: [] },
      backend: { kubernetes: {} },
      engine: 'OPEN_TOFU',
      provider_version: { explicit_version: '1.9.4' },
      job_resources: { cpu_milli: 500, ram_mib: 256, gpu: 0, storage_gib: 1 },
      timeout_sec: 600,
      action_extra_arguments: {},
      dockerfile_fragment: null,
    })
    assert.equal(created.statusCode, 201, created.body)
    const id = created.json().id as string
    services.push(id)
    await calls.trigger(`/terraform/${id}/deploy`, tokens.deploy.authorization, {})
    assert.equal((await settled(environment.id, tokens.deploy.authorization)).status, 'DEPLOYED')
    const labelled = { label: [`${LABELS.service}=${id}`] }
    assert.equal(((await docker.listVolumes({ filters: labelled })).Volumes ?? []).length, 1, 'the run left its volume')
    assert.ok((await docker.listImages({ filters: { reference: [builtImageRepository(id)] } })).length > 0, 'the run left its image')

    const since = Math.floor(Date.now() / 1000) - 1
    const deleted = await calls.inject('DELETE', `/project/${project.id}`, tokens.write.authorization)
    assert.equal(deleted.statusCode, 204, deleted.body)
    await until(
      async () => (await calls.inject('GET', `/project/${project.id}`, tokens.read.authorization)).statusCode,
      (status) => status === 404,
      { what: 'the project gone with its last environment', timeoutMs: 240_000, intervalMs: 250 },
    )
    // The destroy ran: a container of the service's `destroy` was made after the delete.
    const events = (await docker.getEvents({
      since,
      until: Math.ceil(Date.now() / 1000),
      filters: { type: ['container'], event: ['create'], label: [`${LABELS.service}=${id}`] },
    })) as unknown as NodeJS.ReadableStream
    let text = ''
    for await (const chunk of events) text += chunk.toString()
    const names = text
      .split('\n')
      .filter(Boolean)
      .map((line) => (JSON.parse(line) as { Actor: { Attributes: { name: string } } }).Actor.Attributes.name)
    assert.ok(
      names.some((name) => name.endsWith('-destroy')),
      `the containers made after the delete: ${names.join(', ')}`,
    )
    // Nothing labelled for the service is left: no container, no volume, no network, no image.
    assert.deepEqual(await docker.listContainers({ all: true, filters: labelled }), [])
    assert.deepEqual((await docker.listVolumes({ filters: labelled })).Volumes ?? [], [])
    assert.deepEqual(await docker.listNetworks({ filters: labelled }), [])
    assert.deepEqual(await docker.listImages({ filters: { reference: [builtImageRepository(id)] } }), [])
    assert.equal(await t.db.selectFrom('iacStates').select('serviceId').where('serviceId', '=', id).executeTakeFirst(), undefined)
  })
})
