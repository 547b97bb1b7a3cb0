import { defaultPortHost } from '#src/modules/executors/public-hosts.ts'
import type { AnyKindDescriptor } from '#src/modules/services/kind-descriptor.ts'
import type { ServiceRecord } from '#src/modules/services/service-kinds.ts'

// The host a custom domain of a service must point at: its kind's validation domain, or, with a
// front door, the service's own name there for a container or an application (docs/front-door.md).

export function validationDomainOf(kinds: readonly AnyKindDescriptor[], frontDoorAppsDomain: string | undefined) {
  return (service: ServiceRecord): string => {
    if (frontDoorAppsDomain !== undefined && (service.kind === 'CONTAINER' || service.kind === 'APPLICATION'))
      return defaultPortHost(service.id, frontDoorAppsDomain)
    const domains = kinds.find((descriptor) => descriptor.kind.type === service.kind)?.features.customDomains
    if (!domains) throw new Error(`${service.kind.toLowerCase()} services have no custom domains`)
    return domains.validationDomain(service)
  }
}
