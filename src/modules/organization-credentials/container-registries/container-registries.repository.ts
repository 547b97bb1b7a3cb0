import { type Insertable, type Selectable, sql, type Updateable } from 'kysely'
import type { Db } from '#src/platform/db/database.ts'
import type { ContainerRegistriesTable } from '#src/platform/db/schema.ts'

/** A container registry without its sealed secrets, with the number of services that use it. */
export type ContainerRegistryRow = Omit<Selectable<ContainerRegistriesTable>, 'secretsSealed'> & { associatedServicesCount: number }

const COLUMNS = ['id', 'organizationId', 'name', 'kind', 'description', 'url', 'config', 'createdAt', 'updatedAt'] as const

const servicesUsingRegistry = sql<number>`(select count(distinct r.service_id)::int from service_references r where r.container_registry_id = container_registries.id)`

export function createContainerRegistriesRepository(db: Db) {
  const selectRows = (organizationId: string) =>
    db
      .selectFrom('containerRegistries')
      .select(COLUMNS)
      .select(servicesUsingRegistry.as('associatedServicesCount'))
      .where('organizationId', '=', organizationId)

  const findById = (organizationId: string, containerRegistryId: string): Promise<ContainerRegistryRow | undefined> =>
    selectRows(organizationId).where('id', '=', containerRegistryId).executeTakeFirst()

  return {
    /** The services that use the registry, with their environment and project, by name; the registry's organization only. */
    listAssociatedServices(organizationId: string, containerRegistryId: string, limit: number) {
      return db
        .selectFrom('serviceReferences as r')
        .innerJoin('services as s', 's.id', 'r.serviceId')
        .innerJoin('environments as e', 'e.id', 's.environmentId')
        .innerJoin('projects as p', 'p.id', 'e.projectId')
        .where('r.containerRegistryId', '=', containerRegistryId)
        .where('s.organizationId', '=', organizationId)
        .select([
          'p.id as projectId',
          'p.name as projectName',
          'e.id as environmentId',
          'e.name as environmentName',
          's.id as serviceId',
          's.name as serviceName',
          's.kind as serviceKind',
          sql<string | null>`s.configuration->>'jobType'`.as('jobType'),
        ])
        .distinct()
        .orderBy('p.name')
        .orderBy('e.name')
        .orderBy('s.name')
        .orderBy('s.id')
        .limit(limit)
        .execute()
    },

    list(organizationId: string, limit: number): Promise<ContainerRegistryRow[]> {
      return selectRows(organizationId).orderBy(sql`lower(name)`).orderBy('id').limit(limit).execute()
    },

    findById,

    findSealed(organizationId: string, containerRegistryId: string): Promise<(ContainerRegistryRow & { secretsSealed: Buffer | null }) | undefined> {
      return selectRows(organizationId).select('secretsSealed').where('id', '=', containerRegistryId).executeTakeFirst()
    },

    async insert(values: Insertable<ContainerRegistriesTable>): Promise<ContainerRegistryRow> {
      const row = await db.insertInto('containerRegistries').values(values).returning(COLUMNS).executeTakeFirstOrThrow()
      return { ...row, associatedServicesCount: 0 }
    },

    async update(
      organizationId: string,
      containerRegistryId: string,
      changes: Updateable<ContainerRegistriesTable>,
    ): Promise<ContainerRegistryRow | undefined> {
      const updated = await db
        .updateTable('containerRegistries')
        .set({ ...changes, updatedAt: new Date() })
        .where('organizationId', '=', organizationId)
        .where('id', '=', containerRegistryId)
        .executeTakeFirst()
      return updated.numUpdatedRows > 0n ? findById(organizationId, containerRegistryId) : undefined
    },

    /**
     * Deletes the registry unless services use it: undefined when there is no such
     * registry, else how many services use it (0: deleted). Race-free as for git tokens: the
     * lock waits for a service being saved with it, and one saved afterwards fails its foreign key.
     */
    deleteUnlessUsed(organizationId: string, containerRegistryId: string): Promise<{ usedBy: number } | undefined> {
      return db.transaction().execute(async (trx) => {
        const registry = trx.selectFrom('containerRegistries').where('organizationId', '=', organizationId).where('id', '=', containerRegistryId)
        if (!(await registry.select('id').forUpdate().executeTakeFirst())) return undefined
        // A new statement after the lock, so that it sees services committed while it waited.
        const { usedBy } = await registry.select(servicesUsingRegistry.as('usedBy')).executeTakeFirstOrThrow()
        if (usedBy === 0) {
          await trx.deleteFrom('containerRegistries').where('organizationId', '=', organizationId).where('id', '=', containerRegistryId).execute()
        }
        return { usedBy }
      })
    },
  }
}

export type ContainerRegistriesRepository = ReturnType<typeof createContainerRegistriesRepository>
