import type { DatabaseConfig } from '#src/modules/services/kinds/database/database.types.ts'
import { openPassword } from '#src/modules/services/kinds/database/database-credentials.ts'
import type { DatabaseType } from '#src/modules/services/kinds/database/database-engines.ts'
import type { SecretBox } from '#src/platform/secrets/secret-box.ts'
import { type BackupStore, localStore, s3Store } from './backup-stores.ts'
import type { BackupDestinationsTable } from './backups.tables.ts'
import type { EngineLogin } from './engine-tools.ts'
import { ENGINE_TOOLS } from './engine-tools.ts'

// What backups are named and where they are read and written: one object per backup,
// `<organization>/<database>/<backup>.<pgdump|sql|archive|rdb>.gz`, in its destination.

/** The object a backup is stored as, under its destination's prefix. */
export const objectKeyOf = (organizationId: string, serviceId: string, backupId: string, engine: string) =>
  `${organizationId}/${serviceId}/${backupId}.${ENGINE_TOOLS[engine as DatabaseType]?.extension ?? 'dump'}.gz`

/** The directory backups without a destination go to: `backups` under the data dir. */
export const localBackupsRoot = (dataDir: string) => `${dataDir.replace(/\/+$/, '')}/backups`

export interface StoreSettings {
  secrets: SecretBox
  /** Where backups without a destination go. */
  localRoot: string
  /** BERTH_ALLOW_PRIVATE_URLS. */
  allowPrivateUrls: boolean
}

type DestinationColumns = Pick<BackupDestinationsTable, 'endpoint' | 'region' | 'bucket' | 'prefix' | 'pathStyle' | 'accessKeyId' | 'secretSealed'>

/** The store of a destination (none: the local directory), and the secrets its errors must not show. */
export async function storeOf(
  settings: StoreSettings,
  destination: DestinationColumns | undefined,
): Promise<{ store: BackupStore; secrets: string[] }> {
  if (!destination) return { store: localStore(settings.localRoot), secrets: [] }
  const secretAccessKey = settings.secrets.open(destination.secretSealed)
  const store = await s3Store({
    endpoint: destination.endpoint,
    region: destination.region,
    bucket: destination.bucket,
    prefix: destination.prefix,
    pathStyle: destination.pathStyle,
    accessKeyId: destination.accessKeyId,
    secretAccessKey,
    allowPrivateUrls: settings.allowPrivateUrls,
  })
  return { store, secrets: [secretAccessKey] }
}

/** How the engine's tools log in to a database, from its configuration. */
export function loginOf(configuration: unknown, secrets: SecretBox): EngineLogin & { type: DatabaseType; mode: string } {
  const config = configuration as DatabaseConfig
  return {
    type: config.type,
    mode: config.mode,
    login: config.credentials.login,
    password: openPassword(config.credentials, secrets),
    databaseName: config.credentials.databaseName,
  }
}
