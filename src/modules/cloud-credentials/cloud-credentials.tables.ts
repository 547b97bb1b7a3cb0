import type { ColumnType, Generated, Kysely } from 'kysely'
import type { Db } from '#src/platform/db/database.ts'
import type { Database } from '#src/platform/db/schema.ts'

// Kysely's view of the on-premise credentials (migration 0065), kept beside the module that alone writes them.

export interface OnPremiseCredentialsTable {
  id: Generated<string>
  organizationId: string
  name: string
  createdAt: ColumnType<Date, Date | undefined, never>
  updatedAt: ColumnType<Date, Date | undefined, Date>
}

// A type alias, not an interface: Kysely needs its index signature.
export type CloudCredentialsTables = { onPremiseCredentials: OnPremiseCredentialsTable }

export type CloudCredentialsDb = Kysely<Database & CloudCredentialsTables>

export const withCloudCredentialsTables = (db: Db): CloudCredentialsDb => db.withTables<CloudCredentialsTables>()
