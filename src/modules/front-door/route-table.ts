import type Docker from 'dockerode'
import { PASSING_CHECKS } from '#src/modules/custom-domains/dns-check.ts'
import { LABELS, labelledPorts, type PublicPort } from '#src/modules/executors/docker/docker-objects.ts'
import { serviceHosts } from '#src/modules/executors/public-hosts.ts'
import type { Db } from '#src/platform/db/database.ts'
import type { FrontDoorRoute } from './caddy-config.ts'

// What the front door routes, read from the engine and the database (docs/front-door.md): every
// service with instances in the Docker engine (running or stopped: a stopped service keeps its
// names, answering 503) gets a route per public web port, to the instances that serve: running,
// found ready by their rollout (ready marks), and not replaced by a newer ready one (an instance
// being drained). Its ports are those its newest instance was deployed with (the instance's label,
// written from the service's workload), whatever its kind. Its custom domains whose last check
// passed and verified them (docs/custom-domains.md, "Who holds a domain") lead to its default port.

/** A Berth instance as the engine lists it. */
interface Instance {
  id: string
  serviceId: string
  running: boolean
  /** Its address on its environment's network. */
  ip: string | undefined
  replaces: string[]
  /** The ports its deploy ran it with. */
  ports: PublicPort[]
  created: number
}

function instancesOf(listed: Docker.ContainerInfo[]): Instance[] {
  return listed.flatMap((info) => {
    const serviceId = info.Labels[LABELS.service]
    if (serviceId === undefined || info.Labels[LABELS.instance] === undefined) return []
    const ip = Object.values(info.NetworkSettings?.Networks ?? {}).find((network) => network.IPAddress)?.IPAddress
    return [
      {
        id: info.Id,
        serviceId,
        running: info.State === 'running',
        ip: ip || undefined,
        replaces: (info.Labels[LABELS.replaces] ?? '').split(',').filter((id) => id !== ''),
        ports: labelledPorts(info.Labels),
        created: info.Created,
      },
    ]
  })
}

/**
 * The instances of one service that get its traffic: the running ready ones that no running ready
 * instance replaces. A service none of whose running instances has a mark (they predate the front
 * door) has all of them.
 */
export function servingInstances<Of extends Pick<Instance, 'id' | 'running' | 'ip' | 'replaces'>>(
  instances: readonly Of[],
  ready: ReadonlySet<string>,
): Of[] {
  const running = instances.filter((instance) => instance.running && instance.ip !== undefined)
  const marked = running.filter((instance) => ready.has(instance.id))
  if (marked.length === 0) return running
  const replaced = new Set(marked.flatMap((instance) => instance.replaces))
  return marked.filter((instance) => !replaced.has(instance.id))
}

/** The instance of them created last. */
const newest = <Of extends Pick<Instance, 'created'>>(instances: readonly Of[]) =>
  instances.reduce<Of | undefined>((latest, instance) => (!latest || instance.created > latest.created ? instance : latest), undefined)

/** The routes of everything the engine runs for Berth, and the containers whose ready marks are stale (gone from the engine). */
export async function readRouteTable(db: Db, docker: Docker, appsDomain: string): Promise<{ routes: FrontDoorRoute[]; serviceIds: string[] }> {
  // Marks first, then the engine: a mark is written after its container exists, so every mark read
  // here whose container the listing lacks is of a container that is gone.
  const marks = await db.selectFrom('frontDoorReadyInstances').select(['containerId']).execute()
  const listed = await docker.listContainers({ all: true, filters: { label: [LABELS.service, LABELS.instance] } })
  const instances = instancesOf(listed)
  const existing = new Set(instances.map((instance) => instance.id))
  const stale = marks.map((mark) => mark.containerId).filter((id) => !existing.has(id))
  if (stale.length > 0) await db.deleteFrom('frontDoorReadyInstances').where('containerId', 'in', stale).execute()
  const ready = new Set(marks.map((mark) => mark.containerId))
  const serviceIds = [...new Set(instances.map((instance) => instance.serviceId))]
  if (serviceIds.length === 0) return { routes: [], serviceIds }
  // Only the services that still exist: what the engine still runs of a deleted one gets no route.
  const services = await db.selectFrom('services').select('id').where('id', 'in', serviceIds).execute()
  // Verified domains only, the first verified first: claims keep a name (or an overlapping
  // wildcard) to one service, and a name seen twice still gets one route (Caddy would take the first).
  const seen = new Set<string>()
  const domains = (
    await db
      .selectFrom('customDomains')
      .select(['serviceId', 'domain'])
      .where('serviceId', 'in', serviceIds)
      .where('checkStatus', 'in', [...PASSING_CHECKS])
      .where('verifiedAt', 'is not', null)
      .orderBy('verifiedAt')
      .orderBy('createdAt')
      .execute()
  ).filter((row) => {
    const name = row.domain.toLowerCase()
    if (seen.has(name) || name === appsDomain.toLowerCase() || name.endsWith(`.${appsDomain.toLowerCase()}`)) return false
    seen.add(name)
    return true
  })
  const routes: FrontDoorRoute[] = []
  for (const service of services.sort((a, b) => a.id.localeCompare(b.id))) {
    const own = instances.filter((instance) => instance.serviceId === service.id)
    const serving = servingInstances(own, ready)
    // The ports of what serves (of what was deployed last, when nothing does: its names answer 503).
    const ports = (newest(serving) ?? newest(own))?.ports ?? []
    const grpcPorts = new Set(ports.filter((port) => port.protocol === 'GRPC').map((port) => port.internalPort))
    for (const host of serviceHosts(service.id, ports, appsDomain)) {
      const custom = host.isDefault ? domains.filter((domain) => domain.serviceId === service.id).map((domain) => domain.domain) : []
      routes.push({
        hosts: [host.host, ...custom],
        upstreams: serving.map((instance) => `${instance.ip}:${host.internalPort}`),
        grpc: grpcPorts.has(host.internalPort),
      })
    }
  }
  return { routes, serviceIds }
}
