import type { ColumnType, Generated, Kysely } from 'kysely'
import type { Db } from '#src/platform/db/database.ts'
import type { Database } from '#src/platform/db/schema.ts'

// Kysely's view of the Argo CD tables (migration 0056), kept beside the module that alone uses them.

type CreatedAt = ColumnType<Date, Date | undefined, never>

export type ConnectionStatus = 'connected' | 'error'

/** A cluster's Argo CD instance; its token sealed with the server's SecretBox. */
export interface ArgoCdCredentialsTable {
  id: Generated<string>
  organizationId: string
  clusterId: string
  argocdUrl: string
  tokenSealed: Buffer
  privateAllowed: Generated<boolean>
  status: Generated<ConnectionStatus>
  lastCheckedAt: Date | null
  lastPolledAt: Date | null
  createdAt: CreatedAt
  updatedAt: Generated<Date>
}

/** Argo CD's destination cluster URL, as one agent cluster's Argo CD reports it, mapped to a Berth cluster. */
export interface ArgoCdDestinationMappingsTable {
  organizationId: string
  agentClusterId: string
  argocdClusterUrl: string
  clusterId: string
  createdAt: CreatedAt
}

/** An application the poller last saw, with the GITOPS_APP service showing it. */
export interface ArgoCdAppsTable {
  id: Generated<string>
  organizationId: string
  credentialsId: string
  name: string
  destinationServer: string
  destinationNamespace: string
  serviceId: string | null
  syncStatus: string | null
  healthStatus: string | null
  revision: string | null
  repoUrl: string | null
  path: string | null
  targetRevision: string | null
  lastHistoryId: number | null
  lastSyncedAt: Date | null
  reachable: Generated<boolean>
  seenAt: Generated<Date>
}

// A type alias, not an interface: Kysely needs its index signature.
export type ArgoCdTables = {
  argocdCredentials: ArgoCdCredentialsTable
  argocdDestinationMappings: ArgoCdDestinationMappingsTable
  argocdApps: ArgoCdAppsTable
}

export type ArgoCdDb = Kysely<Database & ArgoCdTables>

/** The database with the Argo CD tables in view. */
export const withArgoCdTables = (db: Db): ArgoCdDb => db.withTables<ArgoCdTables>()
