import type { Kysely, RawBuilder } from 'kysely'
import { type Loose, lockRow, type RowKeys, whereKeys } from './rows-by-keys.ts'

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
  return db.transaction().execute(async (trx) => {
    if (!(await lockRow(trx, table, keys))) return undefined
    const loose = trx as unknown as Loose
    // A new statement after the lock, so that it sees the users committed while it waited.
    const { count } = await whereKeys(loose.selectFrom(name), keys).select(usedBy.as('count')).executeTakeFirstOrThrow()
    if (count === 0) await whereKeys(loose.deleteFrom(name), keys).execute()
    return { usedBy: count as number }
  })
}
