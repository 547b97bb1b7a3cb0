import { httpsUrl, serviceHosts } from '#src/modules/executors/public-hosts.ts'
import type { LinkedPort, ServiceLink } from '#src/modules/services/service-links.ts'
import type { ServiceType } from '#src/platform/deployment-states.ts'
import type { CertificateState } from './certificate-probe.ts'

// The links of a service the front door serves (docs/front-door.md): its names, the default
// port's first (`is_default`), then its custom domains whose check passed, to the default port.

/** What links need of the front door, and how the API tells it that its routes changed. */
export interface FrontDoorLinks {
  appsDomain: string
  httpsPort: number
  sync(reason: string): Promise<void>
  /** The certificate the front door serves for a name it routes (certificate-probe.ts). */
  certificateOf(name: string): Promise<CertificateState>
}

export function frontDoorLinks(
  service: { id: string; kind: ServiceType },
  ports: readonly LinkedPort[],
  frontDoor: Pick<FrontDoorLinks, 'appsDomain' | 'httpsPort'>,
  domains: readonly string[],
): ServiceLink[] {
  const hosts = serviceHosts(service.id, ports, frontDoor.appsDomain)
  const link = (host: string, internalPort: number, isDefault: boolean, own: boolean): ServiceLink => ({
    service_id: service.id,
    service_type: service.kind,
    url: httpsUrl(host, frontDoor.httpsPort),
    internal_port: internalPort,
    external_port: frontDoor.httpsPort,
    is_qovery_domain: own,
    is_default: isDefault,
  })
  const main = hosts.find((host) => host.isDefault)
  return [
    ...hosts.map((host) => link(host.host, host.internalPort, host.isDefault, true)),
    ...(main ? domains.map((domain) => link(domain, main.internalPort, true, false)) : []),
  ]
}
