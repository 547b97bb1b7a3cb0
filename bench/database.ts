// The benchmark's own database: created fresh on the server, migrated, and dropped at the end.
import pg from 'pg'
import { openDatabase } from '#src/platform/db/database.ts'
import { migrateToLatest } from '#src/platform/db/migrate.ts'

export interface BenchDatabase {
  readonly name: string
  readonly url: string
  drop(): Promise<void>
}

async function onServer<T>(serverUrl: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: serverUrl })
  await client.connect()
  try {
    return await work(client)
  } finally {
    await client.end()
  }
}

/** Creates `berth_bench_<timestamp>` and brings it to the latest schema; `drop` is safe to call more than once. */
export async function createBenchDatabase(serverUrl: string): Promise<BenchDatabase> {
  const name = `berth_bench_${Date.now()}`
  await onServer(serverUrl, (client) => client.query(`create database ${name}`))
  const url = new URL(serverUrl)
  url.pathname = `/${name}`
  let dropped: Promise<void> | undefined
  const database: BenchDatabase = {
    name,
    url: url.toString(),
    drop: () => {
      dropped ??= onServer(serverUrl, async (client) => {
        await client.query(`drop database if exists ${name} with (force)`)
      })
      return dropped
    },
  }
  try {
    const db = openDatabase(database.url, 1)
    try {
      await migrateToLatest(db)
    } finally {
      await db.destroy()
    }
  } catch (error) {
    await database.drop()
    throw error
  }
  return database
}

/** The server's version string, as `select version()` gives it. */
export function serverVersion(serverUrl: string): Promise<string> {
  return onServer(serverUrl, async (client) => String((await client.query('select version() as v')).rows[0].v))
}
