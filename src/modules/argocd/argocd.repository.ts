import type { Selectable } from 'kysely'
import type { Db } from '#src/platform/db/database.ts'
import { deleteRows } from '#src/platform/db/rows-by-keys.ts'
import { SERVICE_PLACE_COLUMNS } from '#src/platform/db/service-place.ts'
import { type ArgoCdAppsTable, type ArgoCdCredentialsTable, type ConnectionStatus, withArgoCdTables } from './argocd.tables.ts'

// The SQL of the Argo CD integration's requests: credentials, destination mappings, the
// applications seen and the services showing them. The poller's writes are in argocd-sync.repository.ts.

export type CredentialsRow = Selectable<ArgoCdCredentialsTable>
export type AppRow = Selectable<ArgoCdAppsTable>

/** What the answers show of a Berth cluster. */
export interface ClusterSummary {
  id: string
  organizationId: string
  name: string
  cloudProvider: string
  kubernetes: string
  production: boolean
}

export function createArgoCdRepository(plainDb: Db) {
  const db = withArgoCdTables(plainDb)
  /** The applications shown by services, with their Argo CD (`c`), service (`s`) and its environment (`e`). */
  const appsWithServices = () =>
    db
      .selectFrom('argocdApps as a')
      .innerJoin('argocdCredentials as c', 'c.id', 'a.credentialsId')
      .innerJoin('services as s', 's.id', 'a.serviceId')
      .innerJoin('environments as e', 'e.id', 's.environmentId')
  return {
    clusterById(clusterId: string): Promise<ClusterSummary | undefined> {
      return db
        .selectFrom('clusters')
        .select(['id', 'organizationId', 'name', 'cloudProvider', 'kubernetes', 'production'])
        .where('id', '=', clusterId)
        .executeTakeFirst()
    },

    findCredentials(clusterId: string): Promise<CredentialsRow | undefined> {
      return db.selectFrom('argocdCredentials').selectAll().where('clusterId', '=', clusterId).executeTakeFirst()
    },

    /** Saves or replaces the cluster's Argo CD, checked just now. */
    saveCredentials(
      organizationId: string,
      clusterId: string,
      argocdUrl: string,
      tokenSealed: Buffer,
      privateAllowed: boolean,
    ): Promise<CredentialsRow> {
      const now = new Date()
      const changes = { argocdUrl, tokenSealed, privateAllowed, status: 'connected' as const, lastCheckedAt: now }
      return db
        .insertInto('argocdCredentials')
        .values({ organizationId, clusterId, ...changes })
        .onConflict((oc) => oc.column('clusterId').doUpdateSet({ ...changes, updatedAt: now }))
        .returningAll()
        .executeTakeFirstOrThrow()
    },

    async setStatus(credentialsId: string, status: ConnectionStatus): Promise<void> {
      // Only a change is written: a steady poll writes nothing.
      await db
        .updateTable('argocdCredentials')
        .set({ status, lastPolledAt: new Date() })
        .where('id', '=', credentialsId)
        .where('status', '<>', status)
        .execute()
    },

    /** The organization's Argo CD instances with their agent cluster. */
    listCredentials(organizationId: string) {
      return db
        .selectFrom('argocdCredentials as a')
        .innerJoin('clusters as c', 'c.id', 'a.clusterId')
        .select(['a.id', 'a.clusterId', 'a.argocdUrl', 'a.status', 'a.lastCheckedAt', 'a.updatedAt', 'c.name as clusterName', 'c.cloudProvider'])
        .where('a.organizationId', '=', organizationId)
        .orderBy('c.name')
        .execute()
    },

    /** Every Argo CD instance: what the poller goes through. */
    allCredentials(): Promise<CredentialsRow[]> {
      return db.selectFrom('argocdCredentials').selectAll().orderBy('id').execute()
    },

    async saveMapping(organizationId: string, agentClusterId: string, argocdClusterUrl: string, clusterId: string): Promise<void> {
      await db
        .insertInto('argocdDestinationMappings')
        .values({ organizationId, agentClusterId, argocdClusterUrl, clusterId })
        .onConflict((oc) => oc.columns(['agentClusterId', 'argocdClusterUrl']).doUpdateSet({ clusterId }))
        .execute()
    },

    deleteMapping(organizationId: string, agentClusterId: string, argocdClusterUrl: string): Promise<boolean> {
      return deleteRows(db, 'argocdDestinationMappings', { organizationId, agentClusterId, argocdClusterUrl })
    },

    /** The organization's mappings with what the answers show of the mapped cluster. */
    listMappings(organizationId: string) {
      return db
        .selectFrom('argocdDestinationMappings as m')
        .innerJoin('clusters as c', 'c.id', 'm.clusterId')
        .select(['m.agentClusterId', 'm.argocdClusterUrl', 'm.clusterId', 'c.name as clusterName', 'c.cloudProvider', 'c.kubernetes'])
        .where('m.organizationId', '=', organizationId)
        .orderBy('m.argocdClusterUrl')
        .execute()
    },

    /** The mappings of one agent cluster's Argo CD: destination URL → Berth cluster. */
    async mappingsOf(agentClusterId: string): Promise<Map<string, string>> {
      const rows = await db
        .selectFrom('argocdDestinationMappings')
        .select(['argocdClusterUrl', 'clusterId'])
        .where('agentClusterId', '=', agentClusterId)
        .execute()
      return new Map(rows.map((row) => [row.argocdClusterUrl, row.clusterId]))
    },

    /** How many applications each destination of the organization's Argo CD instances has, as last seen. */
    appCounts(organizationId: string) {
      return db
        .selectFrom('argocdApps as a')
        .innerJoin('argocdCredentials as c', 'c.id', 'a.credentialsId')
        .select(['c.clusterId as agentClusterId', 'a.destinationServer'])
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .where('a.organizationId', '=', organizationId)
        .groupBy(['c.clusterId', 'a.destinationServer'])
        .execute()
    },

    /** The application a GITOPS_APP service shows, with its Argo CD. */
    appOfService(serviceId: string) {
      return appsWithServices()
        .selectAll('a')
        .select(['c.argocdUrl', 'c.tokenSealed', 's.environmentId', 's.createdAt', 's.updatedAt', 'e.clusterId', 'e.projectId'])
        .where('a.serviceId', '=', serviceId)
        .executeTakeFirst()
    },

    /** The services showing the applications of a cluster's Argo CD, with their project and environment. */
    associatedServices(agentClusterId: string) {
      return appsWithServices()
        .innerJoin('projects as p', 'p.id', 'e.projectId')
        .select(SERVICE_PLACE_COLUMNS)
        .where('c.clusterId', '=', agentClusterId)
        .orderBy('e.name')
        .orderBy('s.name')
        .execute()
    },
  }
}

export type ArgoCdRepository = ReturnType<typeof createArgoCdRepository>
