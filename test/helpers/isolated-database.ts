import { randomUUID } from 'node:crypto'
import pg from 'pg'
import { openDatabase } from '#src/platform/db/database.ts'
import { migrateToLatest } from '#src/platform/db/migrate.ts'

export interface IsolatedDatabase {
  url: string
  drop(): Promise<void>
}

/**
 * A migrated database of its own on the test PostgreSQL server, for tests that run deployment
 * runners: a runner works on every queued deployment of its database, including other tests'.
 */
export async function createIsolatedDatabase(): Promise<IsolatedDatabase> {
  const serverUrl = process.env.TEST_DATABASE_SERVER_URL
  if (!serverUrl) throw new Error('TEST_DATABASE_SERVER_URL is not set: run the tests with `npm test`')
  const name = `berth_test_iso_${randomUUID().replaceAll('-', '').slice(0, 16)}`
  const admin = new pg.Client({ connectionString: serverUrl })
  await admin.connect()
  try {
    await admin.query(`create database ${name}`)
  } finally {
    await admin.end()
  }
  const url = new URL(serverUrl)
  url.pathname = `/${name}`
  const db = openDatabase(url.toString(), 1)
  await migrateToLatest(db)
  await db.destroy()
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: serverUrl })
      await client.connect()
      try {
        await client.query(`drop database if exists ${name} with (force)`)
      } finally {
        await client.end()
      }
    },
  }
}
