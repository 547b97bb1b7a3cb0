import { randomUUID } from 'node:crypto'
import { groupIdsOfBody, type ServiceGroupIds } from '#src/modules/services/service-groups.ts'
import type { ServiceRecord } from '#src/modules/services/service-kinds.ts'
import type { ServicesService } from '#src/modules/services/services.service.ts'
import type { Principal } from '#src/platform/auth/principal.ts'
import type { Role } from '#src/platform/auth/roles.ts'
import type { FieldError } from '#src/platform/http/errors.ts'
import type { CappedList } from '#src/platform/http/lists.ts'
import type { SecretBox } from '#src/platform/secrets/secret-box.ts'
import { toDatabaseRecord } from './database.kind.ts'
import type { DatabaseEditRequest } from './database.schemas.ts'
import type { DatabaseConfig, DatabaseInput, DatabaseRecord } from './database.types.ts'
import { newDatabaseCredentials, openPassword } from './database-credentials.ts'
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

export interface DatabaseServicesDeps {
  core: ServicesService
  secrets: SecretBox
  requireEnvironment(principal: Principal, environmentId: string, needed: Role): Promise<unknown>
}

/**
 * The service core's operations on databases, answering database records for the database routes'
 * wire mapping; a create makes the database's id and master credentials (sealed with `secrets`).
 */
export function createDatabaseServices({ core, secrets, requireEnvironment }: DatabaseServicesDeps) {
  const database = (service: ServiceRecord) => toDatabaseRecord(service as ServiceRecord<DatabaseConfig>)
  return {
    /** A page of the environment's databases; `startId` continues after that one; `heldUntil` as the core's. */
    list: async (
      principal: Principal,
      environmentId: string,
      options: { startId?: string; heldUntil?: () => Promise<unknown> },
    ): Promise<CappedList<DatabaseRecord>> => {
      const page = await core.list(principal, environmentId, { type: 'DATABASE', ...options })
      return { rows: page.rows.map(database), hasMore: page.hasMore }
    },
    get: async (principal: Principal, databaseId: string): Promise<DatabaseRecord> => database(await core.get(principal, 'DATABASE', databaseId)),
    create: async (
      principal: Principal,
      environmentId: string,
      input: DatabaseInput,
      ruleErrors: FieldError[],
      groups?: ServiceGroupIds,
    ): Promise<DatabaseRecord> => {
      const id = randomUUID()
      const credentials = newDatabaseCredentials(id, input.type, secrets)
      return database(await core.create(principal, 'DATABASE', environmentId, { create: input, id, credentials, ruleErrors, groups }))
    },
    /** A partial edit: what the request leaves out keeps its value; `ifMatch`: the ETags If-Match accepts. */
    update: async (principal: Principal, databaseId: string, edit: DatabaseEditRequest, ifMatch?: string[]): Promise<DatabaseRecord> =>
      database(await core.update(principal, 'DATABASE', databaseId, { edit, groups: groupIdsOfBody(edit) }, ifMatch)),
    delete: (principal: Principal, databaseId: string): Promise<void> => core.delete(principal, 'DATABASE', databaseId),
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
      await requireEnvironment(principal, environmentId, 'READ')
      return DATABASE_TYPES.map((type) => ({ type, versions: DATABASE_ENGINES[type].versions, modes: DATABASE_MODES }))
    },
  }
}

export type DatabaseServices = ReturnType<typeof createDatabaseServices>
