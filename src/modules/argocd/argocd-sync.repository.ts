import { type Selectable, sql } from 'kysely'
import type { Db } from '#src/platform/db/database.ts'
import { type ArgoCdAppsTable, type ArgoCdDb, withArgoCdTables } from './argocd.tables.ts'
import { createArgoCdPlacesRepository, removeServices } from './argocd-places.repository.ts'

// The poller's writes: the integration's project, an environment per destination namespace, a
// GITOPS_APP service per application, and what goes when an application or an instance goes.

export { INTEGRATION_PROJECT } from './argocd-places.repository.ts'

/** What the poller saw of one application. */
export type SeenApp = Omit<
  Selectable<ArgoCdAppsTable>,
  'id' | 'organizationId' | 'credentialsId' | 'serviceId' | 'lastHistoryId' | 'reachable' | 'seenAt'
>

/** A GITOPS_APP service's configuration: which application of which Argo CD it shows. */
export interface GitOpsAppConfiguration {
  application: string
  namespace: string
  credentials_id: string
}

/** The services showing the applications whose `column` is one of `values`. */
const servicesOfApps = (trx: ArgoCdDb, column: 'a.id' | 'a.credentialsId', values: string[]) =>
  trx
    .selectFrom('argocdApps as a')
    .innerJoin('services as s', 's.id', 'a.serviceId')
    .select(['s.id', 's.environmentId'])
    .where(column, 'in', values)
    .execute()

export function createArgoCdSyncRepository(plainDb: Db) {
  const db = withArgoCdTables(plainDb)

  return {
    ...createArgoCdPlacesRepository(plainDb),

    /** The app rows of an instance, by name. */
    async appsOf(credentialsId: string) {
      const rows = await db
        .selectFrom('argocdApps as a')
        .leftJoin('services as s', 's.id', 'a.serviceId')
        .selectAll('a')
        .select(['s.environmentId', 's.id as liveServiceId'])
        .where('a.credentialsId', '=', credentialsId)
        .execute()
      return new Map(rows.map((row) => [row.name, row]))
    },

    /** Keeps what the poll saw of an application; answers its row id. */
    async saveApp(organizationId: string, credentialsId: string, app: SeenApp): Promise<string> {
      const values = { ...app, reachable: true }
      // Only a change is written: a steady poll writes nothing.
      const changed = await db
        .insertInto('argocdApps')
        .values({ organizationId, credentialsId, ...values })
        .onConflict((oc) =>
          oc
            .columns(['credentialsId', 'name'])
            .doUpdateSet({ ...values, seenAt: new Date() })
            .where(
              sql<boolean>`(argocd_apps.destination_server, argocd_apps.destination_namespace, argocd_apps.sync_status, argocd_apps.health_status,
                argocd_apps.revision, argocd_apps.repo_url, argocd_apps.path, argocd_apps.target_revision, argocd_apps.last_synced_at, argocd_apps.reachable)
                is distinct from (excluded.destination_server, excluded.destination_namespace, excluded.sync_status, excluded.health_status,
                excluded.revision, excluded.repo_url, excluded.path, excluded.target_revision, excluded.last_synced_at, excluded.reachable)`,
            ),
        )
        .returning('id')
        .executeTakeFirst()
      if (changed) return changed.id
      const row = await db
        .selectFrom('argocdApps')
        .select('id')
        .where('credentialsId', '=', credentialsId)
        .where('name', '=', app.name)
        .executeTakeFirstOrThrow()
      return row.id
    },

    /** The GITOPS_APP service showing an application, made in its environment when missing; answers its id. */
    async ensureService(
      organizationId: string,
      appId: string,
      environment: { id: string; stageId: string },
      configuration: GitOpsAppConfiguration,
    ): Promise<string> {
      return db.transaction().execute(async (trx) => {
        const app = await trx.selectFrom('argocdApps').select('serviceId').where('id', '=', appId).forUpdate().executeTakeFirstOrThrow()
        if (app.serviceId) {
          const service = await trx.selectFrom('services').select(['id', 'environmentId']).where('id', '=', app.serviceId).executeTakeFirst()
          if (service?.environmentId === environment.id) return service.id
          // Its destination moved: the service goes with its old environment's last service.
          if (service) await removeServices(trx, [service])
        }
        const { id } = await trx
          .insertInto('services')
          .values({
            organizationId,
            environmentId: environment.id,
            kind: 'GITOPS_APP',
            name: configuration.application,
            deploymentStageId: environment.stageId,
            configuration: JSON.stringify(configuration),
          })
          .returning('id')
          .executeTakeFirstOrThrow()
        await trx.updateTable('argocdApps').set({ serviceId: id }).where('id', '=', appId).execute()
        return id
      })
    },

    async setLastHistoryId(appId: string, historyId: number): Promise<void> {
      await db.updateTable('argocdApps').set({ lastHistoryId: historyId }).where('id', '=', appId).execute()
    },

    /** Drops applications and their services: gone from Argo CD, or no longer mapped (`keepRows`: only the service goes). */
    async removeApps(appIds: string[], keepRows = false): Promise<void> {
      if (appIds.length === 0) return
      await db.transaction().execute(async (trx) => {
        const services = await servicesOfApps(trx, 'a.id', appIds)
        if (keepRows) await trx.updateTable('argocdApps').set({ serviceId: null, lastHistoryId: null }).where('id', 'in', appIds).execute()
        else await trx.deleteFrom('argocdApps').where('id', 'in', appIds).execute()
        await removeServices(trx, services)
      })
    },

    /** An instance that did not answer: its applications' status is unknown, and they stay. */
    async markUnreachable(credentialsId: string): Promise<void> {
      await db.updateTable('argocdApps').set({ reachable: false }).where('credentialsId', '=', credentialsId).where('reachable', '=', true).execute()
    },

    /**
     * Removes an Argo CD instance: its applications' services, the environments left without a
     * service, and the instance. The integration's project stays (docs/argocd.md).
     */
    async removeInstance(credentialsId: string): Promise<void> {
      await db.transaction().execute(async (trx) => {
        const services = await servicesOfApps(trx, 'a.credentialsId', [credentialsId])
        await trx.deleteFrom('argocdCredentials').where('id', '=', credentialsId).execute()
        await removeServices(trx, services)
      })
    },

    /**
     * Runs `work` when no other process polls the instance, holding a PostgreSQL advisory lock on
     * one connection meanwhile; false when another holds it.
     */
    async withPollLock(credentialsId: string, work: () => Promise<void>): Promise<boolean> {
      return plainDb.connection().execute(async (connection) => {
        const key = `berth.argocd.poll:${credentialsId}`
        const { rows } = await sql<{ locked: boolean }>`select pg_try_advisory_lock(hashtextextended(${key}, 0)) as locked`.execute(connection)
        if (!rows[0]?.locked) return false
        try {
          await work()
        } finally {
          await sql`select pg_advisory_unlock(hashtextextended(${key}, 0))`.execute(connection)
        }
        return true
      })
    },
  }
}

export type ArgoCdSyncRepository = ReturnType<typeof createArgoCdSyncRepository>
