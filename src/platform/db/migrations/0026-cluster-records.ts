import { type Kysely, sql } from 'kysely'

// Issue 22: what the Terraform provider's qovery_cluster keeps on a cluster besides its request.
// Berth provisions no infrastructure, so these are records: the state deployCluster and stopCluster
// set, the advanced settings (the keys that differ from the defaults, as services keep theirs), the
// routing table, and the cloud provider info (credentials named, never used).
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table clusters
      add column state text not null default 'DEPLOYED' check (state in ('DEPLOYED', 'STOPPED')),
      add column advanced_settings jsonb not null default '{}',
      add column routing_table jsonb not null default '[]',
      add column cloud_provider_info jsonb`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table clusters
      drop column if exists state,
      drop column if exists advanced_settings,
      drop column if exists routing_table,
      drop column if exists cloud_provider_info`.execute(db)
}
