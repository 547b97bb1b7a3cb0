import type { ColumnType, Generated, Kysely } from 'kysely'
import type { Db } from '#src/platform/db/database.ts'
import type { Database } from '#src/platform/db/schema.ts'

// Kysely's view of clusters' locks (migration 0060), log lines and DNS providers (migration 0065),
// kept beside the module that alone writes them.

export interface ClusterLocksTable {
  clusterId: string
  organizationId: string
  reason: string
  ttlInDays: number | null
  ownerName: string
  lockedAt: ColumnType<Date, Date | undefined, Date>
  expiresAt: Date | null
}

/** A line of what Berth did to a cluster (listClusterLogs). */
export interface ClusterLogsTable {
  id: Generated<string>
  clusterId: string
  organizationId: string
  createdAt: ColumnType<Date, Date | undefined, never>
  type: 'info' | 'warning' | 'error'
  step: string
  message: string
  errorTag: string | null
}

/** A cluster's DNS provider (editClusterDnsProvider); a Cloudflare API token or Route53 secret key sealed. */
export interface ClusterDnsProvidersTable {
  clusterId: string
  organizationId: string
  provider: 'QOVERY' | 'CLOUDFLARE' | 'ROUTE53'
  domain: string
  email: string | null
  proxied: boolean | null
  awsRegion: string | null
  hostedZoneId: string | null
  awsAccessKeyId: string | null
  secretSealed: Buffer | null
  updatedAt: ColumnType<Date, Date | undefined, Date>
}

// A type alias, not an interface: Kysely needs its index signature.
export type ClusterLockTables = { clusterLocks: ClusterLocksTable; clusterLogs: ClusterLogsTable; clusterDnsProviders: ClusterDnsProvidersTable }

export type ClusterLocksDb = Kysely<Database & ClusterLockTables>

export const withClusterLockTables = (db: Db): ClusterLocksDb => db.withTables<ClusterLockTables>()
