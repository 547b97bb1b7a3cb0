import { setTimeout as sleep } from 'node:timers/promises'
import { sql, type Transaction } from 'kysely'
import type { Db } from '#src/platform/db/database.ts'
import type { Database } from '#src/platform/db/schema.ts'

// Races made certain instead of likely: a transaction of the test's holds what a concurrent
// writer would, the request under test runs into it, and only then does the holder go on.

/**
 * Holds locks in a transaction of the test's (`hold`), sends `request`, waits until the request is
 * answered (it did not wait) or blocked by that transaction, then takes more in it (`next`) and
 * commits. No timing decides the outcome. The transaction looks for deadlocks only after a minute:
 * were there one, the request's would be the transaction aborted. Rolled back on failure. Resolves
 * with the request's answer.
 */
export async function whileHeld<T>(
  db: Db,
  steps: { hold(trx: Transaction<Database>): Promise<unknown>; request(): Promise<T>; next(trx: Transaction<Database>): Promise<unknown> },
): Promise<T> {
  const trx = await db.startTransaction().execute()
  try {
    await sql`set local deadlock_timeout = '60s'`.execute(trx)
    await steps.hold(trx)
    const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx)
    const holder = rows[0]!.pid
    let answered = false
    const answer = steps.request().finally(() => {
      answered = true
    })
    while (!answered) {
      const blocked = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity where ${holder} = any(pg_blocking_pids(pid))`.execute(
        db,
      )
      if (blocked.rows[0]!.n > 0) break
      await sleep(5)
    }
    await steps.next(trx)
    await trx.commit().execute()
    return await answer
  } catch (error) {
    await trx
      .rollback()
      .execute()
      .catch(() => {})
    throw error
  }
}
