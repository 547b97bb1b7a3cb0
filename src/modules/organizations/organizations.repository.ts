import { sql } from 'kysely'
import type { Db } from '#src/platform/db/database.ts'
import { retryTransactionConflicts } from '#src/platform/db/errors.ts'
import { deleteRows, lockRow, lockRows } from '#src/platform/db/rows-by-keys.ts'
import { organizationAccessQueries } from './organization-access-queries.ts'
import type { NewOrganization, OrganizationChanges, OrganizationRow } from './organization-rows.ts'
import { organizationTreeQueries } from './organization-tree-queries.ts'

export type { NewOrganization, OrganizationChanges, OrganizationRow } from './organization-rows.ts'
export type { OrganizationLock } from './organization-tree-queries.ts'

/** The organizations' own rows: found, inserted, edited and deleted. */
function organizationRowQueries(db: Db) {
  /**
   * Names are compared by PostgreSQL's lower(), as the unique index `organizations_name_key` does,
   * never by JavaScript's: the two disagree on letters such as the Turkish İ.
   */
  function findByName(name: string): Promise<OrganizationRow | undefined> {
    return db
      .selectFrom('organizations')
      .selectAll()
      .where((eb) => eb(eb.fn('lower', ['name']), '=', eb.fn('lower', [eb.val(name)])))
      .executeTakeFirst()
  }

  return {
    findByName,

    findById(organizationId: string): Promise<OrganizationRow | undefined> {
      return db.selectFrom('organizations').selectAll().where('id', '=', organizationId).executeTakeFirst()
    },

    insert(values: NewOrganization): Promise<OrganizationRow> {
      return db.insertInto('organizations').values(values).returningAll().executeTakeFirstOrThrow()
    },

    /** Inserts unless an organization of that name exists; returns the one that now exists. */
    async insertOrFind(values: NewOrganization): Promise<OrganizationRow> {
      const inserted = await db
        .insertInto('organizations')
        .values(values)
        .onConflict((oc) => oc.expression(sql`lower(name)`).doNothing())
        .returningAll()
        .executeTakeFirst()
      return inserted ?? (await findByName(values.name))!
    },

    update(organizationId: string, changes: OrganizationChanges): Promise<OrganizationRow | undefined> {
      return db
        .updateTable('organizations')
        .set({ ...changes, updatedAt: new Date() })
        .where('id', '=', organizationId)
        .returningAll()
        .executeTakeFirst()
    },

    /**
     * Deletes the organization and, by cascade, everything in it, in one transaction that first
     * locks the organization, then its projects, then its environments, each in id order: the
     * order project and environment deletes take them too, so that deletes racing each other wait
     * instead of deadlocking. A deadlock with another writer is retried.
     */
    /** The ids of the environments that went with it; undefined when there was no such organization. */
    delete(organizationId: string): Promise<{ environmentIds: string[] } | undefined> {
      return retryTransactionConflicts(() =>
        db.transaction().execute(async (trx) => {
          if (!(await lockRow(trx, 'organizations', { id: organizationId }))) return undefined
          await lockRows(trx, 'projects', { organizationId })
          const environmentIds = await lockRows(trx, 'environments', { organizationId })
          return (await deleteRows(trx, 'organizations', { id: organizationId })) ? { environmentIds } : undefined
        }),
      )
    },
  }
}

/** Every query of the organizations, over the database or bound to one transaction. */
function organizationQueries(db: Db) {
  return { ...organizationTreeQueries(db), ...organizationAccessQueries(db), ...organizationRowQueries(db) }
}

export type OrganizationQueries = ReturnType<typeof organizationQueries>

export function createOrganizationsRepository(db: Db) {
  return {
    ...organizationQueries(db),

    /** Creates an organization with the user as its first ADMIN member, in one transaction. */
    insertWithAdmin(values: NewOrganization, userId: string): Promise<OrganizationRow> {
      // The first membership is written here, not through the members module, because it must
      // commit with the organization: an organization without it would be out of everyone's reach.
      return db.transaction().execute(async (trx) => {
        const organization = await trx.insertInto('organizations').values(values).returningAll().executeTakeFirstOrThrow()
        await trx.insertInto('organizationMembers').values({ organizationId: organization.id, userId, role: 'ADMIN' }).execute()
        return organization
      })
    },

    /** Runs `work` in one transaction, with the queries bound to it; `trx` is for other modules' repositories. */
    transaction<T>(work: (queries: OrganizationQueries, trx: Db) => Promise<T>): Promise<T> {
      return db.transaction().execute((trx) => work(organizationQueries(trx), trx))
    },
  }
}

export type OrganizationsRepository = ReturnType<typeof createOrganizationsRepository>
