import type { Config } from '#src/config.ts'
import { openDatabaseRuntime } from './database-runtime.ts'

/** `berth migrate`: brings the schema up to date, then exits. */
export async function migrate(config: Config): Promise<void> {
  const database = await openDatabaseRuntime(config, { use: 'command', log: () => {} })
  await database.close()
  process.stderr.write(`schema up to date (${database.description})\n`)
}
