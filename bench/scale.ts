// One host, many services (issue 50): N container services (the busybox httpd of the deploy
// scenario, docker-deploy.ts) in N/10 environments on a `berth serve` with its runner, the Docker
// executor and its front door. Deployed environment by environment, then all redeployed, then one
// environment deleted; around it, one more deploy timed on the empty host and with N running, the
// history page under load before and after, the front door's configuration and what loading it
// costs, the server's CPU and memory, and every service asked for its page at its HTTPS address.
import { readFileSync } from 'node:fs'
import { request } from 'node:https'
import os from 'node:os'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import Docker from 'dockerode'
import { readRouteTable } from '#src/modules/front-door/route-table.ts'
import { openDatabase } from '#src/platform/db/database.ts'
import { COMMAND, ensureBenchImage, IMAGE_NAME, REGISTRY_HOST } from './docker-deploy.ts'
import { type LoadResult, measure } from './load.ts'
import { historyPath } from './scenarios.ts'
import type { BerthServer } from './servers.ts'

/** The smallest settings the httpd runs with (it uses well under 1 MiB; Docker's floor is 6 MiB). */
export const SCALE_MEMORY_MB = 16
export const SCALE_CPU_MILLI = 100
export const SERVICES_PER_ENVIRONMENT = 10
/** Below this much available memory the scenario is skipped. */
export const SCALE_MIN_FREE_BYTES = 8 * 2 ** 30

export interface ScaleOptions {
  services: number
  /** Rounds of the one-more deploy, on the empty host and with N running. */
  probeRounds: number
  load: { connections: number; warmupS: number; durationS: number }
}

export interface ScaleResult {
  method: string
  services: number
  environments: number
  memoryMb: number
  /** MemAvailable at the start, and the load average at the start and the end. */
  availableMemoryBytes: number
  loadAverage: { atStart: number[]; atEnd: number[] }
  /** From the first environment's trigger to the last one's DEPLOYED, environment by environment. */
  deployAllMs: number
  /** Each environment's deploy, in order: whether the n-th costs more than the first. */
  environmentDeployMs: number[]
  /** Every environment's redeploy triggered at once, to the last one's DEPLOYED. */
  redeployAllMs: number
  /** One environment's DELETE to its containers and network gone from the engine. */
  deleteEnvironmentMs: number
  oneMoreDeploy: { emptyMs: number[]; emptyMedianMs: number; loadedMs: number[]; loadedMedianMs: number; ratio: number }
  frontDoor: {
    routes: number
    configBytes: number
    /** Berth's side of one change: the route table read from the engine and the database (in the bench's process). */
    readRoutesMs: number[]
    /** Caddy's side: POST /load of that configuration, forced (Cache-Control: must-revalidate), each a whole reload. */
    loadMs: number[]
    readRoutesMedianMs: number
    loadMedianMs: number
  }
  server: {
    idleRssBytes: number | null
    rssAfterDeployBytes: number | null
    peakRssBytes: number | null
    cpuSeconds: number
    cpuPercent: number
    wallSeconds: number
  }
  /** `ratio`: req/s loaded over empty; `normalisedRatio`: the same of the page's req/s over /healthz's, measured in alternation. */
  history: { empty: LoadResult; loaded: LoadResult; ratio: number; overHealthz: { empty: number; loaded: number }; normalisedRatio: number }
  answers: { checked: number; ok: number; failures: string[] }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)]!
const round = (value: number, digits = 2) => Math.round(value * 10 ** digits) / 10 ** digits
const loadAverage = () => os.loadavg().map((value) => round(value))

/** MemAvailable of /proc/meminfo, in bytes (os.freemem() counts the page cache as used). */
export function availableMemory(): number {
  const match = /^MemAvailable:\s+(\d+) kB$/m.exec(readFileSync('/proc/meminfo', 'utf8'))
  return match ? Number(match[1]) * 1024 : os.freemem()
}

/** User and system CPU seconds of a process so far. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
  return (Number(fields[11]) + Number(fields[12])) / 100
}

// biome-ignore lint/suspicious/noExplicitAny: response bodies are read field by field
type Body = Record<string, any>

/** Runs `work` on every item, at most `width` at a time. */
async function eachLimited<T>(items: readonly T[], width: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0
  await Promise.all(
    Array.from({ length: Math.min(width, items.length) }, async () => {
      while (next < items.length) await work(items[next++]!)
    }),
  )
}

