import { CamelCasePlugin, Kysely, PostgresDialect } from 'kysely'
import pg from 'pg'
import type { Database } from './schema.ts'

export type Db = Kysely<Database>

const pools = new WeakMap<Db, pg.Pool>()

/** The connection pool under a database handle, for what Kysely does not do (LISTEN). */
export function poolOf(db: Db): pg.Pool {
  const pool = pools.get(db)
  if (!pool) throw new Error('not a database opened with openDatabase')
  return pool
}

/** Opens a pooled connection to PostgreSQL; the same code serves the embedded and external servers. */
export function openDatabase(connectionString: string, poolSize: number): Db {
  const pool = new pg.Pool({
    connectionString,
    max: poolSize,
    // A request must not hang behind a database that went away.
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
    application_name: 'berth',
  })
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', () => {})
  const db = new Kysely<Database>({
    dialect: new PostgresDialect({ pool }),
    // JSON columns are read back exactly as written: the plugin renames columns, not keys inside values.
    plugins: [new CamelCasePlugin({ maintainNestedObjectKeys: true })],
  })
  pools.set(db, pool)
  return db
}
