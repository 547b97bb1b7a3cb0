import { type Insertable, type Selectable, sql, type Updateable } from 'kysely'
import type { Db } from '#src/platform/db/database.ts'
import type { OrganizationsTable } from '#src/platform/db/schema.ts'

export type OrganizationRow = Selectable<OrganizationsTable>
export type NewOrganization = Insertable<OrganizationsTable>
export type OrganizationChanges = Updateable<OrganizationsTable>

/**
 * How a transaction locks an organization's row until it ends. `change` (FOR NO KEY UPDATE) is for
 * membership changes, which then run one at a time. `use` (FOR SHARE) is for acting on a role that
 * a membership change could take away, such as minting a token: it waits for a change under way and
 * holds the next one off until it commits. Neither blocks inserting rows that reference the
 * organization (their FOR KEY SHARE locks conflict with neither), nor `use` another `use`.
 */
export type OrganizationLock = 'change' | 'use'

function organizationQueries(db: Db) {
  return {
    /** Takes the lock on the organization's row; false when the organization does not exist. */
    async lock(organizationId: string, mode: OrganizationLock): Promise<boolean> {
      const query = db.selectFrom('organizations').select('id').where('id', '=', organizationId)
      const row = await (mode === 'change' ? query.forNoKeyUpdate() : query.forShare()).executeTakeFirst()
      return row !== undefined
    },

    /** The role an API token holds now in its own organization; undefined once it is deleted. */
    async findApiTokenRole(apiTokenId: string): Promise<string | undefined> {
      const row = await db.selectFrom('apiTokens').select('role').where('id', '=', apiTokenId).executeTakeFirst()
      return row?.role
    },

    findById(organizationId: string): Promise<OrganizationRow | undefined> {
      return db.selectFrom('organizations').selectAll().where('id', '=', organizationId).executeTakeFirst()
    },

    /**
     * Names are compared by PostgreSQL's lower(), as the unique index `organizations_name_key` does,
     * never by JavaScript's: the two disagree on letters such as the Turkish İ.
     */
    findByName(name: string): Promise<OrganizationRow | undefined> {
      return db
        .selectFrom('organizations')
        .selectAll()
        .where((eb) => eb(eb.fn('lower', ['name']), '=', eb.fn('lower', [eb.val(name)])))
        .executeTakeFirst()
    },

    /** The organization with the user's role in it; `memberRole` is null when the user is no member. */
    findWithMemberRole(organizationId: string, userId: string): Promise<(OrganizationRow & { memberRole: string | null }) | undefined> {
      return db
        .selectFrom('organizations as o')
        .leftJoin('organizationMembers as m', (join) => join.onRef('m.organizationId', '=', 'o.id').on('m.userId', '=', userId))
        .selectAll('o')
        .select('m.role as memberRole')
        .where('o.id', '=', organizationId)
        .executeTakeFirst()
    },

    /** The organizations a user is a member of. */
    listForUser(userId: string): Promise<OrganizationRow[]> {
      return db
        .selectFrom('organizations as o')
        .innerJoin('organizationMembers as m', 'm.organizationId', 'o.id')
        .selectAll('o')
        .where('m.userId', '=', userId)
        .orderBy('o.createdAt')
        .orderBy('o.id')
        .execute()
    },

    /** The organizations an API token may act in: its own and those it created. */
    listForApiToken(apiTokenId: string, homeOrganizationId: string): Promise<OrganizationRow[]> {
      return db
        .selectFrom('organizations')
        .selectAll()
        .where((eb) => eb.or([eb('id', '=', homeOrganizationId), eb('creatorApiTokenId', '=', apiTokenId)]))
        .orderBy('createdAt')
        .orderBy('id')
        .execute()
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
      return inserted ?? (await this.findByName(values.name))!
    },

    update(organizationId: string, changes: OrganizationChanges): Promise<OrganizationRow | undefined> {
      return db
        .updateTable('organizations')
        .set({ ...changes, updatedAt: new Date() })
        .where('id', '=', organizationId)
        .returningAll()
        .executeTakeFirst()
    },

    async delete(organizationId: string): Promise<boolean> {
      const result = await db.deleteFrom('organizations').where('id', '=', organizationId).executeTakeFirst()
      return result.numDeletedRows > 0n
    },
  }
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