/** GET https://<name>:<port>/ through the front door on 127.0.0.1, the name as SNI and Host, trusting Caddy's local CA. */
function httpsGet(name: string, port: number, ca: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, servername: name, headers: { host: `${name}:${port}` }, path: '/', ca, timeout: 5_000, agent: false },
      (res) => {
        let body = ''
        res.setEncoding('utf8')
        res.on('data', (chunk) => {
          body += chunk
        })
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }))
        res.on('error', reject)
      },
    )
    req.on('timeout', () => req.destroy(new Error('timed out')))
    req.on('error', reject)
    req.end()
  })
}

/** Removes what the engine still runs of these environments (containers, then their networks): the scenario's last step, whatever happened. */
export async function sweepEnvironments(environmentIds: Iterable<string>): Promise<{ containers: number; networks: number }> {
  const docker = new Docker()
  const ids = [...environmentIds]
  let containers = 0
  let networks = 0
  // Label filters of one key are ANDed by the engine: each environment is listed on its own.
  for (const id of ids) {
    const found = await docker.listContainers({ all: true, filters: { label: [`berth.environment-id=${id}`] } })
    await eachLimited(found, 8, async (info) => {
      await docker
        .getContainer(info.Id)
        .remove({ force: true })
        .then(() => containers++)
        .catch(() => undefined)
    })
  }
  const all = await docker.listNetworks()
  const names = new Set(ids.map((id) => `berth-env-${id}`))
  for (const network of all.filter((n) => names.has(n.Name))) {
    await docker
      .getNetwork(network.Id)
      .remove()
      .then(() => networks++)
      .catch(() => undefined)
  }
  return { containers, networks }
}

export interface ScaleServerInfo {
  server: BerthServer
  databaseUrl: string
  dataDir: string
  adminUrl: string
  httpsPort: number
}

/**
 * The scenario on `berth` (serve with its runner, BERTH_EXECUTOR=docker, its own Caddy on free
 * ports, the local CA); `environmentIds` collects every environment made, for the caller's sweep.
 */
