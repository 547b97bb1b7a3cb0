import { type Insertable, type Kysely, type Selectable, sql, type Updateable } from 'kysely'
import type { Db } from '#src/platform/db/database.ts'
import { deleteUnlessUsed } from '#src/platform/db/delete-unless-used.ts'
import type { Database } from '#src/platform/db/schema.ts'

/** The tables of the organization's credentials: each row has a name unique in its organization and sealed secrets. */
export type CredentialTables = Pick<Database, 'gitTokens' | 'helmRepositories' | 'containerRegistries'>
export type CredentialTableName = keyof CredentialTables

/** Where one family of credentials is kept. */
export interface CredentialTable<T extends CredentialTableName, Sealed extends keyof CredentialTables[T] & string> {
  table: T
  /** Its name in SQL, as `git_tokens`. */
  sqlTable: string
  /** The column of `service_references` that points at it, as `git_token_id`. */
  referenceColumn: string
  /** The columns a row is read with: all but the sealed one. */
  columns: readonly (keyof CredentialTables[T] & string)[]
  /** The column of its sealed secrets, never read but by `findSealed`. */
  sealed: Sealed
}

/** A credential without its sealed secrets, with the number of services that use it. */
export type CredentialRow<T extends CredentialTableName, Sealed extends keyof CredentialTables[T] & string> = Omit<
  Selectable<CredentialTables[T]>,
  Sealed
> & { associatedServicesCount: number }

// The queries are the same for the three tables; Kysely cannot type a table name that is a parameter,
// so they are written over this loose view and typed again at the edges.
type Loose = Kysely<Record<string, Record<string, unknown>>>

/** The SQL of one family of credentials: lists, reads, writes, and the delete refused while services use it. */
export function createCredentialsRepository<T extends CredentialTableName, Sealed extends keyof CredentialTables[T] & string>(
  db: Db,
  family: CredentialTable<T, Sealed>,
) {
  type Row = CredentialRow<T, Sealed>
  type SealedRow = Row & { [K in Sealed]: CredentialTables[T][K] }
  const loose = db as unknown as Loose
  const table: string = family.table
  const columns: readonly string[] = family.columns
  // A service counts once even when it uses the credential twice (a helm service's chart and values).
  const servicesUsing = sql<number>`(
    select count(distinct r.service_id)::int from service_references r where r.${sql.raw(family.referenceColumn)} = ${sql.raw(family.sqlTable)}.id
  )`
  const selectUncounted = (organizationId: string) => loose.selectFrom(table).select(columns).where('organizationId', '=', organizationId)
  const selectRows = (organizationId: string) => selectUncounted(organizationId).select(servicesUsing.as('associatedServicesCount'))

  const findById = async (organizationId: string, id: string): Promise<Row | undefined> =>
    (await selectRows(organizationId).where('id', '=', id).executeTakeFirst()) as Row | undefined

  return {
    async list(organizationId: string, limit: number): Promise<Row[]> {
      return (await selectRows(organizationId).orderBy(sql`lower(name)`).orderBy('id').limit(limit).execute()) as Row[]
    },

    /** The same rows without counting their services: for choosing one on every listing of a provider. */
    async listUncounted(organizationId: string): Promise<Omit<Row, 'associatedServicesCount'>[]> {
      return (await selectUncounted(organizationId).orderBy(sql`lower(name)`).orderBy('id').execute()) as Omit<Row, 'associatedServicesCount'>[]
    },

    findById,

    async findSealed(organizationId: string, id: string): Promise<SealedRow | undefined> {
      return (await selectRows(organizationId).select(family.sealed).where('id', '=', id).executeTakeFirst()) as SealedRow | undefined
    },

    async insert(values: Insertable<CredentialTables[T]>): Promise<Row> {
      const row = await loose
        .insertInto(table)
        .values(values as Record<string, unknown>)
        .returning(columns)
        .executeTakeFirstOrThrow()
      return { ...row, associatedServicesCount: 0 } as Row
    },

    async update(organizationId: string, id: string, changes: Updateable<CredentialTables[T]>): Promise<Row | undefined> {
      const updated = await loose
        .updateTable(table)
        .set({ ...(changes as Record<string, unknown>), updatedAt: new Date() })
        .where('organizationId', '=', organizationId)
        .where('id', '=', id)
        .executeTakeFirst()
      return updated.numUpdatedRows > 0n ? findById(organizationId, id) : undefined
    },

    /** Deletes the credential unless services use it: undefined when there is none, else how many use it (0: deleted). */
    deleteUnlessUsed(organizationId: string, id: string): Promise<{ usedBy: number } | undefined> {
      return deleteUnlessUsed(loose, table, { organizationId, id }, servicesUsing)
    },
  }
}

export type CredentialsRepository<T extends CredentialTableName, Sealed extends keyof CredentialTables[T] & string> = ReturnType<
  typeof createCredentialsRepository<T, Sealed>
>
