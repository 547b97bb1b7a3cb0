import type { KindRouteContext } from '#src/modules/services/kind-route-context.ts'
import type { ServiceRecord } from '#src/modules/services/service-kinds.ts'
import type { Principal } from '#src/platform/auth/principal.ts'
import { toDatabaseRecord } from './database.kind.ts'
import type { DatabaseConfig } from './database.types.ts'
import { openPassword } from './database-credentials.ts'
import { DATABASE_ENGINES, DATABASE_MODES, DATABASE_TYPES, type DatabaseMode, type DatabaseType, versionRank } from './database-engines.ts'

/** The master credentials of a database, the password in the clear. */
export interface MasterCredentials {
  host: string
  port: number
  login: string
  password: string
}

/** The types, versions and modes of databases Berth runs. */
export interface DatabaseConfiguration {
  type: DatabaseType
  versions: readonly string[]
  modes: readonly DatabaseMode[]
}

/** A database's master credentials and versions, and the databases an environment may have. */
export function createDatabaseServices({ core, secrets, environments }: KindRouteContext) {
  const database = (service: ServiceRecord) => toDatabaseRecord(service as ServiceRecord<DatabaseConfig>)
  return {
    /** getDatabaseMasterCredentials: for WRITE and above only, the one answer that holds the password. */
    async masterCredentials(principal: Principal, databaseId: string): Promise<MasterCredentials> {
      const { service } = await core.requireService(principal, databaseId, 'WRITE', 'DATABASE')
      const { credentials } = (service as ServiceRecord<DatabaseConfig>).configuration
      return { host: credentials.host, port: credentials.port, login: credentials.login, password: openPassword(credentials, secrets) }
    },
    /** listDatabaseVersion: the versions of the database's type from its own up (an edit may not go back). */
    async eligibleVersions(principal: Principal, databaseId: string): Promise<readonly string[]> {
      const { type, version } = database(await core.get(principal, 'DATABASE', databaseId))
      return DATABASE_ENGINES[type].versions.slice(Math.max(0, versionRank(type, version)))
    },
    /** listEnvironmentDatabaseConfig: what databases the environment may have, for any reader of it. */
    async configurations(principal: Principal, environmentId: string): Promise<DatabaseConfiguration[]> {
      await environments.requireEnvironment(principal, environmentId, 'READ')
      return DATABASE_TYPES.map((type) => ({ type, versions: DATABASE_ENGINES[type].versions, modes: DATABASE_MODES }))
    },
  }
}
