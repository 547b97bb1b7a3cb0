import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { openDatabase } from './database.ts'
import { migrateToLatest } from './migrate.ts'

/** A database made for one run (the test suite, a test file, the benchmark) and dropped after it. */
export interface ThrowawayDatabase {
  readonly name: string
  readonly url: string
  /** Drops it, closing whatever is still connected; safe to call more than once. */
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

/**
 * Creates `<prefix>_<time>_<random>` on the PostgreSQL server of `serverUrl` and brings it to the
 * latest schema; it is dropped again when that fails.
 */
export async function createThrowawayDatabase(serverUrl: string, prefix: string): Promise<ThrowawayDatabase> {
  const name = `${prefix}_${Date.now()}_${randomBytes(4).toString('hex')}`
  await onServer(serverUrl, (client) => client.query(`create database ${name}`))
  const url = new URL(serverUrl)
  url.pathname = `/${name}`
  let dropped: Promise<void> | undefined
  const database: ThrowawayDatabase = {
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
