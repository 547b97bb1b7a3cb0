import { CamelCasePlugin, Kysely, PostgresDialect } from 'kysely'
import pg from 'pg'
import { actorAwarePool } from './audit-actor.ts'
import type { Database } from './schema.ts'

export type Db = Kysely<Database>

const pools = new WeakMap<Db, pg.Pool>()

/** The connection pool under a database handle, for what Kysely does not do (LISTEN). */
export function poolOf(db: Db): pg.Pool {
  const pool = pools.get(db)
  if (!pool) throw new Error('not a database opened with openDatabase')
  return pool
}

export interface DatabaseTimeouts {
  /** How long to wait for a connection, free in the pool or new. */
  connectTimeoutMs: number
  /** How long one query may run before the client gives up on it; none when absent (migrations, seeding). */
  queryTimeoutMs?: number
}

/** Opens a pooled connection to PostgreSQL; the same code serves the embedded and external servers. */
export function openDatabase(connectionString: string, poolSize: number, timeouts: DatabaseTimeouts = { connectTimeoutMs: 5_000 }): Db {
  const pool = new pg.Pool({
    connectionString,
    max: poolSize,
    // A request must not hang behind a database that went away, stalled, or is saturated.
    connectionTimeoutMillis: timeouts.connectTimeoutMs,
    // The server cancels a statement that runs too long; the client gives up a moment later, should
    // the server or the network stall.
    ...(timeouts.queryTimeoutMs ? { statement_timeout: timeouts.queryTimeoutMs, query_timeout: timeouts.queryTimeoutMs + 1_000 } : {}),
    idleTimeoutMillis: 30_000,
    application_name: 'berth',
  })
  // A client losing its connection (PostgreSQL stopped, a fail-over) must not crash the process:
  // idle, the pool drops it (its 'error'); checked out between two queries of a transaction, its
  // own listener takes the event, and its next query fails, which the request answers with 503.
  pool.on('error', () => {})
  pool.on('connect', (client) => client.on('error', () => {}))
  const db = new Kysely<Database>({
    // Who acts reaches the audit triggers through the connection (audit-actor.ts).
    dialect: new PostgresDialect({ pool: actorAwarePool(pool) }),
    // JSON columns are read back exactly as written: the plugin renames columns, not keys inside values.
    plugins: [new CamelCasePlugin({ maintainNestedObjectKeys: true })],
  })
  pools.set(db, pool)
  return db
}
