import { type Insertable, type Selectable, sql } from 'kysely'
import { hasRole, ROLES, type Role } from '#src/platform/auth/roles.ts'
import type { Db } from '#src/platform/db/database.ts'
import type { ApiTokensTable } from '#src/platform/db/schema.ts'

export type ApiTokenRow = Omit<Selectable<ApiTokensTable>, 'digest'>

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
  'createdAt',
  'updatedAt',
  'expiredAt',
  'lastUsedAt',
] as const

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`)

function apiTokenQueries(db: Db) {
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

    list(
      organizationId: string,
      filter: { name?: string; creatorName?: string; createdByApiTokenId?: string; createdByUserId?: string },
    ): Promise<ApiTokenRow[]> {
      let query = db
        .selectFrom('apiTokens as t')
        .select(COLUMNS.map((c) => `t.${c}` as const))
        .where('t.organizationId', '=', organizationId)
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
      return query.orderBy('t.createdAt').orderBy('t.id').execute()
    },

    /** Lowers to `role` the organization's tokens that the user owns and that hold more. */
    async capOwnedBy(organizationId: string, ownerUserId: string, role: Role): Promise<void> {
      const above = ROLES.filter((held) => !hasRole(role, held))
      if (above.length === 0) return
      await db
        .updateTable('apiTokens')
        .set({ role, updatedAt: new Date() })
        .where('organizationId', '=', organizationId)
        .where('ownerUserId', '=', ownerUserId)
        .where('role', 'in', above)
        .execute()
    },

    /** Deletes the organization's tokens that the user owns. */
    async deleteOwnedBy(organizationId: string, ownerUserId: string): Promise<void> {
      await db.deleteFrom('apiTokens').where('organizationId', '=', organizationId).where('ownerUserId', '=', ownerUserId).execute()
    },

    async delete(organizationId: string, apiTokenId: string): Promise<boolean> {
      const result = await db.deleteFrom('apiTokens').where('organizationId', '=', organizationId).where('id', '=', apiTokenId).executeTakeFirst()
      return result.numDeletedRows > 0n
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
