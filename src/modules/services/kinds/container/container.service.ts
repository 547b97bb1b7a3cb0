import type { ServiceRecord } from '#src/modules/services/service-kinds.ts'
import type { ServicesService } from '#src/modules/services/services.service.ts'
import type { Principal } from '#src/platform/auth/principal.ts'
import type { CappedList } from '#src/platform/http/lists.ts'
import { type ContainerWrite, toContainerRecord } from './container.kind.ts'
import type { ContainerConfig, ContainerServiceRecord } from './container.types.ts'

/** The service core's operations on containers, answering container records for the container routes' wire mapping. */
export function createContainerServices(core: ServicesService) {
  const container = (service: ServiceRecord) => toContainerRecord(service as ServiceRecord<ContainerConfig>)
  return {
    /** A page of the environment's containers; `startId` continues after that one; `heldUntil` as the core's. */
    list: async (
      principal: Principal,
      environmentId: string,
      options: { startId?: string; heldUntil?: () => Promise<unknown> },
    ): Promise<CappedList<ContainerServiceRecord>> => {
      const page = await core.list(principal, environmentId, { type: 'CONTAINER', ...options })
      return { rows: page.rows.map(container), hasMore: page.hasMore }
    },
    get: async (principal: Principal, containerId: string): Promise<ContainerServiceRecord> =>
      container(await core.get(principal, 'CONTAINER', containerId)),
    create: async (principal: Principal, environmentId: string, write: ContainerWrite): Promise<ContainerServiceRecord> =>
      container(await core.create(principal, 'CONTAINER', environmentId, write)),
    /** A full replacement; `ifMatch`: the ETags If-Match accepts. */
    update: async (principal: Principal, containerId: string, write: ContainerWrite, ifMatch?: string[]): Promise<ContainerServiceRecord> =>
      container(await core.update(principal, 'CONTAINER', containerId, write, ifMatch)),
    delete: (principal: Principal, containerId: string): Promise<void> => core.delete(principal, 'CONTAINER', containerId),
  }
}

export type ContainerServices = ReturnType<typeof createContainerServices>
