import { type Kysely, type RawBuilder, type Selectable, sql } from 'kysely'

// Kysely cannot type a table name that is a parameter, so the statements are written over this
// loose view; the caller's table and keys are typed at the signature.
type Loose = Kysely<Record<string, Record<string, unknown>>>

/**
 * Deletes the row of `table` with these `keys` unless other rows use it: undefined when there is
 * no such row, else how many use it (0: deleted). `usedBy` counts them in SQL over the table's row,
 * as `(select count(*) from x where x.y_id = y.id)`. Race-free when they point at it by a foreign
 * key: one being written holds a key share lock on the row, so the lock taken here waits for it;
 * one written after the lock fails its foreign key.
 */
export function deleteUnlessUsed<DB, T extends keyof DB & string>(
  db: Kysely<DB>,
  table: T,
  keys: Partial<Selectable<DB[T]>>,
  usedBy: RawBuilder<number>,
): Promise<{ usedBy: number } | undefined> {
  const name: string = table
  return (db as unknown as Loose).transaction().execute(async (trx) => {
    let row = trx.selectFrom(name)
    let deletion = trx.deleteFrom(name)
    for (const [column, value] of Object.entries(keys)) {
      row = row.where(column, '=', value)
      deletion = deletion.where(column, '=', value)
    }
    if (!(await row.select(sql<number>`1`.as('found')).forUpdate().executeTakeFirst())) return undefined
    // A new statement after the lock, so that it sees the users committed while it waited.
    const { count } = await row.select(usedBy.as('count')).executeTakeFirstOrThrow()
    if (count === 0) await deletion.execute()
    return { usedBy: count as number }
  })
}
