import { SIMULATED_LINK_DOMAIN } from '#src/modules/executors/public-hosts.ts'
import type { ServiceAddress } from '#src/modules/executors/service-runtime.ts'
import type { ServiceType } from '#src/platform/deployment-states.ts'

// The addresses a service's public ports are reached at. Berth runs no ingress yet: the simulator
// (and any executor without domains of its own) answers addresses derived from the service's id and
// ports alone, so that they are stable across deploys, edits and replicas (docs/applications.md, "Links"):
//   - `https://z{first 8 hex of the id}.{SIMULATED_LINK_DOMAIN}` for the default port (the port marked
//     is_default, else the first public one), with `is_default: true`;
//   - `https://p{internal port}-z{first 8 hex of the id}.{SIMULATED_LINK_DOMAIN}` for every public port
//     (`tcp://…:{external port}` and `udp://…` for TCP and UDP ports), with `is_default: false`.
// Where an engine really runs the service (Docker), the addresses its running instances are
// published on follow (addressLinks).

export { SIMULATED_LINK_DOMAIN }

/** A port of a service as links need it. */
export interface LinkedPort {
  internalPort: number
  externalPort: number | null
  publiclyAccessible: boolean
  isDefault: boolean
  protocol: 'HTTP' | 'GRPC' | 'TCP' | 'UDP'
}

/** The reference's `Link`. */
export interface ServiceLink {
  service_id: string
  service_type: ServiceType
  url: string
  internal_port: number
  external_port: number
  is_qovery_domain: boolean
  is_default: boolean
}

/** The host of a service's default link: `z{first 8 hex of the id}.{SIMULATED_LINK_DOMAIN}`. */
export const defaultLinkHost = (serviceId: string): string => `z${serviceId.replaceAll('-', '').slice(0, 8).toLowerCase()}.${SIMULATED_LINK_DOMAIN}`

const SCHEMES = { HTTP: 'https', GRPC: 'https', TCP: 'tcp', UDP: 'udp' } as const
const WEB_PORT = 443

/** The service's links: the default port's first, then one per public port in the service's order. */
export function serviceLinks(service: { id: string; kind: ServiceType }, ports: readonly LinkedPort[]): ServiceLink[] {
  const label = `z${service.id.replaceAll('-', '').slice(0, 8).toLowerCase()}`
  const publicPorts = ports.filter((port) => port.publiclyAccessible)
  const link = (port: LinkedPort, host: string, isDefault: boolean): ServiceLink => {
    const scheme = SCHEMES[port.protocol]
    const externalPort = port.externalPort ?? (scheme === 'https' ? WEB_PORT : port.internalPort)
    const suffix = scheme === 'https' && externalPort === WEB_PORT ? '' : `:${externalPort}`
    return {
      service_id: service.id,
      service_type: service.kind,
      url: `${scheme}://${host}.${SIMULATED_LINK_DOMAIN}${suffix}`,
      internal_port: port.internalPort,
      external_port: externalPort,
      is_qovery_domain: true,
      is_default: isDefault,
    }
  }
  const defaultPort = publicPorts.find((port) => port.isDefault) ?? publicPorts[0]
  return [...(defaultPort ? [link(defaultPort, label, true)] : []), ...publicPorts.map((port) => link(port, `p${port.internalPort}-${label}`, false))]
}

/**
 * The links of the addresses a real engine publishes the service's public ports on
 * (service-runtime.ts): `http://host:port` for HTTP and GRPC ports (the engine serves no TLS),
 * `tcp://` and `udp://` otherwise, after the derived ones, none of them the default, and none a
 * domain of Berth's (`is_qovery_domain: false`).
 */
export function addressLinks(
  service: { id: string; kind: ServiceType },
  ports: readonly Pick<LinkedPort, 'internalPort' | 'publiclyAccessible' | 'protocol'>[],
  addresses: readonly ServiceAddress[],
): ServiceLink[] {
  const links: ServiceLink[] = []
  for (const address of addresses) {
    const port = ports.find((candidate) => candidate.publiclyAccessible && candidate.internalPort === address.internalPort)
    if (!port) continue
    const scheme = port.protocol === 'HTTP' || port.protocol === 'GRPC' ? 'http' : address.protocol.toLowerCase()
    const host = address.host.includes(':') ? `[${address.host}]` : address.host
    links.push({
      service_id: service.id,
      service_type: service.kind,
      url: `${scheme}://${host}:${address.hostPort}`,
      internal_port: address.internalPort,
      external_port: address.hostPort,
      // An address and port of the host, not a domain Berth gives (issue 42).
      is_qovery_domain: false,
      is_default: false,
    })
  }
  return links
}
