import assert from 'node:assert/strict'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import https from 'node:https'
import { createServer } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import type { FastifyInstance } from 'fastify'
import type { TestApp } from './helpers/app.ts'
import { baseEnv, processScenario } from './helpers/berth-processes.ts'
import { deploymentCalls, isFinished, until } from './helpers/deployments.ts'
import { buildScriptImage, type LoopbackRegistry, removeEnvironments, startRegistry } from './helpers/docker.ts'
import { readinessProbe, registryWorld, webContainerRequest } from './helpers/docker-world.ts'
import { freePort } from './helpers/pebble.ts'
import { type RunningServer, startServer } from './helpers/process.ts'

// Issue 42, "two Berths on one machine": a second Berth with the first's front door ports stopped
// the first's Caddy, the first then adopted the second's, and its front door stayed down once the
// second stopped. Here two real `berth serve` (each its own database, data dir and ports, their
// front doors on loopback with Caddy's local CA) keep serving their own routes through each
// other's starts and stops; one given the other's ports refuses to start, naming the settings.

const script = (text: string) => `#!/bin/sh
mkdir -p /tmp/www
echo "${text}" > /tmp/www/index.html
trap 'exit 0' TERM
httpd -f -p 8080 -h /tmp/www &
wait
`

/** One GET of `url` on loopback (names sent to 127.0.0.1), trusting the Berth's local CA root in `dataDir` (README, step 5). */
async function get(url: string, dataDir: string): Promise<{ status?: number; body?: string; error?: string }> {
  const ca = await readFile(path.join(dataDir, 'front-door/data/pki/authorities/local/root.crt'), 'utf8').catch(() => undefined)
  if (ca === undefined) return { error: 'no local CA root yet' }
  const target = new URL(url)
  return new Promise((resolve) => {
    const request = https.get(
      {
        host: target.hostname,
        port: Number(target.port),
        path: '/',
        servername: target.hostname,
        ca,
        agent: false,
        timeout: 5_000,
        lookup: (_host, options, callback) =>
          (options as { all?: boolean }).all
            ? (callback as (error: null, addresses: { address: string; family: number }[]) => void)(null, [{ address: '127.0.0.1', family: 4 }])
            : (callback as (error: null, address: string, family: number) => void)(null, '127.0.0.1', 4),
      },
      (res) => {
        let body = ''
        res.setEncoding('utf8')
        res.on('data', (chunk: string) => (body += chunk))
        res.on('end', () => resolve({ status: res.statusCode, body: body.trim() }))
        res.on('error', (error) => resolve({ error: error.message }))
      },
    )
    request.on('timeout', () => request.destroy(new Error('timed out')))
    request.on('error', (error) => resolve({ error: error.message }))
  })
}

/** deploymentCalls over HTTP to a child `berth serve`. */
function httpApp(server: () => RunningServer): FastifyInstance {
  return {
    async inject(request: { method: string; url: string; headers: Record<string, string>; payload?: object }) {
      const res = await fetch(`${server().baseUrl}${request.url}`, {
        method: request.method,
        headers: { ...request.headers, ...(request.payload ? { 'content-type': 'application/json' } : {}) },
        ...(request.payload ? { body: JSON.stringify(request.payload) } : {}),
      })
      const body = await res.text()
      return { statusCode: res.status, body, json: () => JSON.parse(body) }
    },
  } as unknown as FastifyInstance
}

/** Whether a process runs (a zombie no reaper collected does not). */
async function alive(pid: number): Promise<boolean> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '')
  return stat !== '' && stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z'
}

/** A serve's start on a machine the whole suite keeps busy: five of them here, each given two minutes. */
const START = { timeoutMs: 120_000 }

/** The pids serve said its Caddy ran with, in order. */
const caddyPids = (server: RunningServer) =>
  server
    .stdout()
    .split('\n')
    .flatMap((line) => {
      try {
        const parsed = JSON.parse(line) as { component?: string; pid?: number; msg?: string }
        return parsed.component === 'caddy' && parsed.msg === 'the front door (caddy) runs' ? [parsed.pid!] : []
      } catch {
        return []
      }
    })