export async function measureScale(
  berth: ScaleServerInfo,
  seeded: { organizationId: string; authorization: string; smallEnvironmentId: string },
  options: ScaleOptions,
  environmentIds: Set<string>,
  log: (message: string) => void,
): Promise<ScaleResult> {
  const { server } = berth
  const docker = new Docker()
  await ensureBenchImage(docker)
  const availableMemoryBytes = availableMemory()
  const atStart = loadAverage()
  const call = async (method: string, urlPath: string, body?: object): Promise<{ status: number; json: Body }> => {
    const response = await fetch(`${server.baseUrl}${urlPath}`, {
      method,
      headers: { authorization: seeded.authorization, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    })
    const text = await response.text()
    return { status: response.status, json: text ? JSON.parse(text) : {} }
  }
  const expect = async (answer: Promise<{ status: number; json: Body }>, what: string): Promise<Body> => {
    const { status, json } = await answer
    if (status < 200 || status > 299) throw new Error(`${what}: ${status} ${JSON.stringify(json).slice(0, 500)}`)
    return json
  }
  const stamp = Date.now()
  const project = await expect(call('POST', `/organization/${seeded.organizationId}/project`, { name: `scale bench ${stamp}` }), 'project')
  const registry = await expect(
    call('POST', `/organization/${seeded.organizationId}/containerRegistry`, {
      name: `scale local ${stamp}`,
      kind: 'GENERIC_CR',
      url: `http://${REGISTRY_HOST}`,
      config: {},
    }),
    'registry',
  )
  const newEnvironment = async (name: string) => {
    const environment = await expect(call('POST', `/project/${project.id}/environment`, { name, mode: 'DEVELOPMENT' }), 'environment')
    environmentIds.add(environment.id)
    return environment.id as string
  }
  const newService = async (environmentId: string, name: string): Promise<string> => {
    const service = await expect(
      call('POST', `/environment/${environmentId}/container`, {
        name,
        registry_id: registry.id,
        image_name: IMAGE_NAME,
        tag: '1',
        entrypoint: COMMAND[0],
        arguments: COMMAND.slice(1),
        cpu: SCALE_CPU_MILLI,
        memory: SCALE_MEMORY_MB,
        min_running_instances: 1,
        max_running_instances: 1,
        ports: [{ name: 'http', internal_port: 8080, external_port: 443, publicly_accessible: true, protocol: 'HTTP' }],
        healthchecks: {
          readiness_probe: {
            type: { http: { path: '/', port: 8080, scheme: 'HTTP' } },
            initial_delay_seconds: 0,
            period_seconds: 1,
            timeout_seconds: 1,
            failure_threshold: 30,
          },
        },
      }),
      `container ${name}`,
    )
    // httpd as the container's first process ignores SIGTERM: a stop would wait the whole grace.
    await expect(call('PUT', `/container/${service.id}/advancedSettings`, { 'deployment.termination_grace_period_seconds': 1 }), 'grace')
    return service.id
  }
  /** The latest entry of an environment's history, once it is not `notId` and has ended. */
  const ended = async (environmentId: string, notId?: string): Promise<Body> => {
    const deadline = Date.now() + 600_000
    while (Date.now() < deadline) {
      const page = await expect(call('GET', `/environment/${environmentId}/deploymentHistoryV2?pageSize=1`), 'history')
      const latest = page.results[0]
      if (latest && latest.identifier.execution_id !== notId && ['SUCCESS', 'ERROR', 'CANCELED'].includes(latest.action_status)) return latest
      await sleep(50)
    }
    throw new Error(`environment ${environmentId}: no deployment ended within 10 minutes`)
  }
  const latestId = async (environmentId: string): Promise<string | undefined> =>
    (await expect(call('GET', `/environment/${environmentId}/deploymentHistoryV2?pageSize=1`), 'history')).results[0]?.identifier.execution_id
  /** A deploy ends DEPLOYED; a redeploy (the API's RESTART, a rollout of new instances as a deploy) RESTARTED. */
  const deployed = (entry: Body, what: string) => {
    if (entry.status !== 'DEPLOYED' && entry.status !== 'RESTARTED')
      throw new Error(`${what} ended ${entry.status}: ${JSON.stringify(entry).slice(0, 800)}`)
  }

  // One more deploy: a new service in an environment of its own, created, deployed to DEPLOYED (timed), deleted.
  const probeEnvironment = await newEnvironment('scale-probe')
  let probeRound = 0
  const oneMoreDeploy = async (): Promise<number> => {
    const serviceId = await newService(probeEnvironment, `probe-${probeRound++}`)
    const before = await latestId(probeEnvironment)
    const started = performance.now()
    await expect(call('POST', `/container/${serviceId}/deploy`, {}), 'probe deploy')
    const entry = await ended(probeEnvironment, before)
    const ms = performance.now() - started
    deployed(entry, 'the probe deploy')
    const deleting = await latestId(probeEnvironment)
    await expect(call('DELETE', `/container/${serviceId}`), 'probe delete')
    await ended(probeEnvironment, deleting)
    return Math.round(ms)
  }
  /**
   * Three rounds, each the history page's load then /healthz's on the same server: the median load
   * of the page (by req/s), and the median of the rounds' page over /healthz, which the machine's
   * drift (other work on a shared host) moves far less than either figure alone.
   */
  const historyLoad = async (): Promise<{ load: LoadResult; overHealthz: number }> => {
    const loads: LoadResult[] = []
    const ratios: number[] = []
    for (let i = 0; i < 3; i++) {
      const page = await measure(historyTarget, options.load)
      const healthz = await measure({ url: `${server.baseUrl}/healthz` }, options.load)
      loads.push(page)
      ratios.push(page.requestsPerSec / Math.max(1, healthz.requestsPerSec))
    }
    return { load: loads.sort((a, b) => a.requestsPerSec - b.requestsPerSec)[1]!, overHealthz: median(ratios) }
  }
  const historyTarget = {
    url: `${server.baseUrl}${historyPath(seeded.smallEnvironmentId)}`,
    headers: { authorization: seeded.authorization },
  }

  // The empty host.
  const emptyMs: number[] = []
  for (let i = 0; i < options.probeRounds; i++) emptyMs.push(await oneMoreDeploy())
  log(`scale: one more deploy on the empty host: ${emptyMs.join(', ')} ms`)
  const emptyHistory = await historyLoad()
  log(
    `scale: history first page, empty host: ${emptyHistory.load.requestsPerSec} req/s, p50 ${emptyHistory.load.latencyMs.p50} ms, ${round(emptyHistory.overHealthz, 3)} of /healthz`,
  )

  const cpuAtStart = cpuSeconds(server.process.pid)
  const wallAtStart = performance.now()

  // N services in N/10 environments, made first, then deployed environment by environment.
  const environments: { id: string; services: string[] }[] = []
  const environmentCount = Math.ceil(options.services / SERVICES_PER_ENVIRONMENT)
  for (let e = 0; e < environmentCount; e++) {
    const id = await newEnvironment(`scale-${e}`)
    const count = Math.min(SERVICES_PER_ENVIRONMENT, options.services - e * SERVICES_PER_ENVIRONMENT)
    const services: string[] = []
    await eachLimited(
      Array.from({ length: count }, (_, s) => s),
      4,
      async (s) => {
        services.push(await newService(id, `web-${e}-${s}`))
      },
    )
    environments.push({ id, services })
  }
  log(`scale: ${options.services} services made in ${environmentCount} environments; deploying environment by environment`)
  const environmentDeployMs: number[] = []
  const deployStarted = performance.now()
  for (const [e, environment] of environments.entries()) {
    const before = await latestId(environment.id)
    const started = performance.now()
    await expect(call('POST', `/environment/${environment.id}/deploy`, {}), 'environment deploy')
    deployed(await ended(environment.id, before), `environment ${e}'s deploy`)
    environmentDeployMs.push(Math.round(performance.now() - started))
    if (e % 5 === 4 || e === environments.length - 1)
      log(`scale: ${(e + 1) * SERVICES_PER_ENVIRONMENT} services deployed (environment ${e + 1}: ${environmentDeployMs.at(-1)} ms)`)
  }
  const deployAllMs = Math.round(performance.now() - deployStarted)
  const rssAfterDeployBytes = server.process.rss() ?? null

  // One more deploy with N running.
  const loadedMs: number[] = []
  for (let i = 0; i < options.probeRounds; i++) loadedMs.push(await oneMoreDeploy())
  log(`scale: one more deploy with ${options.services} running: ${loadedMs.join(', ')} ms`)

  // The front door with 2N routes (a name and a port name a service): its configuration, what one change costs.
  const configText = await (await fetch(`${berth.adminUrl}/config/`)).text()
  const db = openDatabase(berth.databaseUrl, 2)
  const readRoutesMs: number[] = []
  const loadMs: number[] = []
  let routes = 0
  try {
    for (let i = 0; i < 5; i++) {
      const started = performance.now()
      routes = (await readRouteTable(db, docker, 'localhost')).routes.length
      readRoutesMs.push(round(performance.now() - started, 1))
      const loadStarted = performance.now()
      const response = await fetch(`${berth.adminUrl}/load`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'cache-control': 'must-revalidate' },
        body: configText,
      })
      await response.text()
      if (!response.ok) throw new Error(`Caddy refused its own configuration: ${response.status}`)
      loadMs.push(round(performance.now() - loadStarted, 1))
    }
  } finally {
    await db.destroy()
  }
  log(`scale: front door ${routes} routes, ${configText.length} bytes; read ${median(readRoutesMs)} ms, load ${median(loadMs)} ms`)

  // All redeployed at once.
  const redeployStarted = performance.now()
  const befores = await Promise.all(environments.map((environment) => latestId(environment.id)))
  await Promise.all(environments.map((environment) => expect(call('POST', `/environment/${environment.id}/redeploy`, {}), 'redeploy')))
  await Promise.all(environments.map(async (environment, e) => deployed(await ended(environment.id, befores[e]), `environment ${e}'s redeploy`)))
  const redeployAllMs = Math.round(performance.now() - redeployStarted)
  log(`scale: all ${environmentCount} environments redeployed in ${redeployAllMs} ms`)

  // Every service at its HTTPS address through the front door.
  const ca = readFileSync(path.join(berth.dataDir, 'front-door', 'data', 'pki', 'authorities', 'local', 'root.crt'), 'utf8')
  const failures: string[] = []
  let ok = 0
  const services = environments.flatMap((environment) => environment.services)
  await eachLimited(services, 8, async (serviceId) => {
    // The link too is asked again until the deadline: it names the front door only while an instance runs.
    const deadline = Date.now() + 60_000
    let last = ''
    for (;;) {
      const links = await call('GET', `/container/${serviceId}/link`)
      const link = ((links.json.results ?? []) as Body[]).find((l) => l.is_default && l.is_qovery_domain)
      if (!link) last = `no front-door link (${links.status} ${JSON.stringify(links.json).slice(0, 200)})`
      else {
        const name = new URL(link.url).hostname
        try {
          const answer = await httpsGet(name, berth.httpsPort, ca)
          if (answer.status === 200 && answer.body === 'hello\n') {
            ok++
            return
          }
          last = `${name}: ${answer.status} ${answer.body.slice(0, 80)}`
        } catch (error) {
          last = `${name}: ${error instanceof Error ? error.message : String(error)}`
        }
      }
      if (Date.now() > deadline) {
        failures.push(`${serviceId}: ${last}`)
        return
      }
      await sleep(500)
    }
  })
  log(
    `scale: ${ok} of ${services.length} services answered at their HTTPS address${failures.length ? `; first failures: ${failures.slice(0, 3).join('; ')}` : ''}`,
  )

  const loadedHistory = await historyLoad()
  log(
    `scale: history first page with ${options.services} services: ${loadedHistory.load.requestsPerSec} req/s, p50 ${loadedHistory.load.latencyMs.p50} ms, ${round(loadedHistory.overHealthz, 3)} of /healthz`,
  )

  // One environment deleted: its DELETE to its containers and network gone.
  const gone = environments.at(-1)!
  const deleteStarted = performance.now()
  await expect(call('DELETE', `/environment/${gone.id}`), 'environment delete')
  for (let attempt = 0; ; attempt++) {
    const left = await docker.listContainers({ all: true, filters: { label: [`berth.environment-id=${gone.id}`] } })
    const network = (await docker.listNetworks({ filters: { name: [`berth-env-${gone.id}`] } })).length
    if (left.length === 0 && network === 0) break
    if (attempt > 1200) throw new Error(`environment ${gone.id}: ${left.length} containers still there a minute after its delete`)
    await sleep(50)
  }
  const deleteEnvironmentMs = Math.round(performance.now() - deleteStarted)
  log(`scale: one environment deleted in ${deleteEnvironmentMs} ms`)

  const wallSeconds = (performance.now() - wallAtStart) / 1000
  const cpu = cpuSeconds(server.process.pid) - cpuAtStart
  return {
    method:
      `berth serve with its runner, BERTH_EXECUTOR=docker and its Caddy (local CA), BERTH_MONITORING=off; ${options.services} container services ` +
      `(busybox httpd, ${SCALE_MEMORY_MB} MB, ${SCALE_CPU_MILLI} millicores) in ${environmentCount} environments, deployed environment by ` +
      `environment, then every environment redeployed at once, then one deleted. One more deploy: a new service's deploy to DEPLOYED in an ` +
      `environment of its own, ${options.probeRounds} rounds on the empty host and ${options.probeRounds} with the services running. History: ` +
      `the seeded 1k environment's first page under ${options.load.connections} connections, 3 rounds before and 3 after, each alternating it with /healthz. CPU: user + system ` +
      'seconds of berth serve from the first environment made to the deletion (its Caddy apart)',
    services: options.services,
    environments: environmentCount,
    memoryMb: SCALE_MEMORY_MB,
    availableMemoryBytes,
    loadAverage: { atStart, atEnd: loadAverage() },
    deployAllMs,
    environmentDeployMs,
    redeployAllMs,
    deleteEnvironmentMs,
    oneMoreDeploy: {
      emptyMs,
      emptyMedianMs: median(emptyMs),
      loadedMs,
      loadedMedianMs: median(loadedMs),
      ratio: round(median(loadedMs) / median(emptyMs)),
    },
    frontDoor: {
      routes,
      configBytes: Buffer.byteLength(configText),
      readRoutesMs,
      loadMs,
      readRoutesMedianMs: median(readRoutesMs),
      loadMedianMs: median(loadMs),
    },
    server: {
      idleRssBytes: server.idleRssBytes,
      rssAfterDeployBytes,
      peakRssBytes: server.process.peakRss() ?? null,
      cpuSeconds: round(cpu, 1),
      cpuPercent: round((cpu / wallSeconds) * 100, 1),
      wallSeconds: round(wallSeconds, 1),
    },
    history: {
      empty: emptyHistory.load,
      loaded: loadedHistory.load,
      ratio: round(loadedHistory.load.requestsPerSec / emptyHistory.load.requestsPerSec),
      overHealthz: { empty: round(emptyHistory.overHealthz, 3), loaded: round(loadedHistory.overHealthz, 3) },
      normalisedRatio: round(loadedHistory.overHealthz / emptyHistory.overHealthz),
    },
    answers: { checked: services.length, ok, failures: failures.slice(0, 20) },
  }
}
