import { AsyncLocalStorage } from 'node:async_hooks'
import type pg from 'pg'

/** Who makes the changes of a request, as the audit log records them (migration 0050). */
export interface AuditActor {
  /** The token's or the member's id; absent for a git push. */
  id?: string
  /** The token's name; absent for a member, whose name the database looks up. */
  name?: string
  origin: string
  user_agent?: string
}

const actors = new AsyncLocalStorage<AuditActor>()

/** Runs `work` with `actor` making every change it writes, down to its last callback. */
export function actingAs<T>(actor: AuditActor, work: () => T): T {
  return actors.run(actor, work)
}

/** Runs `work` as nobody: for background work started from a request (a runner woken), whose changes are not the caller's. */
export function actingAsNobody<T>(work: () => T): T {
  return actors.exit(work)
}

const SET_ACTOR = `select set_config('berth.actor', $1, false)`

/**
 * The pool as Kysely sees it: a connection taken for a request that acts for someone carries who
 * in the session setting `berth.actor`, which the audit triggers read; it is cleared before the
 * connection goes back to the pool, so that other work on it is nobody's. The clearing is queued on
 * the connection (pg runs a connection's queries in order), so the request does not wait for it.
 */
export function actorAwarePool(pool: pg.Pool) {
  return {
    async connect(): Promise<pg.PoolClient> {
      const client = await pool.connect()
      const actor = actors.getStore()
      if (!actor) return client
      try {
        await client.query(SET_ACTOR, [JSON.stringify(actor)])
      } catch (error) {
        client.release(error as Error)
        throw error
      }
      const release = client.release
      client.release = (error?: Error | boolean) => {
        if (!error) client.query(SET_ACTOR, ['']).catch(() => {})
        release.call(client, error)
      }
      return client
    },
    end: () => pool.end(),
  }
}
