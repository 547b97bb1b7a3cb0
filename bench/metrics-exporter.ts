// What the Docker stats exporter of /metrics costs (issue 46): the API's throughput and the
// `berth serve` process's CPU with 50 running containers of a service being read (every
// BERTH_METRICS_INTERVAL_MS) and scraped, against the same server with none. The containers are
// busybox sleeping, labelled as Berth labels a service's instances.
import { readFileSync } from 'node:fs'
import { setTimeout as sleep } from 'node:timers/promises'
import Docker from 'dockerode'
import { busyboxImage } from '../test/helpers/docker.ts'
import { type LoadResult, measure } from './load.ts'
import type { BerthServer } from './servers.ts'

export interface MetricsExporterResult {
  method: string
  containers: number
  intervalMs: number
  none: { load: LoadResult; idleCpuPercent: number; scrapeBytes: number }
  running: { load: LoadResult; idleCpuPercent: number; scrapeBytes: number }
  /** The API's throughput with the containers over that without, as a ratio (0.97: 3 % fewer requests a second). */
  throughputRatio: number
}

/** User and system CPU seconds of a process so far. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
  return (Number(fields[11]) + Number(fields[12])) / 100
}

// biome-ignore lint/suspicious/noExplicitAny: response bodies are read field by field
type Body = Record<string, any>

export async function measureMetricsExporter(
  server: BerthServer,
  seeded: { organizationId: string; smallEnvironmentId: string; authorization: string },
  options: { containers: number; intervalMs: number; idleSeconds: number; load: { connections: number; warmupS: number; durationS: number } },
  log: (message: string) => void,
): Promise<MetricsExporterResult> {
  const call = async (method: string, path: string, body?: object): Promise<Body> => {
    const response = await fetch(`${server.baseUrl}${path}`, {
      method,
      headers: { authorization: seeded.authorization, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    })
    const json = (await response.json()) as Body
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`)
    return json
  }
  const registry = await call('POST', `/organization/${seeded.organizationId}/containerRegistry`, {
    name: `exporter bench ${Date.now()}`,
    kind: 'GENERIC_CR',
    url: 'https://registry.example.com',
    config: {},
  })
  const service = await call('POST', `/environment/${seeded.smallEnvironmentId}/container`, {
    name: `exporter-bench-${Date.now()}`,
    registry_id: registry.id,
    image_name: 'bench/sleep',
    tag: '1',
    healthchecks: {},
  })
  const target = { url: `${server.baseUrl}/organization/${seeded.organizationId}/project`, headers: { authorization: seeded.authorization } }

  const phase = async () => {
    // Idle: only the exporter's own reads, and a scrape every interval, as Prometheus would.
    let scrapeBytes = 0
    const before = cpuSeconds(server.process.pid)
    const until = Date.now() + options.idleSeconds * 1000
    while (Date.now() < until) {
      scrapeBytes = (await (await fetch(`${server.baseUrl}/metrics`)).arrayBuffer()).byteLength
      await sleep(options.intervalMs)
    }
    const idleCpuPercent = Math.round(((cpuSeconds(server.process.pid) - before) / options.idleSeconds) * 1000) / 10
    return { load: await measure(target, options.load), idleCpuPercent, scrapeBytes }
  }

  const none = await phase()
  log(`metrics exporter, no containers: ${none.load.requestsPerSec} req/s, idle CPU ${none.idleCpuPercent} %`)
  const docker = new Docker()
  const image = await busyboxImage()
  const started: Docker.Container[] = []
  try {
    for (let replica = 0; replica < options.containers; replica++) {
      const container = await docker.createContainer({
        Image: image,
        Cmd: ['sh', '-c', 'while :; do sleep 60; done'],
        Labels: { 'berth.service-id': service.id, 'berth.environment-id': seeded.smallEnvironmentId, 'berth.instance': String(replica) },
        HostConfig: { Memory: 16 * 2 ** 20 },
      })
      started.push(container)
      await container.start()
    }
    // Until a reading has them all: a phase measuring fewer would measure nothing.
    let seen = 0
    for (let attempt = 0; attempt < 120 && seen < options.containers; attempt++) {
      const text = await (await fetch(`${server.baseUrl}/metrics`)).text()
      seen = (text.match(/^container_start_time_seconds\{/gm) ?? []).length
      if (seen < options.containers) await sleep(1_000)
    }
    if (seen < options.containers) throw new Error(`/metrics shows ${seen} of the ${options.containers} containers after two minutes`)
    log(`metrics exporter: /metrics shows the ${seen} containers`)
    const running = await phase()
    log(`metrics exporter, ${options.containers} containers: ${running.load.requestsPerSec} req/s, idle CPU ${running.idleCpuPercent} %`)
    return {
      method: `berth serve with BERTH_EXECUTOR=docker and BERTH_METRICS_INTERVAL_MS=${options.intervalMs}, /metrics scraped every interval; idle CPU over ${options.idleSeconds} s, then the API under load (GET …/project)`,
      containers: options.containers,
      intervalMs: options.intervalMs,
      none,
      running,
      throughputRatio: Math.round((running.load.requestsPerSec / none.load.requestsPerSec) * 1000) / 1000,
    }
  } finally {
    await Promise.all(started.map((container) => container.remove({ force: true }).catch(() => undefined)))
  }
}
