import { type Insertable, type RawBuilder, type Selectable, sql } from 'kysely'
import { type HeldRole, hasRole, ROLES } from '#src/platform/auth/roles.ts'
import type { Db } from '#src/platform/db/database.ts'
import type { ApiTokensTable } from '#src/platform/db/schema.ts'

export type ApiTokenRow = Omit<Selectable<ApiTokensTable>, 'digest'>

/** Who created a listed token: another token, a user (its name, else its email, else its subject), or neither (`berth token create`). */
export type ApiTokenCreator = { kind: 'api_token'; id: string; name: string } | { kind: 'user'; id: string; name: string } | null

export type ListedApiTokenRow = ApiTokenRow & { creator: ApiTokenCreator; customRoleName: string | null }

const COLUMNS = [
  'id',
  'organizationId',
  'name',
  'description',
  'role',
  'tokenStart',
  'createdByApiTokenId',
  'createdByUserId',
  'ownerUserId',
  'customRoleId',
  'opaPolicy',
  'createdAt',
  'updatedAt',
  'expiredAt',
  'lastUsedAt',
] as const

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`)

function apiTokenQueries(db: Db) {
  /** Deletes the tokens `roots` picks and every token minted from them, transitively; the ids of all deleted. */
  async function deleteWithMinted(roots: RawBuilder<unknown>): Promise<string[]> {
    const { rows } = await sql<{ id: string }>`
      with recursive doomed (id) as (
        select id from api_tokens where ${roots}
        union
        select t.id from api_tokens t join doomed on t.created_by_api_token_id = doomed.id
      )
      delete from api_tokens where id in (select id from doomed) returning id`.execute(db)
    return rows.map((row) => row.id)
  }

  return {
    insert(values: Insertable<ApiTokensTable>): Promise<ApiTokenRow> {
      return db.insertInto('apiTokens').values(values).returning(COLUMNS).executeTakeFirstOrThrow()
    },

    findByDigest(digest: Buffer): Promise<ApiTokenRow | undefined> {
      return db.selectFrom('apiTokens').select(COLUMNS).where('digest', '=', digest).executeTakeFirst()
    },

    findById(organizationId: string, apiTokenId: string): Promise<ApiTokenRow | undefined> {
      return db.selectFrom('apiTokens').select(COLUMNS).where('organizationId', '=', organizationId).where('id', '=', apiTokenId).executeTakeFirst()
    },

    async list(
      organizationId: string,
      filter: { name?: string; creatorName?: string; createdByApiTokenId?: string; createdByUserId?: string; policy?: boolean },
      limit: number,
    ): Promise<ListedApiTokenRow[]> {
      let query = db
        .selectFrom('apiTokens as t')
        .leftJoin('apiTokens as ct', 'ct.id', 't.createdByApiTokenId')
        .leftJoin('users as cu', 'cu.id', 't.createdByUserId')
        .leftJoin('customRoles as cr', 'cr.id', 't.customRoleId')
        .select(COLUMNS.map((c) => `t.${c}` as const))
        .select('cr.name as customRoleName')
        .select(['ct.name as creatorTokenName', 'cu.name as creatorUserName', 'cu.email as creatorUserEmail', 'cu.subject as creatorUserSubject'])
        .where('t.organizationId', '=', organizationId)
        // Policy tokens are listed apart (listOrganizationPolicyApiTokens), regular ones without them.
        .where('t.opaPolicy', filter.policy ? 'is not' : 'is', null)
      if (filter.name) query = query.where('t.name', 'ilike', `%${escapeLike(filter.name)}%`)
      if (filter.createdByApiTokenId) query = query.where('t.createdByApiTokenId', '=', filter.createdByApiTokenId)
      if (filter.createdByUserId) query = query.where('t.createdByUserId', '=', filter.createdByUserId)
      if (filter.creatorName) {
        const pattern = `%${escapeLike(filter.creatorName)}%`
        // The creator is a token or a user; a user matches by name or email.
        query = query.where((eb) =>
          eb.or([
            eb.exists(
              eb.selectFrom('apiTokens as c').select('c.id').whereRef('c.id', '=', 't.createdByApiTokenId').where('c.name', 'ilike', pattern),
            ),
            eb.exists(
              eb
                .selectFrom('users as u')
                .select('u.id')
                .whereRef('u.id', '=', 't.createdByUserId')
                .where((w) => w.or([w('u.name', 'ilike', pattern), w('u.email', 'ilike', pattern)])),
            ),
          ]),
        )
      }
      const rows = await query.orderBy('t.createdAt').orderBy('t.id').limit(limit).execute()
      return rows.map(({ creatorTokenName, creatorUserName, creatorUserEmail, creatorUserSubject, ...row }) => ({
        ...row,
        creator:
          row.createdByApiTokenId && creatorTokenName !== null
            ? { kind: 'api_token', id: row.createdByApiTokenId, name: creatorTokenName }
            : row.createdByUserId && creatorUserSubject !== null
              ? { kind: 'user', id: row.createdByUserId, name: creatorUserName ?? creatorUserEmail ?? creatorUserSubject }
              : null,
      }))
    },

    /** Lowers to `role` the organization's tokens that the user owns and that hold more. */
    /**
     * Bounds the tokens the user owns in the organization by the role it now holds there. A custom
     * role: every one of them holds that custom role. A built-in role: those above it are lowered
     * to it, and those holding a custom role (at most WRITE) too when it is below WRITE.
     */
    async capOwnedBy(organizationId: string, ownerUserId: string, held: HeldRole): Promise<void> {
      const owned = db.updateTable('apiTokens').where('organizationId', '=', organizationId).where('ownerUserId', '=', ownerUserId)
      if (held.customRoleId) {
        await owned
          .set({ role: 'READ', customRoleId: held.customRoleId, updatedAt: new Date() })
          .where((eb) => eb.or([eb('customRoleId', 'is', null), eb('customRoleId', '!=', held.customRoleId)]))
          .execute()
        return
      }
      const { role } = held
      if (!hasRole(role, 'WRITE')) {
        await owned.set({ role, customRoleId: null, updatedAt: new Date() }).where('customRoleId', 'is not', null).execute()
      }
      const above = ROLES.filter((candidate) => !hasRole(role, candidate))
      if (above.length === 0) return
      await owned.set({ role, updatedAt: new Date() }).where('customRoleId', 'is', null).where('role', 'in', above).execute()
    },

    /** Deletes the organization's tokens that the user owns, and what they minted; returns the ids of all deleted. */
    async deleteOwnedBy(organizationId: string, ownerUserId: string): Promise<string[]> {
      return deleteWithMinted(sql`organization_id = ${organizationId} and owner_user_id = ${ownerUserId}`)
    },

    /**
     * After the user's membership in an organization was lowered or removed: the tokens it owns in
     * the organizations that one manages (created by its tokens, and theirs) are lowered to the
     * role the user holds there now, and deleted, with what they minted, where it holds none. A
     * user holds ADMIN in a managed organization while it is an ADMIN member of one above it, else
     * its own membership there, if any. Returns the ids of the deleted tokens.
     */
    async boundInManaged(organizationId: string, ownerUserId: string): Promise<string[]> {
      const held = sql`
        with recursive managed (id) as (
          select id from organizations where parent_organization_id = ${organizationId}
          union
          select o.id from organizations o join managed on o.parent_organization_id = managed.id
        ),
        above (organization_id, ancestor_id) as (
          select id, parent_organization_id from organizations where id in (select id from managed)
          union
          select above.organization_id, o.parent_organization_id
          from above join organizations o on o.id = above.ancestor_id
          where o.parent_organization_id is not null
        )
        select managed.id as organization_id,
          case
            when exists (
              select 1 from above join organization_members m on m.organization_id = above.ancestor_id
              where above.organization_id = managed.id and m.user_id = ${ownerUserId} and m.role = 'ADMIN'
            ) then 'ADMIN'
            -- A custom role there bounds no token it did not mint with that role: fail closed, as none.
            else (select m.role from organization_members m
              where m.organization_id = managed.id and m.user_id = ${ownerUserId} and m.custom_role_id is null)
          end as role
        from managed`
      const { rows: deleted } = await sql<{ id: string }>`
        with recursive held as (${held}),
        doomed (id) as (
          select t.id from api_tokens t join held on held.organization_id = t.organization_id
          where t.owner_user_id = ${ownerUserId} and held.role is null
          union
          select t.id from api_tokens t join doomed on t.created_by_api_token_id = doomed.id
        )
        delete from api_tokens where id in (select id from doomed) returning id`.execute(db)
      await sql`
        with recursive held as (${held})
        update api_tokens t set role = held.role, updated_at = now()
        from held
        where held.organization_id = t.organization_id and t.owner_user_id = ${ownerUserId} and held.role is not null
          and array_position(${ROLES}::text[], t.role) > array_position(${ROLES}::text[], held.role)`.execute(db)
      return deleted.map((row) => row.id)
    },

    /**
     * Deletes the token and every token minted from it, directly or through others, in whatever
     * organization: the ids of all deleted, none when the token is not of this organization. The
     * foreign key cascades the same way; naming them here lets this process forget them at once.
     */
    async delete(organizationId: string, apiTokenId: string): Promise<string[]> {
      return deleteWithMinted(sql`organization_id = ${organizationId} and id = ${apiTokenId}`)
    },

    /**
     * Writes a batch of last-use times in one statement, never moving a time backwards, and
     * returns the ids it had to leave for later. Rows another transaction holds (a member change
     * capping its tokens, say) are skipped rather than waited for: waiting on several rows in
     * another order than that transaction could deadlock it.
     */
    async recordUsage(usages: ReadonlyMap<string, Date>): Promise<string[]> {
      if (usages.size === 0) return []
      const ids = [...usages.keys()]
      const times = [...usages.values()].map((d) => d.toISOString())
      const { rows } = await sql<{ id: string }>`
        with free as (
          select id from api_tokens where id = any(${ids}::uuid[]) order by id for no key update skip locked
        )
        update api_tokens set last_used_at = greatest(api_tokens.last_used_at, u.used_at)
        from unnest(${ids}::uuid[], ${times}::timestamptz[]) as u(id, used_at), free
        where api_tokens.id = u.id and free.id = u.id
        returning api_tokens.id`.execute(db)
      const written = new Set(rows.map((row) => row.id))
      const unwritten = ids.filter((id) => !written.has(id))
      if (unwritten.length === 0) return []
      // Of those, the tokens that still exist were locked; deleted ones are forgotten.
      const { rows: locked } = await sql<{ id: string }>`select id from api_tokens where id = any(${unwritten}::uuid[])`.execute(db)
      return locked.map((row) => row.id)
    },
  }
}

export type ApiTokenQueries = ReturnType<typeof apiTokenQueries>

export function createApiTokensRepository(db: Db) {
  return {
    ...apiTokenQueries(db),
    /** The same queries inside the caller's transaction. */
    within: (trx: Db): ApiTokenQueries => apiTokenQueries(trx),
  }
}

export type ApiTokensRepository = ReturnType<typeof createApiTokensRepository>
