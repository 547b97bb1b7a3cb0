import type { Config } from '#src/config.ts'
import { type Db, openDatabase } from '#src/platform/db/database.ts'
import { startEmbeddedDatabase, useEmbeddedDatabase } from '#src/platform/db/embedded.ts'
import { migrateToLatest } from '#src/platform/db/migrate.ts'

export interface DatabaseRuntime {
  db: Db
  /** Where the data lives, for the start-up log: never contains the password. */
  description: string
  close(): Promise<void>
}

/**
 * Opens the database the config names, migrated to the latest schema: the external server of
 * DATABASE_URL, or else the embedded PostgreSQL of the data dir. `owner` is set for `serve`,
 * which runs the embedded server for its whole life; one-off commands reuse a running one.
 */
export async function openDatabaseRuntime(config: Config, options: { owner: boolean; log: (message: string) => void }): Promise<DatabaseRuntime> {
  const external = config.database.url
  const embedded = external ? undefined : await (options.owner ? startEmbeddedDatabase : useEmbeddedDatabase)(config.database.dataDir, options.log)
  const db = openDatabase(external ?? embedded!.url, config.database.poolSize)
  try {
    await migrateToLatest(db)
  } catch (error) {
    await db.destroy()
    await embedded?.stop()
    throw error
  }
  return {
    db,
    description: external ? `PostgreSQL at ${new URL(external).host}` : `embedded PostgreSQL in ${config.database.dataDir}`,
    async close() {
      await db.destroy()
      await embedded?.stop()
    },
  }
}
