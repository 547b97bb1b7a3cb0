import { DATABASE_ENGINES, type DatabaseType } from './database-engines.ts'

// How a CONTAINER database runs its type's official image, whichever engine runs it (the Docker
// executor, the Kubernetes chart): the image, its data directory, its environment and command.

export interface DatabaseRuntime {
  /** Where the image keeps its data: the volume is mounted there. */
  dataDir: string
  /** The image's environment for the master credentials. */
  env: (login: string, password: string, name: string) => Record<string, string>
  /** The command, when the image takes its password as an argument (`password` may be a reference the engine expands). */
  command?: (password: string) => string[]
}

/** Each database type's data directory, environment and command, as its official image takes them. */
export const DATABASE_RUNTIME: Record<DatabaseType, DatabaseRuntime> = {
  POSTGRESQL: {
    dataDir: '/var/lib/postgresql/data',
    env: (login, password, name) => ({ POSTGRES_USER: login, POSTGRES_PASSWORD: password, POSTGRES_DB: name }),
  },
  MYSQL: {
    dataDir: '/var/lib/mysql',
    env: (login, password) => ({ MYSQL_ROOT_PASSWORD: password, MYSQL_USER: login, MYSQL_PASSWORD: password }),
  },
  MONGODB: { dataDir: '/data/db', env: (login, password) => ({ MONGO_INITDB_ROOT_USERNAME: login, MONGO_INITDB_ROOT_PASSWORD: password }) },
  REDIS: { dataDir: '/data', env: () => ({}), command: (password) => ['redis-server', '--requirepass', password, '--appendonly', 'yes'] },
}

/** The official image of a database, from `images` (BERTH_DOCKER_DATABASE_IMAGES: `docker.io/library`, or a mirror). */
export const databaseImage = (images: string, type: DatabaseType, version: string) => `${images}/${DATABASE_ENGINES[type].image}:${version}`
