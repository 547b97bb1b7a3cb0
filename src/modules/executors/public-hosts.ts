// The names a service's public web ports are served at, by the front door on Docker and by the
// Ingress of the chart Berth ships on Kubernetes (docs/front-door.md, "Names"): derived from the service's id alone, so that they never change for the life of the service
// (redeploys, stops and starts, renames, a restarted Berth):
//   - `z{first 8 hex of the id}.{apps domain}` for its default port (the port marked is_default,
//     else its first public one);
//   - `p{internal port}-z{first 8 hex of the id}.{apps domain}` for every public web port.

/** The part of a service's names its id gives: `z` and the first 8 hex digits. */
const serviceLabel = (serviceId: string) => `z${serviceId.replaceAll('-', '').slice(0, 8).toLowerCase()}`

/** The name of the service's default port. */
export const defaultPortHost = (serviceId: string, appsDomain: string) => `${serviceLabel(serviceId)}.${appsDomain}`

/** The name of one of its public ports. */
export const portHost = (serviceId: string, internalPort: number, appsDomain: string) => `p${internalPort}-${serviceLabel(serviceId)}.${appsDomain}`

/** Names under `.localhost` never leave the machine (RFC 6761): a cluster without an apps domain serves these, and links show them. */
export const SIMULATED_LINK_DOMAIN = 'berth.localhost'

/** A public web port of a service as the front door routes it. */
export interface FrontDoorPort {
  internalPort: number
  publiclyAccessible: boolean
  isDefault: boolean
  protocol: 'HTTP' | 'GRPC' | 'TCP' | 'UDP'
}

/** Only HTTP and gRPC ports go through the front door (it speaks HTTP); TCP and UDP ports stay published. */
export const isWebPort = (port: FrontDoorPort) => port.publiclyAccessible && (port.protocol === 'HTTP' || port.protocol === 'GRPC')

/** Each host name of the service with the internal port it leads to: the default port's first. */
export function serviceHosts(
  serviceId: string,
  ports: readonly FrontDoorPort[],
  appsDomain: string,
): { host: string; internalPort: number; isDefault: boolean }[] {
  const web = ports.filter(isWebPort)
  const defaultPort = web.find((port) => port.isDefault) ?? web[0]
  return [
    ...(defaultPort ? [{ host: defaultPortHost(serviceId, appsDomain), internalPort: defaultPort.internalPort, isDefault: true }] : []),
    ...web.map((port) => ({ host: portHost(serviceId, port.internalPort, appsDomain), internalPort: port.internalPort, isDefault: false })),
  ]
}

/** `https://host`, with the port unless it is 443. */
export const httpsUrl = (host: string, httpsPort: number) => (httpsPort === 443 ? `https://${host}` : `https://${host}:${httpsPort}`)
