import { type Kysely, type RawBuilder, sql } from 'kysely'
import { type Loose, type RowKeys, whereKeys } from './rows-by-keys.ts'

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
  keys: RowKeys<DB, T>,
  usedBy: RawBuilder<number>,
): Promise<{ usedBy: number } | undefined> {
  const name: string = table
  return (db as unknown as Loose).transaction().execute(async (trx) => {
    const row = whereKeys(trx.selectFrom(name), keys)
    if (!(await row.select(sql<number>`1`.as('found')).forUpdate().executeTakeFirst())) return undefined
    // A new statement after the lock, so that it sees the users committed while it waited.
    const { count } = await row.select(usedBy.as('count')).executeTakeFirstOrThrow()
    if (count === 0) await whereKeys(trx.deleteFrom(name), keys).execute()
    return { usedBy: count as number }
  })
}