describe('two Berths on one machine', () => {
  const first = processScenario()
  const second = processScenario()
  let registry: LoopbackRegistry
  const environments: string[] = []
  const dataDirs: string[] = []

  /** A Berth's settings: its own data dir and front door ports, on loopback. */
  async function berth(scenario: typeof first) {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'berth-two-'))
    dataDirs.push(dataDir)
    const ports = { admin: await freePort(), http: await freePort(), https: await freePort() }
    const env = (overrides: Record<string, string> = {}) =>
      baseEnv(scenario.database, {
        BERTH_EXECUTOR: 'docker',
        BERTH_DOCKER_PUBLISH_HOST: '127.0.0.1',
        BERTH_GIT_ALLOW_PRIVATE_URLS: 'true',
        BERTH_RUNNER_LEASE_MS: '30000',
        BERTH_DATA_DIR: dataDir,
        BERTH_PROXY_ADMIN_PORT: String(ports.admin),
        BERTH_PROXY_HTTP_PORT: String(ports.http),
        BERTH_PROXY_HTTPS_PORT: String(ports.https),
        BERTH_PROXY_LISTEN_HOST: '127.0.0.1',
        BERTH_LOG_LEVEL: 'info',
        ...overrides,
      })
    return { scenario, dataDir, ports, env }
  }

  /** A container of `text` deployed on the Berth at `server`, and its front door address. */
  async function deployed(b: Awaited<ReturnType<typeof berth>>, server: () => RunningServer, tag: string) {
    const calls = deploymentCalls(httpApp(server))
    const w = await registryWorld({ db: b.scenario.db } as TestApp, calls, registry, environments)
    const created = await calls.inject(
      'POST',
      `/environment/${w.environment.id}/container`,
      w.tokens.write.authorization,
      webContainerRequest(w.registryId, { imageName: 'two-berths', tag }, readinessProbe('http', 30)),
    )
    assert.equal(created.statusCode, 201, created.body)
    const id = created.json().id as string
    await calls.trigger(`/container/${id}/deploy`, w.tokens.deploy.authorization)
    const [last] = await until(
      () => calls.entries(w.environment.id, w.tokens.read.authorization),
      (list) => list.length > 0 && list.every(isFinished),
      { timeoutMs: 120_000, intervalMs: 200, what: 'the deployment finished' },
    )
    assert.equal(last!.status, 'DEPLOYED', JSON.stringify(last))
    return `https://z${id.replaceAll('-', '').slice(0, 8)}.localhost:${b.ports.https}/`
  }

  const serves = async (url: string, dataDir: string, text: string, what: string) =>
    assert.equal(
      (
        await until(
          () => get(url, dataDir),
          (answer) => answer.status === 200,
          { timeoutMs: 30_000, intervalMs: 250, what },
        )
      ).body,
      text,
    )

  before(async () => {
    registry = await startRegistry()
    for (const [tag, text] of [
      ['1', 'berth one'],
      ['2', 'berth two'],
    ] as const) {
      await buildScriptImage(`berth-test/two-berths:${tag}`, 'serve.sh', script(text))
      await registry.push(`berth-test/two-berths:${tag}`, 'two-berths', tag)
    }
  })

  after(async () => {
    await removeEnvironments(environments).catch(() => undefined)
    await first.group.stopAll()
    await second.group.stopAll()
    await registry?.close()
    for (const dir of dataDirs) await rm(dir, { recursive: true, force: true })
  })

  it("keeps each Berth serving its own routes through the other's starts and stops, and refuses a Berth the other's ports", async () => {
    const a = await berth(first)
    const b = await berth(second)
    let serverA = await first.group.add(startServer(a.env(), START))
    const urlA = await deployed(a, () => serverA, '1')
    await serves(urlA, a.dataDir, 'berth one', "A's route")
    const [caddyA] = caddyPids(serverA)

    // B with A's ports (its own data dir and database): refused, naming the settings; A's Caddy untouched.
    const sameAdmin = b.env({
      BERTH_PROXY_ADMIN_PORT: String(a.ports.admin),
      BERTH_PROXY_HTTP_PORT: String(a.ports.http),
      BERTH_PROXY_HTTPS_PORT: String(a.ports.https),
    })
    await assert.rejects(startServer(sameAdmin, START), /BERTH_PROXY_ADMIN_PORT.*BERTH_PROXY_HTTP_PORT.*BERTH_PROXY_HTTPS_PORT/s)
    await assert.rejects(startServer(b.env({ BERTH_PROXY_HTTPS_PORT: String(a.ports.https) }), START), /port \d+ \(BERTH_PROXY_HTTPS_PORT\) is taken/)
    assert.deepEqual(caddyPids(serverA), [caddyA], "A's Caddy was neither stopped nor replaced")
    await serves(urlA, a.dataDir, 'berth one', "A's route beside B's refused starts")

    // B on its own ports: both serve their own routes.
    let serverB = await second.group.add(startServer(b.env(), START))
    const urlB = await deployed(b, () => serverB, '2')
    await serves(urlB, b.dataDir, 'berth two', "B's route")
    await serves(urlA, a.dataDir, 'berth one', "A's route beside B")

    // B stops: A serves; B starts again: both serve.
    await serverB.stop('SIGTERM')
    await serves(urlA, a.dataDir, 'berth one', "A's route after B stopped")
    serverB = await second.group.add(startServer(b.env(), START))
    await serves(urlB, b.dataDir, 'berth two', "B's route after its restart")
    await serves(urlA, a.dataDir, 'berth one', "A's route after B's restart")

    // A killed outright leaves its Caddy: the next A stops that one (its own, by its pid file) and serves again; B is untouched.
    const [caddyB] = caddyPids(serverB)
    await serverA.stop('SIGKILL')
    serverA = await first.group.add(startServer(a.env(), START))
    await serves(urlA, a.dataDir, 'berth one', "A's route after A was killed and started again")
    assert.notEqual(caddyPids(serverA)[0], caddyA, 'a new Caddy serves A')
    assert.equal(await alive(caddyA!), false, 'the Caddy the killed A left was stopped')
    assert.deepEqual(caddyPids(serverB), [caddyB], "B's Caddy was neither stopped nor replaced")
    await serves(urlB, b.dataDir, 'berth two', "B's route after A's restart")

    // A's Caddy dies and another program takes its HTTPS port for a while: A does not start a Caddy
    // beside it (Caddy would share the port), and serves again within 30 s of the port's release.
    const [current] = caddyPids(serverA)
    process.kill(current!, 'SIGKILL')
    const squatter = createServer((socket) => socket.destroy())
    // The killed Caddy's socket closes within moments; serve starts another after 500 ms.
    for (let attempt = 0; ; attempt++) {
      const bound = await new Promise<boolean>((resolve) => {
        squatter.once('error', () => resolve(false))
        squatter.listen(a.ports.https, '127.0.0.1', () => resolve(true))
      })
      if (bound) break
      assert.ok(attempt < 20, "the killed Caddy's port never came free")
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
    await until(
      () => serverA.stdout().split('\n'),
      (lines) =>
        lines.some((line) => line.includes('the front door (caddy) did not start again') && line.includes('(BERTH_PROXY_HTTPS_PORT) is taken')),
      { timeoutMs: 30_000, intervalMs: 250, what: 'a restart refused while the port is taken' },
    )
    assert.equal(caddyPids(serverA).length, 1, 'no Caddy started beside the program holding the port')
    await new Promise((resolve) => squatter.close(resolve))
    await serves(urlA, a.dataDir, 'berth one', "A's route once the port is free again")
    await serves(urlB, b.dataDir, 'berth two', "B's route through all of A's")
  })
})
