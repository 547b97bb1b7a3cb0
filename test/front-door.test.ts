import assert from 'node:assert/strict'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import http from 'node:http'
import https from 'node:https'
import os from 'node:os'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import type { FastifyInstance } from 'fastify'
import type { TestApp } from './helpers/app.ts'
import { baseEnv, processScenario } from './helpers/berth-processes.ts'
import { deploymentCalls, isFinished, until } from './helpers/deployments.ts'
import { type DnsServer, startDnsServer } from './helpers/dns-server.ts'
import { buildScriptImage, type LoopbackRegistry, removeEnvironments, startRegistry } from './helpers/docker.ts'
import { readinessProbe, registryWorld, webContainerRequest } from './helpers/docker-world.ts'
import { freePort, type Pebble, startPebble } from './helpers/pebble.ts'
import { type RunningServer, startServer } from './helpers/process.ts'

// Issue 34, the front door end to end: a real `berth serve` runs Caddy in front of what it deploys
// into the real Docker engine, with certificates from Debian's pebble on loopback. Host names under
// the apps domain are sent to 127.0.0.1 by the client itself (a `lookup`), with the name as SNI.

const APPS_DOMAIN = 'apps.rt-berth.net'
const OWN_HOST = 'berth.rt-berth.net'
const CUSTOM_DOMAIN = 'shop.berth-front-door.dev'

const versionScript = (version: string) => `#!/bin/sh
mkdir -p /tmp/www
echo "${version}" > /tmp/www/index.html
hostname > /tmp/www/instance.html
trap 'exit 0' TERM
httpd -f -p 8080 -h /tmp/www &
wait
`

interface Answer {
  status?: number
  body?: string
  issuer?: string
  names?: string
  error?: string
}

/** One GET of `url` through the front door on loopback, trusting `ca`, on a new connection. */
function get(url: string, ca: string): Promise<Answer> {
  const target = new URL(url)
  return new Promise((resolve) => {
    const request = https.get(
      {
        host: target.hostname,
        port: Number(target.port || 443),
        path: target.pathname,
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
        const certificate = (res.socket as import('node:tls').TLSSocket).getPeerCertificate()
        let body = ''
        res.setEncoding('utf8')
        res.on('data', (chunk: string) => (body += chunk))
        res.on('end', () =>
          resolve({ status: res.statusCode, body: body.trim(), issuer: String(certificate.issuer?.CN ?? ''), names: certificate.subjectaltname }),
        )
        res.on('error', (error) => resolve({ error: error.message }))
      },
    )
    request.on('timeout', () => request.destroy(new Error('timed out')))
    request.on('error', (error) => resolve({ error: error.message }))
  })
}

/**
 * A GET asked once more when its connection was reset before any answer. Caddy resets a
 * connection it holds when a configuration load replaces its server (a known Caddy behaviour,
 * docs/front-door.md, "Reloads"); a client sees no HTTP answer and asks again, as browsers do for
 * a GET. The resets are noted in `resets`, and the second answer is what counts.
 */
async function getAskingAgainAfterReset(url: string, ca: string, resets: string[]): Promise<Answer> {
  const answer = await get(url, ca)
  if (answer.error === undefined || !/ECONNRESET|socket hang up/.test(answer.error)) return answer
  resets.push(answer.error)
  return get(url, ca)
}

/** deploymentCalls over HTTP to a child `berth serve`, as app.inject would answer. */
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

/**
 * What Caddy said about certificates and errors, and what serve said about the front door (and its
 * warnings, errors, and why it stopped: a run once lost its serve mid-test to a signal): added to a
 * failure's message, since CI keeps nothing of the data dir (issue 42: a custom domain that never got
 * its certificate on CI and nowhere else).
 */
