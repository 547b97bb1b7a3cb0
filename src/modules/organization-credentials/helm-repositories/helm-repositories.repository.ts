import { type Insertable, type Selectable, sql, type Updateable } from 'kysely'
import type { Db } from '#src/platform/db/database.ts'
import type { HelmRepositoriesTable } from '#src/platform/db/schema.ts'

/** A helm repository without its sealed secrets, with the number of helm services that use it. */
export type HelmRepositoryRow = Omit<Selectable<HelmRepositoriesTable>, 'secretsSealed'> & { associatedServicesCount: number }

const COLUMNS = ['id', 'organizationId', 'name', 'kind', 'description', 'url', 'skipTlsVerification', 'config', 'createdAt', 'updatedAt'] as const

const servicesUsingRepository = sql<number>`(select count(distinct r.service_id)::int from service_references r where r.helm_repository_id = helm_repositories.id)`

export function createHelmRepositoriesRepository(db: Db) {
  const selectRows = (organizationId: string) =>
    db
      .selectFrom('helmRepositories')
      .select(COLUMNS)
      .select(servicesUsingRepository.as('associatedServicesCount'))
      .where('organizationId', '=', organizationId)

  const findById = (organizationId: string, helmRepositoryId: string): Promise<HelmRepositoryRow | undefined> =>
    selectRows(organizationId).where('id', '=', helmRepositoryId).executeTakeFirst()

  return {
    list(organizationId: string, limit: number): Promise<HelmRepositoryRow[]> {
      return selectRows(organizationId).orderBy(sql`lower(name)`).orderBy('id').limit(limit).execute()
    },

    findById,

    findSealed(organizationId: string, helmRepositoryId: string): Promise<(HelmRepositoryRow & { secretsSealed: Buffer | null }) | undefined> {
      return selectRows(organizationId).select('secretsSealed').where('id', '=', helmRepositoryId).executeTakeFirst()
    },

    async insert(values: Insertable<HelmRepositoriesTable>): Promise<HelmRepositoryRow> {
      const row = await db.insertInto('helmRepositories').values(values).returning(COLUMNS).executeTakeFirstOrThrow()
      return { ...row, associatedServicesCount: 0 }
    },

    async update(
      organizationId: string,
      helmRepositoryId: string,
      changes: Updateable<HelmRepositoriesTable>,
    ): Promise<HelmRepositoryRow | undefined> {
      const updated = await db
        .updateTable('helmRepositories')
        .set({ ...changes, updatedAt: new Date() })
        .where('organizationId', '=', organizationId)
        .where('id', '=', helmRepositoryId)
        .executeTakeFirst()
      return updated.numUpdatedRows > 0n ? findById(organizationId, helmRepositoryId) : undefined
    },

    /**
     * Deletes the repository unless helm services use it: undefined when there is no such
     * repository, else how many services use it (0: deleted). Race-free as for git tokens: the
     * lock waits for a service being saved with it, and one saved afterwards fails its foreign key.
     */
    deleteUnlessUsed(organizationId: string, helmRepositoryId: string): Promise<{ usedBy: number } | undefined> {
      return db.transaction().execute(async (trx) => {
        const repository = trx.selectFrom('helmRepositories').where('organizationId', '=', organizationId).where('id', '=', helmRepositoryId)
        if (!(await repository.select('id').forUpdate().executeTakeFirst())) return undefined
        // A new statement after the lock, so that it sees services committed while it waited.
        const { usedBy } = await repository.select(servicesUsingRepository.as('usedBy')).executeTakeFirstOrThrow()
        if (usedBy === 0) {
          await trx.deleteFrom('helmRepositories').where('organizationId', '=', organizationId).where('id', '=', helmRepositoryId).execute()
        }
        return { usedBy }
      })
    },
  }
}

export type HelmRepositoriesRepository = ReturnType<typeof createHelmRepositoriesRepository>
