import { sql } from 'kysely'
import type { Db } from '#src/platform/db/database.ts'
import type { OrganizationRow } from './organization-rows.ts'

// The tree of organizations (an organization's tokens create the organizations it manages): its
// ancestors, the locks that follow the chain, and which organizations a user or API token reaches.

/**
 * How a transaction locks an organization's row until it ends. `change` (FOR NO KEY UPDATE) is for
 * membership changes, which then run one at a time. `use` (FOR SHARE) is for acting on a role that
 * a membership change could take away, such as minting a token: it waits for a change under way and
 * holds the next one off until it commits. Neither blocks inserting rows that reference the
 * organization (their FOR KEY SHARE locks conflict with neither), nor `use` another `use`.
 */
export type OrganizationLock = 'change' | 'use'

export function organizationTreeQueries(db: Db) {
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

    /** The topmost organization above this one, or itself: the one its tree of managed organizations hangs from. */
    async rootOf(organizationId: string): Promise<string> {
      const ancestors = await ancestorIds(organizationId)
      return ancestors.at(-1) ?? organizationId
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
  }
}
