import { setTimeout as sleep } from 'node:timers/promises'
import type pg from 'pg'
import { type Db, poolOf } from './database.ts'

export interface Listener {
  close(): Promise<void>
}

export interface ListenHandlers {
  /** A notification on one of the channels, with its payload. */
  onNotify(channel: string, payload: string): void
  /**
   * A change this process is making will announce `payload` on `channel` (`localChange`); the
   * function returned is called once its transaction has ended. Absent: `onNotify` then.
   */
  onLocalChange?(channel: string, payload: string): () => void
  /** Listening started (true) or stopped (false): while it is not, notifications may be missed. */
  onListening(listening: boolean): void
  /** Listening failed; told once per outage (the first failure after listening, or at start), not at every retry. */
  onError(error: unknown): void
}

const RETRY_MS = 1_000

/** The handlers listening through each pool: what `localChange` tells. */
const localListeners = new WeakMap<pg.Pool, Set<{ channels: readonly string[]; handlers: ListenHandlers }>>()

/**
 * A change this process is making through `db`'s pool, which PostgreSQL will announce on `channel`
 * at commit. Its announcement comes back to this process's listeners a moment after the commit,
 * perhaps after the response to the request that made the change; so they are told themselves:
 * `touch(payload)` before the commit (in the transaction, before the write), `end()` once the
 * transaction has ended, committed or not (a needless announcement only costs a read).
 */
export function localChange(db: Db, channel: string): { touch(payload: string): void; end(): void } {
  const ends: (() => void)[] = []
  return {
    touch(payload) {
      for (const { channels, handlers } of localListeners.get(poolOf(db)) ?? []) {
        if (!channels.includes(channel)) continue
        ends.push(handlers.onLocalChange?.(channel, payload) ?? (() => handlers.onNotify(channel, payload)))
      }
    },
    end() {
      for (const end of ends.splice(0)) end()
    },
  }
}

/**
 * LISTENs on PostgreSQL channels over one connection of the pool kept for them, and listens again
 * after the connection is lost, telling `onListening` in between so callers can stop relying on
 * what they would have been told.
 */
export function listen(db: Db, channels: readonly string[], handlers: ListenHandlers): Listener {
  const pool = poolOf(db)
  const local = { channels, handlers }
  const listeners = localListeners.get(pool) ?? new Set()
  localListeners.set(pool, listeners.add(local))
  let closed = false
  let client: pg.PoolClient | undefined
  let lost: (() => void) | undefined
  let reported = false
  const report = (error: unknown) => {
    if (reported) return
    reported = true
    handlers.onError(error)
  }

  async function keepListening(): Promise<void> {
    while (!closed) {
      try {
        client = await pool.connect()
        const connection = client
        const ended = new Promise<void>((resolve) => {
          lost = resolve
          if (closed) resolve()
          connection.on('error', (error) => {
            report(error)
            resolve()
          })
          connection.on('end', () => resolve())
        })
        connection.on('notification', (message) => {
          if (channels.includes(message.channel)) handlers.onNotify(message.channel, message.payload ?? '')
        })
        for (const channel of channels) await connection.query(`LISTEN ${channel}`)
        reported = false
        handlers.onListening(true)
        await ended
        handlers.onListening(false)
        connection.release(true)
        client = undefined
      } catch (error) {
        handlers.onListening(false)
        client?.release(true)
        client = undefined
        if (!closed) report(error)
      }
      if (!closed) await sleep(RETRY_MS)
    }
  }

  const running = keepListening()
  return {
    async close() {
      closed = true
      listeners.delete(local)
      lost?.()
      await running
    },
  }
}
