import { sql } from 'kysely'
import { INGRESS_SETTINGS } from '#src/modules/clusters/cluster-advanced-settings.ts'
import type { CustomDomainsService } from '#src/modules/custom-domains/custom-domains.service.ts'
import type { ServiceRuntime } from '#src/modules/executors/service-runtime.ts'
import { addressLinks, type LinkedPort, type ServiceLink } from '#src/modules/services/service-links.ts'
import type { Db } from '#src/platform/db/database.ts'
import { type FrontDoorLinks, frontDoorLinks } from './front-door-links.ts'

interface Deps {
  db: Db
  customDomains: Pick<CustomDomainsService, 'withLinks' | 'servedDomains'>
  /** What a real engine says of running services; absent: the records alone (the simulator). */
  serviceRuntime?: Pick<ServiceRuntime, 'addresses'>
  /** The front door, when it runs. */
  frontDoor?: FrontDoorLinks
}

/** The links of containers and applications as they really answer (docs/front-door.md). */
export function createLiveLinks({ db, customDomains, serviceRuntime, frontDoor }: Deps) {
  /** The environment's cluster's `berth.ingress.apps_domain` (docs/front-door.md, "Kubernetes"), if it sets one. */
  const clusterAppsDomain = async (environmentId: string): Promise<string | undefined> => {
    const row = await db
      .selectFrom('environments as e')
      .innerJoin('clusters as c', 'c.id', 'e.clusterId')
      .select(sql<string | null>`c.advanced_settings ->> ${INGRESS_SETTINGS.appsDomain}`.as('appsDomain'))
      .where('e.id', '=', environmentId)
      .executeTakeFirst()
    return row?.appsDomain || undefined
  }

  /**
   * A service's links. Where an engine really runs it (Docker), only what answers: its names at the
   * front door and its custom domains whose check passed (when the front door runs and an instance
   * runs), then the addresses its instances are published on (for debugging). Elsewhere (the
   * simulator): the derived ones, then its custom domains.
   */
  return async function withLiveLinks(
    service: { organizationId: string; id: string; environmentId: string },
    kind: 'CONTAINER' | 'APPLICATION',
    ports: readonly LinkedPort[],
    links: ServiceLink[],
  ): Promise<ServiceLink[]> {
    const addresses = await serviceRuntime?.addresses(service)
    if (addresses === undefined) {
      // A Kubernetes cluster with an apps domain: the built-in chart's Ingress serves the same names, on 443.
      const appsDomain = await clusterAppsDomain(service.environmentId)
      const named = appsDomain ? frontDoorLinks({ id: service.id, kind }, ports, { appsDomain, httpsPort: 443 }, []) : links
      return customDomains.withLinks(service, named)
    }
    const published = addressLinks({ id: service.id, kind }, ports, addresses)
    if (!frontDoor || addresses.length === 0) return published
    return [...frontDoorLinks({ id: service.id, kind }, ports, frontDoor, await customDomains.servedDomains(service)), ...published]
  }
}
