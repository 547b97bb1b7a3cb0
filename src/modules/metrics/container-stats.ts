import type Docker from 'dockerode'
import type { Db } from '#src/platform/db/database.ts'
import type { Family, Labels, Sample } from './metrics-registry.ts'

// The Docker engine's stats of every container Berth runs (label berth.service-id), read by a
// bounded poll: every interval, at most STATS_CONCURRENCY one-shot stats calls at once, so that
// a hundred containers cost the engine a few requests at a time, never a hundred streams. The
// series are named and computed as cAdvisor does, so a rule reads the same on Kubernetes.

const SERVICE_LABEL = 'berth.service-id'
const INSTANCE_LABEL = 'berth.instance'
/** How many containers' stats are read at once. */
export const STATS_CONCURRENCY = 4

interface ServiceNames {
  serviceName: string
  environmentId: string
  projectId: string
  organizationId: string
}

export interface ContainerReading {
  labels: Labels
  cpuSeconds: number
  workingSetBytes: number
  memoryUsageBytes: number
  receiveBytes: number
  transmitBytes: number
  restarts: number
  startTimeSeconds: number
}

/** cAdvisor's working set: usage less the inactive file cache (cgroup v2's `inactive_file`, v1's `total_inactive_file`). */
export function workingSet(memory: Docker.MemoryStats): number {
  const stats = (memory.stats ?? {}) as unknown as Record<string, number | undefined>
  const inactive = stats.inactive_file ?? stats.total_inactive_file ?? 0
  return Math.max(0, (memory.usage ?? 0) - inactive)
}

async function inBatches<T>(items: T[], size: number, each: (item: T) => Promise<void>): Promise<void> {
  let next = 0
  const worker = async () => {
    while (next < items.length) await each(items[next++]!)
  }
  await Promise.all(Array.from({ length: Math.min(size, items.length) }, worker))
}

/** The services' names and ancestry by id, in one query. */
async function serviceNames(db: Db, ids: string[]): Promise<Map<string, ServiceNames>> {
  if (ids.length === 0) return new Map()
  const rows = await db
    .selectFrom('services as s')
    .innerJoin('environments as e', 'e.id', 's.environmentId')
    .select(['s.id', 's.name as serviceName', 's.environmentId', 'e.projectId', 's.organizationId'])
    .where('s.id', 'in', ids)
    .execute()
  return new Map(rows.map((row) => [row.id, row]))
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** One poll: a reading of every running container of a known service. */
export async function readContainerStats(docker: Docker, db: Db): Promise<ContainerReading[]> {
  const containers = await docker.listContainers({ filters: { label: [SERVICE_LABEL], status: ['running'] } })
  const ids = [...new Set(containers.map((c) => c.Labels[SERVICE_LABEL] ?? '').filter((id) => UUID.test(id)))]
  const names = await serviceNames(db, ids)
  const readings: ContainerReading[] = []
  await inBatches(containers, STATS_CONCURRENCY, async (info) => {
    const service = names.get(info.Labels[SERVICE_LABEL] ?? '')
    if (!service) return
    const container = docker.getContainer(info.Id)
    try {
      const [stats, inspected] = await Promise.all([container.stats({ stream: false, 'one-shot': true }), container.inspect()])
      const networks = Object.values(stats.networks ?? {})
      readings.push({
        labels: {
          service_id: info.Labels[SERVICE_LABEL]!,
          service_name: service.serviceName,
          environment_id: service.environmentId,
          project_id: service.projectId,
          organization_id: service.organizationId,
          replica: info.Labels[INSTANCE_LABEL] ?? '0',
          container: (info.Names[0] ?? info.Id).replace(/^\//, ''),
        },
        cpuSeconds: (stats.cpu_stats?.cpu_usage?.total_usage ?? 0) / 1e9,
        workingSetBytes: workingSet(stats.memory_stats),
        memoryUsageBytes: stats.memory_stats?.usage ?? 0,
        receiveBytes: networks.reduce((sum, n) => sum + (n.rx_bytes ?? 0), 0),
        transmitBytes: networks.reduce((sum, n) => sum + (n.tx_bytes ?? 0), 0),
        restarts: inspected.RestartCount ?? 0,
        startTimeSeconds: Date.parse(inspected.State.StartedAt) / 1000,
      })
    } catch {
      // A container that stopped between the listing and its stats is simply not in this reading.
    }
  })
  return readings
}

const SERIES: { name: string; help: string; type: 'counter' | 'gauge'; value: (r: ContainerReading) => number }[] = [
  { name: 'container_cpu_usage_seconds_total', help: 'Cumulative CPU time consumed, in seconds.', type: 'counter', value: (r) => r.cpuSeconds },
  { name: 'container_memory_working_set_bytes', help: 'Current working set, in bytes.', type: 'gauge', value: (r) => r.workingSetBytes },
  { name: 'container_memory_usage_bytes', help: 'Current memory usage, in bytes.', type: 'gauge', value: (r) => r.memoryUsageBytes },
  { name: 'container_network_receive_bytes_total', help: 'Cumulative bytes received.', type: 'counter', value: (r) => r.receiveBytes },
  { name: 'container_network_transmit_bytes_total', help: 'Cumulative bytes transmitted.', type: 'counter', value: (r) => r.transmitBytes },
  { name: 'container_restarts_total', help: 'How many times the engine restarted the container.', type: 'counter', value: (r) => r.restarts },
  {
    name: 'container_start_time_seconds',
    help: 'When the container started, in seconds since the epoch.',
    type: 'gauge',
    value: (r) => r.startTimeSeconds,
  },
]

/** The readings as cAdvisor-named families. */
export function containerFamilies(readings: ContainerReading[]): Family[] {
  return SERIES.map((series) => ({
    name: series.name,
    help: series.help,
    type: series.type,
    samples: readings.map((r): Sample => ({ labels: r.labels, value: series.value(r) })),
  }))
}

/** Polls every `intervalMs` and keeps the last reading for /metrics; `stop` ends it. */
export function startContainerStatsPoll(docker: Docker, db: Db, intervalMs: number, onError: (error: unknown) => void) {
  let last: ContainerReading[] = []
  let timer: NodeJS.Timeout | undefined
  let stopped = false
  const poll = async () => {
    try {
      last = await readContainerStats(docker, db)
    } catch (error) {
      onError(error)
    }
    if (!stopped) timer = setTimeout(() => void poll(), intervalMs).unref()
  }
  void poll()
  return {
    families: () => containerFamilies(last),
    stop() {
      stopped = true
      clearTimeout(timer)
    },
  }
}
