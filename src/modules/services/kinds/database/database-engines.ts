// What Berth knows of each database engine: the versions it runs, and how a client reaches one
// (port, login, default database, URI scheme), as the platform's container databases do
// (docs/databases.md, "Databases").

export const DATABASE_TYPES = ['POSTGRESQL', 'MYSQL', 'MONGODB', 'REDIS'] as const
export type DatabaseType = (typeof DATABASE_TYPES)[number]

export const DATABASE_MODES = ['CONTAINER', 'MANAGED'] as const
export type DatabaseMode = (typeof DATABASE_MODES)[number]

export const DATABASE_ACCESSIBILITIES = ['PRIVATE', 'PUBLIC'] as const
export type DatabaseAccessibility = (typeof DATABASE_ACCESSIBILITIES)[number]

export const DISK_TYPES = ['gp2', 'gp3'] as const
export type DiskType = (typeof DISK_TYPES)[number]

export interface DatabaseEngine {
  /** The versions Berth accepts, oldest first: an edit may move up this list, never down. */
  versions: readonly string[]
  port: number
  /** The master login the platform gives a database of this type. */
  login: string
  defaultDatabaseName: string
  /** The scheme of the database's URIs. */
  scheme: string
  /** The image a container database runs (`{image}:{version}`). */
  image: string
  /** The reference's default memory (MB) of a container database of this type. */
  defaultMemoryMb: number
}

export const DATABASE_ENGINES: Record<DatabaseType, DatabaseEngine> = {
  POSTGRESQL: {
    versions: ['12', '13', '14', '15', '16', '17'],
    port: 5432,
    login: 'superuser',
    defaultDatabaseName: 'postgres',
    scheme: 'postgresql',
    image: 'postgres',
    defaultMemoryMb: 100,
  },
  MYSQL: {
    versions: ['5.7', '8.0', '8.4'],
    port: 3306,
    login: 'superuser',
    defaultDatabaseName: 'mysql',
    scheme: 'mysql',
    image: 'mysql',
    defaultMemoryMb: 512,
  },
  MONGODB: {
    versions: ['4.4', '5.0', '6.0', '7.0', '8.0'],
    port: 27017,
    login: 'superuser',
    defaultDatabaseName: 'admin',
    scheme: 'mongodb',
    image: 'mongo',
    defaultMemoryMb: 256,
  },
  REDIS: {
    versions: ['6.0', '7.0', '7.2'],
    port: 6379,
    login: 'default',
    defaultDatabaseName: '0',
    scheme: 'redis',
    image: 'redis',
    defaultMemoryMb: 100,
  },
}

/** The reference's default memory of a MANAGED database (ignored there: the instance type decides). */
export const MANAGED_DEFAULT_MEMORY_MB = 100
export const DEFAULT_CPU_MILLICORES = 250
export const DEFAULT_STORAGE_GB = 10

/** What one database may be given: Berth has no cluster capacity to read these from. */
export const DATABASE_LIMITS = {
  cpu: { min: 250, max: 64_000 },
  memory: { min: 100, max: 262_144 },
  storage: { min: 1, max: 16_384 },
} as const

/** Where a version stands among its type's, oldest first; -1 when Berth does not run it. */
export const versionRank = (type: DatabaseType, version: string): number => DATABASE_ENGINES[type].versions.indexOf(version)
