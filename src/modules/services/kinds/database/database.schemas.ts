import { type Static, Type } from 'typebox'
import { ServiceGroupIdsRequest } from '#src/modules/organization-groups/organization-groups.schemas.ts'
import { kindParams, serviceResponseHead, serviceResponseTail } from '#src/modules/services/kind-schemas.ts'
import { Enum, Nullable } from '#src/platform/http/common-schemas.ts'
import { DATABASE_ACCESSIBILITIES, DATABASE_LIMITS, DATABASE_MODES, DATABASE_TYPES, DISK_TYPES } from './database-engines.ts'

// The reference's DatabaseRequest, DatabaseEditRequest, Database and Credentials, and the lists
// of versions and configurations around them.

const DatabaseType = Enum(DATABASE_TYPES, 'DatabaseTypeEnum')
const DatabaseMode = Enum(DATABASE_MODES, 'DatabaseModeEnum')
const DatabaseAccessibility = Enum(DATABASE_ACCESSIBILITIES, 'DatabaseAccessibilityEnum')
const DiskType = Enum(DISK_TYPES, 'DatabaseDiskTypeEnum', 'EBS disk type, for MANAGED databases only')

const Name = Type.String({ minLength: 1, maxLength: 255, pattern: '\\S', description: 'case insensitive; unique in the environment' })
const Version = Type.String({
  minLength: 1,
  maxLength: 32,
  description: 'one of the versions GET /environment/{id}/databaseConfiguration lists for the type',
})
const Cpu = Type.Integer({ minimum: DATABASE_LIMITS.cpu.min, maximum: DATABASE_LIMITS.cpu.max, description: 'millicores (1000 = 1 CPU)' })
const Memory = Type.Integer({ minimum: DATABASE_LIMITS.memory.min, maximum: DATABASE_LIMITS.memory.max, description: 'MB' })
const Storage = Type.Integer({
  minimum: DATABASE_LIMITS.storage.min,
  maximum: DATABASE_LIMITS.storage.max,
  description: 'GB; an edit may grow it, never shrink it',
})
const InstanceType = Type.String({ minLength: 1, maxLength: 255, description: 'required for MANAGED databases; refused for CONTAINER ones' })
const Description = Type.String({ maxLength: 10_000 })
const IconUri = Type.String({ format: 'uri', maxLength: 2048 })

/** What a create sets and a full edit may change, after the name, type, version and mode. */
const settings = {
  accessibility: Type.Optional(DatabaseAccessibility),
  cpu: Type.Optional(Cpu),
  memory: Type.Optional(Memory),
  storage: Type.Optional(Storage),
  instance_type: Type.Optional(Nullable(InstanceType)),
  disk_type: Type.Optional(Nullable(DiskType)),
  annotations_groups: ServiceGroupIdsRequest('annotations'),
  labels_groups: ServiceGroupIdsRequest('labels'),
  icon_uri: Type.Optional(Nullable(IconUri)),
}

export const DatabaseRequest = Type.Object(
  {
    name: Name,
    description: Type.Optional(Nullable(Description)),
    type: DatabaseType,
    version: Version,
    mode: DatabaseMode,
    ...settings,
  },
  { additionalProperties: false, title: 'DatabaseRequest' },
)
export type DatabaseRequest = Static<typeof DatabaseRequest>

export const DatabaseEditRequest = Type.Object(
  {
    name: Type.Optional(Name),
    description: Type.Optional(Nullable(Description)),
    version: Type.Optional(Version),
    ...settings,
  },
  { additionalProperties: false, title: 'DatabaseEditRequest' },
)
export type DatabaseEditRequest = Static<typeof DatabaseEditRequest>

export const DatabaseResponse = Type.Object(
  {
    ...serviceResponseHead,
    name: Type.String(),
    description: Type.Optional(Type.String()),
    type: DatabaseType,
    version: Type.String(),
    mode: DatabaseMode,
    accessibility: DatabaseAccessibility,
    cpu: Type.Integer(),
    memory: Type.Integer(),
    storage: Type.Integer(),
    host: Type.String({ description: "the host the environment's services reach the database at" }),
    port: Type.Integer(),
    maximum_cpu: Type.Integer(),
    maximum_memory: Type.Integer(),
    disk_encrypted: Type.Boolean(),
    instance_type: Nullable(Type.String()),
    disk_type: Nullable(Type.String()),
    ...serviceResponseTail('DATABASE'),
  },
  { title: 'Database' },
)
export type DatabaseResponse = Static<typeof DatabaseResponse>

export const DatabaseParams = kindParams('databaseId')
export const DatabaseActionQuery = Type.Object({
  applyImmediately: Type.Optional(Type.Boolean({ description: 'accepted for compatibility: Berth has no maintenance windows' })),
})
/** The reference's deploy of a database takes no body; an empty object is accepted. */
export const DatabaseDeployRequest = Type.Object({}, { title: 'DatabaseDeployRequest' })

export const Credentials = Type.Object(
  { host: Type.String(), port: Type.Integer(), login: Type.String(), password: Type.String() },
  { title: 'Credentials' },
)

export const VersionResponseList = Type.Object(
  { results: Type.Array(Type.Object({ name: Type.String() }, { title: 'Version' })) },
  { title: 'VersionResponseList' },
)

export const DatabaseConfigurationResponseList = Type.Object(
  {
    results: Type.Array(
      Type.Object(
        {
          database_type: DatabaseType,
          version: Type.Array(Type.Object({ name: Type.String(), supported_mode: DatabaseMode }, { title: 'DatabaseVersionMode' })),
        },
        { title: 'DatabaseConfiguration' },
      ),
    ),
  },
  { title: 'DatabaseConfigurationResponseList' },
)
