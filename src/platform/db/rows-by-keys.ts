import type { Kysely, Selectable, Transaction, Updateable } from 'kysely'

// Statements on the row of a table picked by equal keys, as `{ organizationId, id }`. Kysely cannot
// type a table name that is a parameter, so they are written over this loose view; the caller's
// table and keys are typed at the signatures.

export type Loose = Kysely<Record<string, Record<string, unknown>>>

/**
 * A database or a transaction on it. Named apart because TypeScript 5 infers `DB` from a
 * Transaction<DB> given where a Kysely<DB> is asked as an index signature of every table, and then
 * refuses the call; from this union it infers the database itself.
 */
export type Queryable<DB> = Kysely<DB> | Transaction<DB>

/** The keys of a row of `DB[T]`: some of its columns, each with the value it must equal. */
export type RowKeys<DB, T extends keyof DB> = Partial<Selectable<DB[T]>>

/** `query` narrowed to the rows whose columns equal `keys`; no keys is a mistake (it would pick every row), and throws. */
export function whereKeys<Q extends { where(column: string, op: '=', value: unknown): Q }>(query: Q, keys: object): Q {
  if (Object.keys(keys).length === 0) throw new Error('no keys to pick a row by')
  let narrowed = query
  for (const [column, value] of Object.entries(keys)) narrowed = narrowed.where(column, '=', value)
  return narrowed
}

/** Whether `table` has a row with these keys. */
export async function hasRow<DB, T extends keyof DB & string>(db: Queryable<DB>, table: T, keys: RowKeys<DB, T>): Promise<boolean> {
  const name: string = table
  const found = await whereKeys((db as unknown as Loose).selectFrom(name), keys)
    .select((eb) => eb.lit(1).as('found'))
    .limit(1)
    .executeTakeFirst()
  return found !== undefined
}

/**
 * Locks the row of `table` with these keys for update until the transaction `trx` ends; whether
 * there is one. Rows pointing at it by a foreign key then wait for it, or fail once it is deleted.
 */
export async function lockRow<DB, T extends keyof DB & string>(trx: Queryable<DB>, table: T, keys: RowKeys<DB, T>): Promise<boolean> {
  const name: string = table
  const found = await whereKeys((trx as unknown as Loose).selectFrom(name), keys)
    .select((eb) => eb.lit(1).as('found'))
    .forUpdate()
    .executeTakeFirst()
  return found !== undefined
}

/** The tables whose rows have an `id`. */
type TableWithIds<DB> = { [T in keyof DB]: DB[T] extends { id: unknown } ? T : never }[keyof DB] & keyof DB & string

/**
 * Locks the rows of `table` with these keys for update until the transaction `trx` ends, in the
 * order of their ids (so that two such locks of overlapping rows cannot deadlock); their ids.
 */
export async function lockRows<DB, T extends TableWithIds<DB>>(trx: Queryable<DB>, table: T, keys: RowKeys<DB, T>): Promise<string[]> {
  const name: string = table
  const rows = await whereKeys((trx as unknown as Loose).selectFrom(name), keys)
    .select('id')
    .orderBy('id')
    .forUpdate()
    .execute()
  return rows.map((row) => row.id as string)
}

/** The `columns` of the row of `table` with these keys, or undefined. */
export async function findRow<DB, T extends keyof DB & string, C extends keyof Selectable<DB[T]> & string>(
  db: Queryable<DB>,
  table: T,
  keys: RowKeys<DB, T>,
  columns: readonly C[],
): Promise<Pick<Selectable<DB[T]>, C> | undefined> {
  const name: string = table
  const row = await whereKeys((db as unknown as Loose).selectFrom(name), keys)
    .select(columns)
    .executeTakeFirst()
  return row as Pick<Selectable<DB[T]>, C> | undefined
}

/** The tables whose rows say when they were last changed. */
type StampedTable<DB> = { [T in keyof DB]: DB[T] extends { updatedAt: unknown } ? T : never }[keyof DB] & keyof DB & string

/** Sets `changes` on the row of `table` with these keys, and its `updatedAt` to now; the row as it is then, or undefined when there is none. */
export async function updateRow<DB, T extends StampedTable<DB>>(
  db: Queryable<DB>,
  table: T,
  keys: RowKeys<DB, T>,
  changes: Updateable<DB[T]>,
): Promise<Selectable<DB[T]> | undefined> {
  const name: string = table
  const row = await whereKeys((db as unknown as Loose).updateTable(name).set({ ...changes, updatedAt: new Date() }), keys)
    .returningAll()
    .executeTakeFirst()
  return row as Selectable<DB[T]> | undefined
}

/** Deletes the rows of `table` with these keys; whether there was one. */
export async function deleteRows<DB, T extends keyof DB & string>(db: Queryable<DB>, table: T, keys: RowKeys<DB, T>): Promise<boolean> {
  const name: string = table
  const result = await whereKeys((db as unknown as Loose).deleteFrom(name), keys).executeTakeFirst()
  return result.numDeletedRows > 0n
}
