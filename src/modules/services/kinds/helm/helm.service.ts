import type { ServiceRecord } from '#src/modules/services/service-kinds.ts'
import type { ServicesService } from '#src/modules/services/services.service.ts'
import type { Principal } from '#src/platform/auth/principal.ts'
import type { CappedList } from '#src/platform/http/lists.ts'
import { type HelmWrite, toHelmRecord } from './helm.kind.ts'
import type { HelmConfig, HelmServiceRecord } from './helm.types.ts'

/** The service core's operations on helm services, answering helm records for the helm routes' wire mapping. */
export function createHelmServices(core: ServicesService) {
  const helm = (service: ServiceRecord) => toHelmRecord(service as ServiceRecord<HelmConfig>)
  return {
    /** A page of the environment's helm services; `startId` continues after that one; `heldUntil` as the core's. */
    list: async (
      principal: Principal,
      environmentId: string,
      options: { startId?: string; heldUntil?: () => Promise<unknown> },
    ): Promise<CappedList<HelmServiceRecord>> => {
      const page = await core.list(principal, environmentId, { type: 'HELM', ...options })
      return { rows: page.rows.map(helm), hasMore: page.hasMore }
    },
    get: async (principal: Principal, helmId: string): Promise<HelmServiceRecord> => helm(await core.get(principal, 'HELM', helmId)),
    create: async (principal: Principal, environmentId: string, write: HelmWrite): Promise<HelmServiceRecord> =>
      helm(await core.create(principal, 'HELM', environmentId, write)),
    /** A full replacement; `ifMatch`: the ETags If-Match accepts. */
    update: async (principal: Principal, helmId: string, write: HelmWrite, ifMatch?: string[]): Promise<HelmServiceRecord> =>
      helm(await core.update(principal, 'HELM', helmId, write, ifMatch)),
    delete: (principal: Principal, helmId: string): Promise<void> => core.delete(principal, 'HELM', helmId),
  }
}

export type HelmServices = ReturnType<typeof createHelmServices>
