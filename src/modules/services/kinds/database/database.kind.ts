import { randomUUID } from 'node:crypto'
import { attachedGroups } from '#src/modules/services/service-groups.ts'
import type { ServiceKind, ServiceRecord } from '#src/modules/services/service-kinds.ts'
import { coreRecordFields } from '#src/modules/services/service-records.ts'
import { validationFailed } from '#src/platform/http/errors.ts'
import type { DatabaseConfig, DatabaseRecord, DatabaseWrite } from './database.types.ts'
import { DEFAULT_DATABASE_ICON_URI } from './database.wire.ts'
import { newDatabaseCredentials } from './database-credentials.ts'
import { databasePlanning } from './database-deployments.ts'
import { databaseEditErrors } from './database-request-rules.ts'

/** A database as its wire mapping reads it: the core's record with the configuration spread. */
export function toDatabaseRecord(service: ServiceRecord<DatabaseConfig>): DatabaseRecord {
  return { ...coreRecordFields(service), groups: attachedGroups(service.references), revision: service.version }
}

/** What an edit makes of `previous`: the fields it gives, over those it leaves out. */
function edited(previous: ServiceRecord<DatabaseConfig>, edit: Extract<DatabaseWrite, { edit: unknown }>['edit']) {
  const was = previous.configuration
  const pick = <T>(given: T | undefined, kept: T): T => (given === undefined ? kept : given)
  const configuration: DatabaseConfig = {
    ...was,
    description: pick(edit.description, was.description),
    version: pick(edit.version, was.version),
    accessibility: pick(edit.accessibility, was.accessibility),
    cpu: pick(edit.cpu, was.cpu),
    memory: pick(edit.memory, was.memory),
    storage: pick(edit.storage, was.storage),
    instanceType: pick(edit.instance_type, was.instanceType),
    diskType: pick(edit.disk_type, was.diskType),
    iconUri: edit.icon_uri === undefined ? was.iconUri : (edit.icon_uri ?? DEFAULT_DATABASE_ICON_URI),
  }
  return { name: edit.name?.trim() ?? previous.name, configuration }
}

/**
 * The database kind of service. A create comes with its id and its credentials already made (the
 * service seals them); an edit changes what it names and keeps the credentials, type and mode.
 */
export const databaseKind: ServiceKind<DatabaseWrite, DatabaseConfig> = {
  ...databasePlanning,
  noun: 'database',
  longRunning: true,
  referencePaths: {},

  async prepare({ previous }, write) {
    if ('create' in write) {
      if (write.ruleErrors.length > 0) throw validationFailed(write.ruleErrors)
      const { name, iconUri, ...rest } = write.create
      return {
        id: write.id,
        name,
        configuration: { ...rest, iconUri: iconUri ?? DEFAULT_DATABASE_ICON_URI, credentials: write.credentials },
        references: [],
      }
    }
    if (!previous) throw new Error('a database edit needs the database as it is')
    const errors = databaseEditErrors(write.edit, previous.configuration)
    if (errors.length > 0) throw validationFailed(errors)
    return { ...edited(previous, write.edit), references: [] }
  },

  /** A clone is a new database: a new id, and new master credentials (never the source's password). */
  cloneInput({ configuration }, name, { secrets }) {
    const { credentials: _, ...create } = configuration
    const id = randomUUID()
    return { create: { ...create, name }, id, credentials: newDatabaseCredentials(id, configuration.type, secrets), ruleErrors: [] }
  },

  overrideErrors: () => [],
}
