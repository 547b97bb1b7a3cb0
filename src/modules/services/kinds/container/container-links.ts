import type { KindRouteContext } from '#src/modules/services/kind-route-context.ts'
import type { ServiceLink } from '#src/modules/services/service-links.ts'
import type { ContainerServiceRecord } from './container.types.ts'

// The URLs a container's public ports are reached at. The simulator runs nothing, so Berth derives
// stable addresses from the ids (docs/containers.md, "Container registries and containers"): the default port
// at `https://z<first 8 hex of the service id>-z<first 8 hex of the environment id>.<domain>`, every
// public port also at `https://p<external port>-z…-z….<domain>` (TCP and UDP: `tcp://…:<port>`).
// An executor that runs containers (Docker, a later issue) reports the real addresses instead.

/** The domain of the addresses Berth derives for the simulator. */
export const DEFAULT_SERVICE_DOMAIN = 'berth.local'

export interface ContainerLink {
  url: string
  internalPort: number
  externalPort: number
  isDefault: boolean
}

const shortId = (id: string) => `z${id.replaceAll('-', '').slice(0, 8)}`

/** The host of a container's default link (the addresses above without `p<port>-`). */
export const containerHost = (container: Pick<ContainerServiceRecord, 'id' | 'environmentId'>, domain = DEFAULT_SERVICE_DOMAIN): string =>
  `${shortId(container.id)}-${shortId(container.environmentId)}.${domain}`

export function containerLinks(
  container: Pick<ContainerServiceRecord, 'id' | 'environmentId' | 'ports'>,
  domain = DEFAULT_SERVICE_DOMAIN,
): ContainerLink[] {
  const host = containerHost(container, domain)
  const links: ContainerLink[] = []
  for (const port of container.ports) {
    if (!port.publiclyAccessible || port.externalPort === null) continue
    const web = port.protocol === 'HTTP' || port.protocol === 'GRPC'
    const path = web && port.publicPath && port.publicPath !== '/' ? port.publicPath : ''
    const url = web ? `https://p${port.externalPort}-${host}${path}` : `${port.protocol.toLowerCase()}://${host}:${port.externalPort}`
    if (port.isDefault && web)
      links.push({ url: `https://${host}${path}`, internalPort: port.internalPort, externalPort: port.externalPort, isDefault: true })
    links.push({ url, internalPort: port.internalPort, externalPort: port.externalPort, isDefault: false })
  }
  return links
}

/** What listContainerLinks answers: the derived links, or, where an engine runs the container, what answers there. */
export async function liveContainerLinks(
  withLiveLinks: KindRouteContext['withLiveLinks'],
  container: ContainerServiceRecord,
): Promise<ServiceLink[]> {
  const links = containerLinks(container).map(
    (link): ServiceLink => ({
      service_id: container.id,
      service_type: 'CONTAINER' as const,
      url: link.url,
      internal_port: link.internalPort,
      external_port: link.externalPort,
      is_qovery_domain: true,
      is_default: link.isDefault,
    }),
  )
  return withLiveLinks(container, 'CONTAINER', container.ports, links)
}
