// What a backup runner is handed: the database, the secrets, its leases' timing, how many jobs at once and for how long.
import type { Db } from '#src/platform/db/database.ts'
import type { SecretBox } from '#src/platform/secrets/secret-box.ts'
import type { StoreSettings } from './backup-objects.ts'
import type { DatabaseReachSettings } from './database-reach.ts'

export interface BackupWorkerSettings extends DatabaseReachSettings, StoreSettings {
  db: Db
  secrets: SecretBox
  leaseMs: number
  pollMs: number
  /** How many backups and restores one process runs at once. */
  concurrency?: number
  /** The longest a backup or a restore may run. */
  timeoutMs?: number
  log: { info(fields: object, message: string): void; warn(fields: object, message: string): void }
}
