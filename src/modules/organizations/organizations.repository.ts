import { type Insertable, type Selectable, sql, type Updateable } from 'kysely'
import type { Db } from '#src/platform/db/database.ts'
import { retryTransactionConflicts } from '#src/platform/db/errors.ts'
import type { OrganizationsTable } from '#src/platform/db/schema.ts'
import type { CustomRoleGrants } from './custom-role-grants.ts'

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
  /**
   * The organizations above this one, nearest first: its parent (the organization of the token
   * that created it), the parent's parent, and so on. Parents are set at creation to an
   * organization that exists then, and never changed, so the chain has no cycle.
   */
  async function ancestorIds(organizationId: string): Promise<string[]> {
    const { rows } = await sql<{ id: string }>`
      with recursive up (id, depth) as (
        select parent_organization_id, 1 from organizations where id = ${organizationId} and parent_organization_id is not null
        union all
        select o.parent_organization_id, up.depth + 1 from organizations o join up on o.id = up.id where o.parent_organization_id is not null
      )
      select id from up order by depth`.execute(db)
    return rows.map((row) => row.id)
  }

  return {
    ancestorIds,

    /**
     * Takes the lock on the organization's row, after a `use` lock on each of its ancestors; false
     * when the organization does not exist. An ADMIN of an ancestor holds ADMIN here, so a role
     * used here can be taken away by a membership change of any ancestor: holding them all makes
     * that change wait, or be waited for. The order is always the root first, then down the chain
     * to the organization itself, so that two transactions locking parts of one chain wait for
     * each other rather than deadlock.
     */
    async lock(organizationId: string, mode: OrganizationLock): Promise<boolean> {
      for (const ancestorId of (await ancestorIds(organizationId)).reverse()) {
        await db.selectFrom('organizations').select('id').where('id', '=', ancestorId).forShare().execute()
      }
      const query = db.selectFrom('organizations').select('id').where('id', '=', organizationId)
      const row = await (mode === 'change' ? query.forNoKeyUpdate() : query.forShare()).executeTakeFirst()
      return row !== undefined
    },

    /** The role an API token holds now in its own organization; undefined once it is deleted. */
    findApiTokenRole(apiTokenId: string): Promise<{ role: string; customRoleId: string | null } | undefined> {
      return db.selectFrom('apiTokens').select(['role', 'customRoleId']).where('id', '=', apiTokenId).executeTakeFirst()
    },

    /** What a custom role of the organization grants, read afresh for every check so that an edit applies at once. */
    findCustomRoleGrants(organizationId: string, customRoleId: string): Promise<CustomRoleGrants | undefined> {
      return db
        .selectFrom('customRoles')
        .select(['clusterPermissions', 'projectPermissions'])
        .where('organizationId', '=', organizationId)
        .where('id', '=', customRoleId)
        .executeTakeFirst()
    },

    /** The name of a custom role of the organization; undefined for no such role there. */
    async findCustomRoleName(organizationId: string, customRoleId: string): Promise<string | undefined> {
      const row = await db
        .selectFrom('customRoles')
        .select('name')
        .where('organizationId', '=', organizationId)
        .where('id', '=', customRoleId)
        .executeTakeFirst()
      return row?.name
    },

    /** Where an environment of the organization lies, as a custom role's permissions are given. */
    findEnvironmentScope(organizationId: string, environmentId: string): Promise<{ projectId: string; mode: string; clusterId: string } | undefined> {
      return db
        .selectFrom('environments')
        .select(['projectId', 'mode', 'clusterId'])
        .where('organizationId', '=', organizationId)
        .where('id', '=', environmentId)
        .executeTakeFirst()
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
    findWithMemberRole(
      organizationId: string,
      userId: string,
    ): Promise<(OrganizationRow & { memberRole: string | null; memberCustomRoleId: string | null }) | undefined> {
      return db
        .selectFrom('organizations as o')
        .leftJoin('organizationMembers as m', (join) => join.onRef('m.organizationId', '=', 'o.id').on('m.userId', '=', userId))
        .selectAll('o')
        .select(['m.role as memberRole', 'm.customRoleId as memberCustomRoleId'])
        .where('o.id', '=', organizationId)
        .executeTakeFirst()
    },

    /** The topmost organization above this one, or itself: the one its tree of managed organizations hangs from. */
    async rootOf(organizationId: string): Promise<string> {
      const ancestors = await ancestorIds(organizationId)
      return ancestors.at(-1) ?? organizationId
    },

    /** Whether the user is an ADMIN member of any of these organizations. */
    async isAdminOfAny(userId: string, organizationIds: string[]): Promise<boolean> {
      if (organizationIds.length === 0) return false
      const row = await db
        .selectFrom('organizationMembers')
        .select('organizationId')
        .where('userId', '=', userId)
        .where('role', '=', 'ADMIN')
        .where('organizationId', 'in', organizationIds)
        .executeTakeFirst()
      return row !== undefined
    },

    /** How many organizations this one manages directly (created by its tokens): it cannot be deleted before them. */
    async countManaged(organizationId: string): Promise<number> {
      const { count } = await db
        .selectFrom('organizations')
        .select((eb) => eb.fn.countAll<string>().as('count'))
        .where('parentOrganizationId', '=', organizationId)
        .executeTakeFirstOrThrow()
      return Number(count)
    },

    /** The organizations a user is a member of, and those that the ones it is an ADMIN of manage (transitively). */
    async listForUser(userId: string, limit: number): Promise<OrganizationRow[]> {
      const { rows } = await sql<OrganizationRow>`
        with recursive managed (id) as (
          select o.id from organizations o
          join organization_members m on m.organization_id = o.parent_organization_id and m.user_id = ${userId} and m.role = 'ADMIN'
          union
          select o.id from organizations o join managed on o.parent_organization_id = managed.id
        )
        select o.* from organizations o
        where o.id in (select organization_id from organization_members where user_id = ${userId}) or o.id in (select id from managed)
        order by o.created_at, o.id
        limit ${limit}`.execute(db)
      return rows
    },

    /**
     * The organizations an API token may act in: its own and, for an ADMIN token, those its
     * organization manages (created by its tokens, and by theirs).
     */
    async listForApiToken(homeOrganizationId: string, role: string, limit: number): Promise<OrganizationRow[]> {
      const { rows } = await sql<OrganizationRow>`
        with recursive managed (id) as (
          select id from organizations where parent_organization_id = ${homeOrganizationId} and ${role} = 'ADMIN'
          union
          select o.id from organizations o join managed on o.parent_organization_id = managed.id
        )
        select o.* from organizations o
        where o.id = ${homeOrganizationId} or o.id in (select id from managed)
        order by o.created_at, o.id
        limit ${limit}`.execute(db)
      return rows
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
          const organization = await trx.selectFrom('organizations').select('id').where('id', '=', organizationId).forUpdate().executeTakeFirst()
          if (!organization) return undefined
          await trx.selectFrom('projects').select('id').where('organizationId', '=', organizationId).orderBy('id').forUpdate().execute()
          const environments = await trx
            .selectFrom('environments')
            .select('id')
            .where('organizationId', '=', organizationId)
            .orderBy('id')
            .forUpdate()
            .execute()
          const result = await trx.deleteFrom('organizations').where('id', '=', organizationId).executeTakeFirst()
          return result.numDeletedRows > 0n ? { environmentIds: environments.map((row) => row.id) } : undefined
        }),
      )
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
