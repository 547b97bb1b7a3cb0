import { coreResponseFields } from '#src/modules/services/service-responses.ts'
import type { DatabaseRequest, DatabaseResponse } from './database.schemas.ts'
import type { DatabaseInput, DatabaseRecord } from './database.types.ts'
import { DATABASE_ENGINES, DATABASE_LIMITS, DEFAULT_CPU_MILLICORES, DEFAULT_STORAGE_GB, MANAGED_DEFAULT_MEMORY_MB } from './database-engines.ts'

/** What a database shows when the request gives no icon. */
export const DEFAULT_DATABASE_ICON_URI = 'app://berth/database'

/** A create request that passed its schema, as the service's input, with the reference's defaults. */
export function databaseInput(body: DatabaseRequest): DatabaseInput {
  return {
    name: body.name.trim(),
    description: body.description ?? null,
    type: body.type,
    version: body.version,
    mode: body.mode,
    accessibility: body.accessibility ?? 'PRIVATE',
    cpu: body.cpu ?? DEFAULT_CPU_MILLICORES,
    memory: body.memory ?? (body.mode === 'MANAGED' ? MANAGED_DEFAULT_MEMORY_MB : DATABASE_ENGINES[body.type].defaultMemoryMb),
    storage: body.storage ?? DEFAULT_STORAGE_GB,
    instanceType: body.instance_type ?? null,
    diskType: body.disk_type ?? null,
    iconUri: body.icon_uri ?? null,
  }
}

/** A database as the reference's responses show it: never its credentials but host and port. */
export function toDatabaseResponse(database: DatabaseRecord): DatabaseResponse {
  return {
    ...coreResponseFields(database),
    type: database.type,
    version: database.version,
    mode: database.mode,
    accessibility: database.accessibility,
    cpu: database.cpu,
    memory: database.memory,
    storage: database.storage,
    host: database.credentials.host,
    port: database.credentials.port,
    maximum_cpu: DATABASE_LIMITS.cpu.max,
    maximum_memory: DATABASE_LIMITS.memory.max,
    disk_encrypted: false,
    instance_type: database.instanceType,
    disk_type: database.diskType,
    ...database.groups,
    icon_uri: database.iconUri,
    service_type: 'DATABASE',
  }
}
