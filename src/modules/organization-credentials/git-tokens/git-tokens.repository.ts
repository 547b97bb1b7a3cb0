import { type Insertable, type Selectable, sql, type Updateable } from 'kysely'
import type { Db } from '#src/platform/db/database.ts'
import type { GitTokensTable } from '#src/platform/db/schema.ts'

/** A git token without its sealed secret, with the number of helm services that use it. */
export type GitTokenRow = Omit<Selectable<GitTokensTable>, 'tokenSealed'> & { associatedServicesCount: number }

const COLUMNS = ['id', 'organizationId', 'name', 'description', 'type', 'workspace', 'gitApiUrl', 'expiredAt', 'createdAt', 'updatedAt'] as const

// A helm service counts once even when it uses the token for both its chart and its values.
const servicesUsingToken = sql<number>`(
  select count(distinct r.service_id)::int from service_references r where r.git_token_id = git_tokens.id
)`

export function createGitTokensRepository(db: Db) {
  const selectUncounted = (organizationId: string) => db.selectFrom('gitTokens').select(COLUMNS).where('organizationId', '=', organizationId)
  const selectRows = (organizationId: string) => selectUncounted(organizationId).select(servicesUsingToken.as('associatedServicesCount'))

  const findById = (organizationId: string, gitTokenId: string): Promise<GitTokenRow | undefined> =>
    selectRows(organizationId).where('id', '=', gitTokenId).executeTakeFirst()

  return {
    list(organizationId: string, limit: number): Promise<GitTokenRow[]> {
      return selectRows(organizationId).orderBy(sql`lower(name)`).orderBy('id').limit(limit).execute()
    },

    /** The same tokens without counting their services: for choosing one on every branch listing. */
    listUncounted(organizationId: string): Promise<Omit<GitTokenRow, 'associatedServicesCount'>[]> {
      return selectUncounted(organizationId).orderBy(sql`lower(name)`).orderBy('id').execute()
    },

    findById,

    findSealed(organizationId: string, gitTokenId: string): Promise<(GitTokenRow & { tokenSealed: Buffer }) | undefined> {
      return selectRows(organizationId).select('tokenSealed').where('id', '=', gitTokenId).executeTakeFirst()
    },

    async insert(values: Insertable<GitTokensTable>): Promise<GitTokenRow> {
      const row = await db.insertInto('gitTokens').values(values).returning(COLUMNS).executeTakeFirstOrThrow()
      return { ...row, associatedServicesCount: 0 }
    },

    async update(organizationId: string, gitTokenId: string, changes: Updateable<GitTokensTable>): Promise<GitTokenRow | undefined> {
      const updated = await db
        .updateTable('gitTokens')
        .set({ ...changes, updatedAt: new Date() })
        .where('organizationId', '=', organizationId)
        .where('id', '=', gitTokenId)
        .executeTakeFirst()
      return updated.numUpdatedRows > 0n ? findById(organizationId, gitTokenId) : undefined
    },

    /**
     * Deletes the token unless helm services use it: undefined when there is no such token, else
     * how many services use it (0: deleted). Race-free: a service being saved with this token holds
     * a key share lock on it, so the lock waits for it; one saved after the lock fails its foreign key.
     */
    deleteUnlessUsed(organizationId: string, gitTokenId: string): Promise<{ usedBy: number } | undefined> {
      return db.transaction().execute(async (trx) => {
        const token = trx.selectFrom('gitTokens').where('organizationId', '=', organizationId).where('id', '=', gitTokenId)
        if (!(await token.select('id').forUpdate().executeTakeFirst())) return undefined
        // A new statement after the lock, so that it sees services committed while it waited.
        const { usedBy } = await token.select(servicesUsingToken.as('usedBy')).executeTakeFirstOrThrow()
        if (usedBy === 0) await trx.deleteFrom('gitTokens').where('organizationId', '=', organizationId).where('id', '=', gitTokenId).execute()
        return { usedBy }
      })
    },
  }
}

export type GitTokensRepository = ReturnType<typeof createGitTokensRepository>
