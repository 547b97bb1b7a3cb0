import { setTimeout as sleep } from 'node:timers/promises'
import type { Config } from '#src/config.ts'
import { type Db, openDatabase } from '#src/platform/db/database.ts'
import { type EmbeddedUse, openEmbeddedDatabase, type SupervisorEvents } from '#src/platform/db/embedded.ts'
import { migrateToLatest } from '#src/platform/db/migrate.ts'

const POOL_CLOSE_MS = 5_000

export interface DatabaseRuntime {
  db: Db
  /** Where the data lives, for the start-up log: never contains the password. */
  description: string
  close(): Promise<void>
}

/**
 * Opens the database the config names, migrated to the latest schema: the external server of
 * DATABASE_URL, or else the embedded PostgreSQL of the data dir, shared with any other Berth
 * process using it (see embedded.ts).
 */
export async function openDatabaseRuntime(
  config: Config,
  options: {
    use: EmbeddedUse
    log: (message: string) => void
    /** For `serve`: an embedded PostgreSQL that stops is started again, and these are told (see embedded.ts). */
    supervise?: SupervisorEvents
  },
): Promise<DatabaseRuntime> {
  const external = config.database.url
  const embedded = external ? undefined : await openEmbeddedDatabase(config.database.dataDir, options.use, options.log, config.database.embeddedPorts)
  const url = external ?? embedded!.url
  // Migrations get a connection of their own, without the query timeout that bounds requests.
  const migrations = openDatabase(url, 1)
  try {
    await migrateToLatest(migrations)
  } catch (error) {
    await embedded?.release()
    throw error
  } finally {
    await migrations.destroy()
  }
  const db = openDatabase(url, config.database.poolSize, config.database)
  if (options.supervise) embedded?.supervise(options.supervise)
  return {
    db,
    description: external ? `PostgreSQL at ${new URL(external).host}` : `embedded PostgreSQL in ${config.database.dataDir}`,
    async close() {
      // A query still blocked (a lock, a stalled server) must not hold the process forever; the
      // postmaster's fast shutdown, or the process exit, ends it. (Releasing stops the supervisor first.)
      await Promise.race([db.destroy(), sleep(POOL_CLOSE_MS, undefined, { ref: false })])
      await embedded?.release()
    },
  }
}