async function frontDoorDiagnosis(dataDir: string, serveOutput: string): Promise<string> {
  const caddyLog = await readFile(path.join(dataDir, 'front-door', 'caddy.log'), 'utf8').catch((error: Error) => `(no caddy.log: ${error.message})`)
  const pick = (text: string, pattern: RegExp) =>
    text
      .split('\n')
      .filter((line) => pattern.test(line) && !/stapling OCSP/.test(line))
      .slice(-40)
      .map((line) => line.slice(0, 400))
      .join('\n')
  return [
    '\n--- caddy.log (certificates, errors) ---',
    pick(caddyLog, /tls\.|acme|"level":"(error|warn)"|obtain|certificate/i),
    '--- berth serve (front door, caddy, warnings and errors, its stop) ---',
    pick(serveOutput, /front-door|"caddy"|front door|shutting down|stopped|"level":(40|50|60)/),
  ].join('\n')
}

describe('the front door', () => {
  const scenario = processScenario()
  let pebble: Pebble
  let registry: LoopbackRegistry
  let dns: DnsServer
  let dataDir: string
  let server: RunningServer
  let env: Record<string, string>
  let root: string
  let httpsPort: number
  let httpPort: number
  const environments: string[] = []

  before(async () => {
    pebble = await startPebble()
    registry = await startRegistry()
    dns = await startDnsServer()
    await buildScriptImage('berth-test/front-door:v1', 'serve.sh', versionScript('version one'))
    await registry.push('berth-test/front-door:v1', 'front-door', '1')
    await buildScriptImage('berth-test/front-door:v2', 'serve.sh', versionScript('version two'))
    await registry.push('berth-test/front-door:v2', 'front-door', '2')
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'berth-front-door-'))
    httpsPort = await freePort()
    httpPort = await freePort()
    env = {
      BERTH_EXECUTOR: 'docker',
      BERTH_DOCKER_PUBLISH_HOST: '127.0.0.1',
      BERTH_GIT_ALLOW_PRIVATE_URLS: 'true',
      BERTH_RUNNER_LEASE_MS: '30000',
      BERTH_DATA_DIR: dataDir,
      BERTH_PROXY_ADMIN_PORT: String(await freePort()),
      BERTH_PROXY_HTTP_PORT: String(httpPort),
      BERTH_PROXY_HTTPS_PORT: String(httpsPort),
      BERTH_APPS_DOMAIN: APPS_DOMAIN,
      BERTH_ACME_DIRECTORY: pebble.directory,
      BERTH_ACME_CA_ROOT: pebble.caRootFile,
      BERTH_ACME_EMAIL: 'ops@example.com',
      BERTH_DOMAIN_CHECK_DNS_SERVERS: dns.address,
      BERTH_OWN_HOST_NAMES: OWN_HOST,
      BERTH_LOG_LEVEL: 'info',
    }
    server = await scenario.group.add(startServer(baseEnv(scenario.database, env)))
    root = await pebble.issuingRoot()
  })

  after(async () => {
    await removeEnvironments(environments).catch(() => undefined)
    await scenario.group.stopAll()
    await pebble?.close()
    await registry?.close()
    await dns?.close()
    if (dataDir) await rm(dataDir, { recursive: true, force: true })
  })

  /** The test's body, its failure explained by what Caddy and serve logged. */
  const explained = (body: () => Promise<void>) => async () => {
    try {
      await body()
    } catch (error) {
      if (error instanceof Error) error.message += await frontDoorDiagnosis(dataDir, server?.stdout() ?? '')
      throw error
    }
  }

  it(
    'serves a container at its stable HTTPS name, with a certificate from ACME, through a redeploy, a stop and start, a restart of Berth, a custom domain and the deletion',
    explained(async () => {
      const calls = deploymentCalls(httpApp(() => server))
      const w = await registryWorld({ db: scenario.db } as TestApp, calls, registry, environments)
      const read = w.tokens.read.authorization
      const body = (tag: string) => webContainerRequest(w.registryId, { imageName: 'front-door', tag }, readinessProbe('http', 30))
      const created = await calls.inject('POST', `/environment/${w.environment.id}/container`, w.tokens.write.authorization, body('1'))
      assert.equal(created.statusCode, 201, created.body)
      const containerId = created.json().id as string
      const links = async () =>
        (await calls.inject('GET', `/container/${containerId}/link`, read)).json().results as {
          url: string
          is_default: boolean
          is_qovery_domain: boolean
        }[]
      const deployed = async (state: string) => {
        const [last] = await until(
          () => calls.entries(w.environment.id, read),
          (list) => list.every(isFinished),
          { timeoutMs: 120_000, intervalMs: 200, what: 'every deployment finished' },
        )
        assert.equal(last!.status, state, JSON.stringify(last))
      }

      // Nothing runs yet: no link is answered.
      assert.deepEqual(
        (await links()).filter((link) => link.url.startsWith('https://')),
        [],
      )
      await calls.trigger(`/container/${containerId}/deploy`, w.tokens.deploy.authorization)
      await deployed('DEPLOYED')
      const address = (await links()).find((link) => link.is_default)?.url
      assert.equal(address, `https://z${containerId.replaceAll('-', '').slice(0, 8)}.${APPS_DOMAIN}:${httpsPort}`)
      const first = await until(
        () => get(address!, root),
        (answer) => answer.status === 200,
        { timeoutMs: 60_000, intervalMs: 250, what: 'the first answer at the stable address' },
      )
      assert.equal(first.body, 'version one')
      assert.match(first.issuer ?? '', /Pebble/i, 'the certificate comes from the ACME server')
      assert.match(first.names ?? '', new RegExp(`DNS:${new URL(address!).hostname}`))

      // Plain HTTP redirects to the HTTPS port.
      const redirect = await new Promise<{ status?: number; location?: string }>((resolve, reject) => {
        http
          .get({ host: '127.0.0.1', port: httpPort, path: '/x', headers: { host: new URL(address!).hostname } }, (res) => {
            res.resume()
            resolve({ status: res.statusCode, location: res.headers.location })
          })
          .on('error', reject)
      })
      assert.equal(redirect.status, 308)
      assert.equal(redirect.location, `${address}/x`)

      // A redeploy of a new tag while a client asks every 50 ms: never an error, the old version then the new.
      const seen: Answer[] = []
      const resets: string[] = []
      let polling = true
      const poller = (async () => {
        while (polling) {
          seen.push(await getAskingAgainAfterReset(address!, root, resets))
          await new Promise((resolve) => setTimeout(resolve, 50))
        }
      })()
      const edited = await calls.inject('PUT', `/container/${containerId}`, w.tokens.write.authorization, body('2'))
      assert.equal(edited.statusCode, 200, edited.body)
      await calls.trigger(`/container/${containerId}/deploy`, w.tokens.deploy.authorization)
      await deployed('DEPLOYED')
      await until(
        async () => seen.at(-1),
        (answer) => answer?.body === 'version two',
        { timeoutMs: 30_000, intervalMs: 250, what: 'the new version answering' },
      )
      await new Promise((resolve) => setTimeout(resolve, 3_000))
      polling = false
      await poller
      const failed = seen.filter((answer) => answer.status !== 200)
      assert.deepEqual(
        failed,
        [],
        `${failed.length} of ${seen.length} requests failed during the redeploy (${resets.length} connections reset and asked again)`,
      )
      assert.ok(resets.length <= 2, `${resets.length} connections were reset during the redeploy`)
      const bodies = seen.map((answer) => answer.body)
      const firstNew = bodies.indexOf('version two')
      assert.ok(firstNew > 0, 'the old version answered first')
      assert.ok(bodies.slice(0, firstNew).every((text) => text === 'version one'))
      assert.ok(
        bodies.slice(firstNew).every((text) => text === 'version two'),
        `after the switch, only the new version: ${bodies.slice(firstNew).join(',')}`,
      )

      // Stopped: the name answers 503 and no link is listed; started again: the same address.
      await calls.trigger(`/container/${containerId}/stop`, w.tokens.deploy.authorization)
      await deployed('STOPPED')
      assert.equal((await get(address!, root)).status, 503)
      assert.deepEqual(
        (await links()).filter((link) => link.url.startsWith('https://')),
        [],
      )
      await calls.trigger(`/container/${containerId}/deploy`, w.tokens.deploy.authorization)
      await deployed('DEPLOYED')
      assert.equal((await links()).find((link) => link.is_default)?.url, address)
      assert.equal(
        (
          await until(
            () => get(address!, root),
            (answer) => answer.status === 200,
            { timeoutMs: 30_000, intervalMs: 250, what: 'the started service' },
          )
        ).body,
        'version two',
      )

      // A restarted Berth serves the same routes.
      await server.stop('SIGTERM')
      server = await scenario.group.add(startServer(baseEnv(scenario.database, env)))
      assert.equal(
        (
          await until(
            () => get(address!, root),
            (answer) => answer.status === 200,
            { timeoutMs: 30_000, intervalMs: 250, what: 'the address after a restart' },
          )
        ).body,
        'version two',
      )

      // A Caddy that dies is started again by serve, with the same routes.
      const caddyPid = () =>
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
      const [pid] = caddyPid()
      assert.ok(pid, 'serve says which Caddy runs')
      process.kill(pid, 'SIGKILL')
      await until(caddyPid, (pids) => pids.length === 2, { timeoutMs: 30_000, intervalMs: 250, what: 'caddy started again' })
      assert.equal(
        (
          await until(
            () => get(address!, root),
            (answer) => answer.status === 200,
            { timeoutMs: 30_000, intervalMs: 250, what: 'served by the new caddy' },
          )
        ).body,
        'version two',
      )

      // A custom domain: not served before its check passes, then with a certificate of its own.
      const domain = await calls.inject('POST', `/container/${containerId}/customDomain`, w.tokens.write.authorization, {
        domain: CUSTOM_DOMAIN,
        generate_certificate: true,
      })
      assert.equal(domain.statusCode, 201, domain.body)
      const customUrl = `https://${CUSTOM_DOMAIN}:${httpsPort}/`
      const checked = await calls.inject('GET', `/container/${containerId}/checkCustomDomain`, read)
      assert.notEqual(checked.json().results[0].status, 'MATCHES_LOAD_BALANCER_HOST')
      assert.notEqual((await get(customUrl, root)).status, 200, 'a domain whose check fails is not served')
      const certificate = async () =>
        (await calls.inject('GET', `/container/${containerId}/customDomain`, read)).json().results[0].certificate as {
          state: string
          issuer: string | null
          expires_at: string | null
        }
      assert.deepEqual(await certificate(), { state: 'NOT_SERVED', issuer: null, expires_at: null })
      dns.zone.set(CUSTOM_DOMAIN, { CNAME: domain.json().validation_domain })
      const passed = await calls.inject('GET', `/container/${containerId}/checkCustomDomain`, read)
      assert.equal(passed.json().results[0].status, 'MATCHES_LOAD_BALANCER_HOST', passed.body)
      const custom = await until(
        () => get(customUrl, root),
        (answer) => answer.status === 200,
        { timeoutMs: 60_000, intervalMs: 250, what: 'the custom domain served' },
      )
      assert.equal(custom.body, 'version two')
      assert.match(custom.issuer ?? '', /Pebble/i)
      assert.match(custom.names ?? '', new RegExp(`DNS:${CUSTOM_DOMAIN}`))
      assert.ok((await links()).some((link) => link.url === `https://${CUSTOM_DOMAIN}:${httpsPort}` && !link.is_qovery_domain))
      const issued = await certificate()
      assert.equal(issued.state, 'ISSUED')
      assert.match(issued.issuer ?? '', /Pebble/i)
      assert.ok(Date.parse(issued.expires_at ?? '') > Date.now())

      // Deleted: the route is gone.
      const deleted = await calls.inject('DELETE', `/container/${containerId}`, w.tokens.write.authorization)
      assert.ok([202, 204].includes(deleted.statusCode), deleted.body)
      await until(
        () => get(address!, root),
        (answer) => answer.status !== 200 && answer.status !== 503,
        { timeoutMs: 60_000, intervalMs: 250, what: 'the route removed' },
      )
      const gone = await get(customUrl, root)
      assert.ok(gone.status === undefined || gone.status === 404, JSON.stringify(gone))
    }),
  )
  it(
    'balances two instances across the ready ones, and rolls them over without a failed request',
    explained(async () => {
      const calls = deploymentCalls(httpApp(() => server))
      const w = await registryWorld({ db: scenario.db } as TestApp, calls, registry, environments)
      const read = w.tokens.read.authorization
      const body = (tag: string) => ({
        ...webContainerRequest(w.registryId, { imageName: 'front-door', tag }, readinessProbe('http', 30)),
        min_running_instances: 2,
        max_running_instances: 2,
      })
      const created = await calls.inject('POST', `/environment/${w.environment.id}/container`, w.tokens.write.authorization, body('1'))
      assert.equal(created.statusCode, 201, created.body)
      const containerId = created.json().id as string
      const idle = async () => {
        const [last] = await until(
          () => calls.entries(w.environment.id, read),
          (list) => list.every(isFinished),
          {
            timeoutMs: 120_000,
            intervalMs: 200,
            what: 'every deployment finished',
          },
        )
        assert.equal(last!.status, 'DEPLOYED', JSON.stringify(last))
      }
      await calls.trigger(`/container/${containerId}/deploy`, w.tokens.deploy.authorization)
      await idle()
      const address = `https://z${containerId.replaceAll('-', '').slice(0, 8)}.${APPS_DOMAIN}:${httpsPort}`
      await until(
        () => get(`${address}/`, root),
        (answer) => answer.status === 200,
        { timeoutMs: 60_000, intervalMs: 250, what: 'the service served' },
      )
      const instances = new Set<string>()
      for (let i = 0; i < 8; i++) instances.add((await get(`${address}/instance.html`, root)).body ?? '')
      assert.equal(instances.size, 2, `both instances answer: ${[...instances].join(', ')}`)

      const seen: Answer[] = []
      const resets: string[] = []
      let polling = true
      const poller = (async () => {
        while (polling) {
          seen.push(await getAskingAgainAfterReset(`${address}/`, root, resets))
          await new Promise((resolve) => setTimeout(resolve, 50))
        }
      })()
      const edited = await calls.inject('PUT', `/container/${containerId}`, w.tokens.write.authorization, body('2'))
      assert.equal(edited.statusCode, 200, edited.body)
      await calls.trigger(`/container/${containerId}/deploy`, w.tokens.deploy.authorization)
      await idle()
      await new Promise((resolve) => setTimeout(resolve, 2_000))
      polling = false
      await poller
      const failed = seen.filter((answer) => answer.status !== 200)
      assert.deepEqual(
        failed,
        [],
        `${failed.length} of ${seen.length} requests failed during the redeploy (${resets.length} connections reset and asked again)`,
      )
      assert.ok(resets.length <= 2, `${resets.length} connections were reset during the redeploy`)
      assert.equal(seen[0]!.body, 'version one')
      assert.equal(seen.at(-1)!.body, 'version two')
      const after = new Set<string>()
      for (let i = 0; i < 8; i++) {
        const answer = await get(`${address}/instance.html`, root)
        assert.equal(answer.status, 200)
        after.add(answer.body ?? '')
      }
      assert.equal(after.size, 2, 'the two new instances share the traffic')
      assert.ok(
        [...after].every((name) => !instances.has(name)),
        'only new instances answer',
      )
    }),
  )
  it(
    "keeps a custom domain with the service that proved it: another organization's claim is refused and traffic stays; Berth's own names are nobody's; a use_cdn domain is routed only after its TXT proof",
    explained(async () => {
      const calls = deploymentCalls(httpApp(() => server))
      const a = await registryWorld({ db: scenario.db } as TestApp, calls, registry, environments)
      const b = await registryWorld({ db: scenario.db } as TestApp, calls, registry, environments)
      const deploy = async (w: typeof a, tag: string) => {
        const request = webContainerRequest(w.registryId, { imageName: 'front-door', tag }, readinessProbe('http', 30))
        const created = await calls.inject('POST', `/environment/${w.environment.id}/container`, w.tokens.write.authorization, request)
        assert.equal(created.statusCode, 201, created.body)
        await calls.trigger(`/container/${created.json().id}/deploy`, w.tokens.deploy.authorization)
        return created.json().id as string
      }
      const [mine, theirs] = await Promise.all([deploy(a, '1'), deploy(b, '2')])
      for (const w of [a, b]) {
        const [last] = await until(
          () => calls.entries(w.environment.id, w.tokens.read.authorization),
          (list) => list.length > 0 && list.every(isFinished),
          { timeoutMs: 120_000, intervalMs: 200, what: 'the deployment finished' },
        )
        assert.equal(last!.status, 'DEPLOYED', JSON.stringify(last))
      }
      const claim = (w: typeof a, containerId: string, domain: string, useCdn: boolean) =>
        calls.inject('POST', `/container/${containerId}/customDomain`, w.tokens.write.authorization, {
          domain,
          generate_certificate: true,
          use_cdn: useCdn,
        })
      const check = async (w: typeof a, containerId: string) =>
        (await calls.inject('GET', `/container/${containerId}/checkCustomDomain`, w.tokens.read.authorization)).json().results as {
          domain_name: string
          status: string
          error_details: string | null
        }[]

      // A proves its name with its CNAME, and serves it.
      const shop = 'shop.a-corp-front-door.dev'
      const held = await claim(a, mine, shop, false)
      assert.equal(held.statusCode, 201, held.body)
      dns.zone.set(shop, { CNAME: held.json().validation_domain })
      assert.equal((await check(a, mine))[0]!.status, 'MATCHES_LOAD_BALANCER_HOST')
      const shopUrl = `https://${shop}:${httpsPort}/`
      const served = await until(
        () => get(shopUrl, root),
        (answer) => answer.status === 200,
        { timeoutMs: 60_000, intervalMs: 250, what: "A's domain served" },
      )
      assert.equal(served.body, 'version one')

      // B's attack of issue 42: the same name behind a CDN (any public address passed), the name itself, a wildcard over it.
      dns.zone.set('www.a-corp-front-door.dev', { A: ['93.184.216.34'] })
      for (const [domain, useCdn] of [
        [shop, true],
        [shop, false],
        ['*.a-corp-front-door.dev', true],
      ] as const) {
        const refused = await claim(b, theirs, domain, useCdn)
        assert.equal(refused.statusCode, 409, `${domain}: ${refused.body}`)
      }
      // Berth's own names: the apps domain, a name under it, a wildcard over it, its own host name and a wildcard over both.
      for (const domain of [APPS_DOMAIN, `z0000beef.${APPS_DOMAIN}`, `*.${APPS_DOMAIN}`, '*.rt-berth.net', OWN_HOST]) {
        const refused = await claim(b, theirs, domain, true)
        assert.equal(refused.statusCode, 400, `${domain}: ${refused.body}`)
      }
      // Through all of it, A's name serves A.
      const still = await get(shopUrl, root)
      assert.equal(still.status, 200, JSON.stringify(still))
      assert.equal(still.body, 'version one')

      // B's own domain behind a CDN: resolving is not enough; its TXT proof routes it.
      const cdn = 'cdn.b-corp-front-door.dev'
      const added = await claim(b, theirs, cdn, true)
      assert.equal(added.statusCode, 201, added.body)
      dns.zone.set(cdn, { A: ['93.184.216.35'] })
      const [unproven] = await check(b, theirs)
      assert.equal(unproven!.status, 'DOMAIN_NOT_CONFIGURED')
      assert.match(unproven!.error_details ?? '', /TXT record _berth-challenge\.cdn\.b-corp-front-door\.dev/)
      const cdnUrl = `https://${cdn}:${httpsPort}/`
      assert.notEqual((await get(cdnUrl, root)).status, 200, 'not routed without its proof')
      const [listed] = (await calls.inject('GET', `/container/${theirs}/customDomain`, b.tokens.read.authorization)).json().results as {
        certificate: { state: string }
        ownership_txt_record: { name: string; value: string }
      }[]
      assert.equal(listed!.certificate.state, 'NOT_SERVED')
      dns.zone.set(listed!.ownership_txt_record.name, { TXT: [listed!.ownership_txt_record.value] })
      assert.equal((await check(b, theirs))[0]!.status, 'RESOLVES_TO_IP')
      const proved = await until(
        () => get(cdnUrl, root),
        (answer) => answer.status === 200,
        { timeoutMs: 60_000, intervalMs: 250, what: "B's proved domain served" },
      )
      assert.equal(proved.body, 'version two')
      assert.equal((await get(shopUrl, root)).body, 'version one')
    }),
  )
})
