import type { ColumnType, Kysely } from 'kysely'
import type { Db } from '#src/platform/db/database.ts'
import type { Database } from '#src/platform/db/schema.ts'

// Kysely's view of clusters' locks (migration 0060), kept beside the module that alone writes them.

export interface ClusterLocksTable {
  clusterId: string
  organizationId: string
  reason: string
  ttlInDays: number | null
  ownerName: string
  lockedAt: ColumnType<Date, Date | undefined, Date>
  expiresAt: Date | null
}

// A type alias, not an interface: Kysely needs its index signature.
export type ClusterLockTables = { clusterLocks: ClusterLocksTable }

export type ClusterLocksDb = Kysely<Database & ClusterLockTables>

export const withClusterLockTables = (db: Db): ClusterLocksDb => db.withTables<ClusterLockTables>()
