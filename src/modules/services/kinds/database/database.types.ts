import type { AttachedGroups, ServiceGroupIds } from '#src/modules/services/service-groups.ts'
import type { CoreRecord } from '#src/modules/services/service-records.ts'
import type { FieldError } from '#src/platform/http/errors.ts'
import type { DatabaseEditRequest } from './database.schemas.ts'
import type { DatabaseAccessibility, DatabaseMode, DatabaseType, DiskType } from './database-engines.ts'

// The database service as the service layer and the database see it: camelCase records, stored as
// the service's JSON configuration.

/**
 * How the environment's services reach the database, made at creation and kept for its life. The
 * password, and the URI that holds it, are sealed with the server's secret key (base64): migration
 * 0017's trigger copies them, still sealed, into the environment's built-in secrets.
 */
export interface DatabaseCredentials {
  host: string
  port: number
  login: string
  databaseName: string
  uriWithoutCredentials: string
  passwordSealed: string
  uriSealed: string
}

/** What a create sets, as the request named it (defaults applied). */
export interface DatabaseInput {
  name: string
  description: string | null
  type: DatabaseType
  version: string
  mode: DatabaseMode
  accessibility: DatabaseAccessibility
  cpu: number
  memory: number
  storage: number
  instanceType: string | null
  diskType: DiskType | null
  iconUri: string | null
}

/**
 * A write as the route validated it, with the rule errors found so far. A create carries the id
 * the service will have and its credentials, made (and sealed) before the core stores it.
 */
export type DatabaseWrite =
  | { create: DatabaseInput; id: string; credentials: DatabaseCredentials; ruleErrors: FieldError[]; groups?: ServiceGroupIds }
  /** An edit as the request gave it: a field left out keeps its value (the reference's DatabaseEditRequest). */
  | { edit: DatabaseEditRequest; groups?: ServiceGroupIds }

/** A database's stored configuration: everything but its name, which the service core keeps. */
export interface DatabaseConfig extends Omit<DatabaseInput, 'name' | 'iconUri'> {
  iconUri: string
  credentials: DatabaseCredentials
}

/** A stored database as reads return it. */
export interface DatabaseRecord extends DatabaseConfig, CoreRecord {
  /** The labels and annotations groups attached to it, in response shapes. */
  groups: AttachedGroups
  version: string
  /** The service core's version of the configuration. */
  revision: number
}
