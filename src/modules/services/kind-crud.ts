import type { Principal } from '#src/platform/auth/principal.ts'
import type { AnyKindDescriptor, EditHooks, KindCrudService, KindDescriptor, RecordLookups } from './kind-descriptor.ts'
import type { KindSchedule, ServiceRecord } from './service-kinds.ts'
import type { ServicesService } from './services.service.ts'

export function createKindCrud<Rec extends { entityTag: string }, Write>(
  core: ServicesService,
  descriptor: KindDescriptor<Rec, Write>,
  lookups: RecordLookups & EditHooks & Pick<KindCrudsDeps, 'deleteInstalled'>,
): KindCrudService<Rec, Write> {
  const { kind } = descriptor
  const records = async (services: ServiceRecord[]) =>
    descriptor.records ? descriptor.records(services, lookups) : services.map((service) => descriptor.toRecord(service))
  const one = async (service: ServiceRecord) => (await records([service]))[0]!
  return {
    async list(principal, environmentId, options) {
      const page = await core.list(principal, environmentId, { type: kind.type, ...options })
      return { rows: await records(page.rows), hasMore: page.hasMore }
    },
    get: async (principal, serviceId) => one(await core.get(principal, kind.type, serviceId)),
    create: async (principal, environmentId, write) => one(await core.create(principal, kind.type, environmentId, write)),
    async update(principal, serviceId, write, ifMatch) {
      const updated = await one(await core.update(principal, kind.type, serviceId, write, ifMatch))
      await descriptor.afterEdit?.(updated, lookups)
      return updated
    },
    /** `overrides`: what the delete asks of the deployment that uninstalls the service first (a terraform's SKIP_DESTROY). */
    async delete(principal, serviceId, overrides) {
      const { service } = await core.requireService(principal, serviceId, 'WRITE', kind.type)
      if ((await lookups.deleteInstalled(principal, service, overrides)) !== 'nothing') return
      await core.deleteRecord(service)
    },
  }
}

export interface KindCrudsDeps extends RecordLookups {
  /**
   * The triggers' delete of an installed service: it queues the deployment that uninstalls it (a
   * job's on_delete runs), which takes the service away when it succeeds; 'nothing' when nothing of
   * it is installed, and the row is then deleted at once.
   */
  deleteInstalled(principal: Principal, service: ServiceRecord, overrides?: object): Promise<unknown>
  /** The queue's cron schedules: a scheduled kind's edit puts its new schedule there. */
  reschedule(serviceId: string, schedule: KindSchedule, configuration: unknown): Promise<void>
}

/** Every kind's create, read, edit and delete, made once; `kindServices` hands a kind its own. */
export function createKindCruds(core: ServicesService, descriptors: readonly AnyKindDescriptor[], deps: KindCrudsDeps) {
  const cruds = new Map(
    descriptors.map((descriptor) => [
      descriptor.kind.type,
      createKindCrud(core, descriptor, {
        deployedOverrides: deps.deployedOverrides,
        deleteInstalled: deps.deleteInstalled,
        reschedule: async (serviceId, configuration) => {
          if (descriptor.kind.schedule) await deps.reschedule(serviceId, descriptor.kind.schedule, configuration)
        },
      }),
    ]),
  )
  return <Rec, Write>(descriptor: KindDescriptor<Rec & { entityTag: string }, Write>) =>
    cruds.get(descriptor.kind.type) as KindCrudService<Rec & { entityTag: string }, Write>
}
