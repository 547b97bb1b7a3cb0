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

export interface ThrowawayOptions {
  /**
   * false: commits do not wait for the WAL to reach the disk (`synchronous_commit = off` for the
   * database). A crash of the server may lose the last few commits, never corrupt anything: the
   * right trade for tests, whose databases are dropped anyway and which commit thousands of small
   * transactions. The benchmark keeps the default, to measure what an operator's server does.
   */
  durableCommits?: boolean
}

/**
 * Creates `<prefix>_<time>_<random>` on the PostgreSQL server of `serverUrl` and brings it to the
 * latest schema; it is dropped again when that fails.
 */
export async function createThrowawayDatabase(serverUrl: string, prefix: string, options: ThrowawayOptions = {}): Promise<ThrowawayDatabase> {
  const name = `${prefix}_${Date.now()}_${randomBytes(4).toString('hex')}`
  await onServer(serverUrl, async (client) => {
    await client.query(`create database ${name}`)
    if (options.durableCommits === false) await client.query(`alter database ${name} set synchronous_commit = off`)
  })
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
