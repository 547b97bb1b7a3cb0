import { randomInt } from 'node:crypto'
import type { SecretBox } from '#src/platform/secrets/secret-box.ts'
import type { DatabaseCredentials } from './database.types.ts'
import { DATABASE_ENGINES, type DatabaseType } from './database-engines.ts'

// A database's master credentials, made once at creation. The password is 32 characters drawn
// uniformly from 62 (about 190 bits) with nothing a URI would have to escape.

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'
const PASSWORD_LENGTH = 32

export function generatePassword(): string {
  let password = ''
  for (let i = 0; i < PASSWORD_LENGTH; i++) password += ALPHABET[randomInt(ALPHABET.length)]
  return password
}

/**
 * The platform's name of a database in its built-in variables: `Z` and the first 8 hex digits of
 * its id, upper case (`QOVERY_POSTGRESQL_Z1A2B3C4D_HOST`).
 */
export const databaseKeyId = (databaseId: string) => `Z${databaseId.slice(0, 8).toUpperCase()}`

/** What the keys of a database's built-in variables start with (`QOVERY_POSTGRESQL_Z1A2B3C4D_`). */
export const databaseKeyPrefix = (databaseId: string, type: string) => `QOVERY_${type}_${databaseKeyId(databaseId)}_`

/** The host the environment's services reach a database at: its key id and type, lower case, like the platform's. */
export const databaseHost = (databaseId: string, type: DatabaseType) => `${databaseKeyId(databaseId).toLowerCase()}-${type.toLowerCase()}`

/** New credentials for the database `databaseId`, the password and the URI holding it sealed with `secrets`. */
export function newDatabaseCredentials(databaseId: string, type: DatabaseType, secrets: SecretBox): DatabaseCredentials {
  const engine = DATABASE_ENGINES[type]
  const host = databaseHost(databaseId, type)
  const password = generatePassword()
  const address = `${host}:${engine.port}/${engine.defaultDatabaseName}`
  return {
    host,
    port: engine.port,
    login: engine.login,
    databaseName: engine.defaultDatabaseName,
    uriWithoutCredentials: `${engine.scheme}://${address}`,
    passwordSealed: secrets.seal(password).toString('base64'),
    uriSealed: secrets.seal(`${engine.scheme}://${engine.login}:${password}@${address}`).toString('base64'),
  }
}

/** The master password in the clear, for getDatabaseMasterCredentials only. */
export const openPassword = (credentials: DatabaseCredentials, secrets: SecretBox): string =>
  secrets.open(Buffer.from(credentials.passwordSealed, 'base64'))
