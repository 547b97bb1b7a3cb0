import { createThrowawayDatabase, type ThrowawayDatabase } from '#src/platform/db/throwaway-database.ts'

export type IsolatedDatabase = ThrowawayDatabase

/**
 * A migrated database of its own on the test PostgreSQL server, for tests that run deployment
 * runners: a runner works on every queued deployment of its database, including other tests'.
 */
export async function createIsolatedDatabase(): Promise<IsolatedDatabase> {
  const serverUrl = process.env.TEST_DATABASE_SERVER_URL
  if (!serverUrl) throw new Error('TEST_DATABASE_SERVER_URL is not set: run the tests with `npm test`')
  return createThrowawayDatabase(serverUrl, 'berth_test_iso', { durableCommits: false })
}
