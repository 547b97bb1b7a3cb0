import { sql } from 'kysely'
import { databaseBackupMetrics } from '#src/modules/backups/backup-metrics.ts'
import type { Db } from '#src/platform/db/database.ts'
import type { Family } from './metrics-registry.ts'

// Berth's own state as metrics, read from the database at each scrape (a few aggregate queries):
// the deployment queue, deployments by result and their durations, git webhook deliveries, and
// each database's last successful backup.

/** The families read from the database. */
export async function berthStateFamilies(db: Db): Promise<Family[]> {
  const [queue, ended, deliveries, backups] = await Promise.all([
    db
      .selectFrom('deploymentRequests')
      .select(['actionStatus', sql<number>`count(*)::int`.as('count')])
      .where('actionStatus', 'in', ['QUEUED', 'ONGOING', 'CANCELING'])
      .groupBy('actionStatus')
      .execute(),
    db
      .selectFrom('deploymentRequests')
      .select([
        'actionStatus',
        sql<number>`count(*)::int`.as('count'),
        sql<number>`coalesce(sum(extract(epoch from (ended_at - started_at))), 0)::float8`.as('seconds'),
      ])
      .where('endedAt', 'is not', null)
      .groupBy('actionStatus')
      .execute(),
    db
      .selectFrom('gitWebhookDeliveries')
      .select(['provider', sql<number>`count(*)::int`.as('count')])
      .groupBy('provider')
      .execute(),
    databaseBackupMetrics(db),
  ])
  const backupLabels = (b: (typeof backups)[number]) => ({
    database_id: b.databaseId,
    database_name: b.databaseName,
    environment_id: b.environmentId,
    organization_id: b.organizationId,
  })
  return [
    {
      name: 'berth_deployment_queue_depth',
      help: 'Deployment requests not finished, by action status.',
      type: 'gauge',
      samples: queue.map((row) => ({ labels: { action_status: row.actionStatus }, value: row.count })),
    },
    {
      name: 'berth_deployments_total',
      help: 'Deployment requests that ended, by their final action status.',
      type: 'counter',
      samples: ended.map((row) => ({ labels: { action_status: row.actionStatus }, value: row.count })),
    },
    {
      name: 'berth_deployment_duration_seconds_sum',
      help: 'Total time of the deployment requests that ended, from start to end, by final action status.',
      type: 'counter',
      samples: ended.map((row) => ({ labels: { action_status: row.actionStatus }, value: row.seconds })),
    },
    {
      name: 'berth_git_webhook_deliveries_total',
      help: 'Git webhook deliveries kept, by provider.',
      type: 'counter',
      samples: deliveries.map((row) => ({ labels: { provider: row.provider }, value: row.count })),
    },
    {
      name: 'berth_database_backup_last_success_timestamp_seconds',
      help: "When each database's last successful backup ended (0: never).",
      type: 'gauge',
      samples: backups.map((b) => ({ labels: backupLabels(b), value: b.lastSuccessAt ? b.lastSuccessAt.getTime() / 1000 : 0 })),
    },
    {
      name: 'berth_database_backups',
      help: "Each database's backups, by status.",
      type: 'gauge',
      samples: backups.flatMap((b) => Object.entries(b.counts).map(([status, count]) => ({ labels: { ...backupLabels(b), status }, value: count }))),
    },
  ]
}
