import { type Kysely, sql } from 'kysely'

// Issue 20: advanced settings for every kind of service, not only jobs. The jobs' table becomes the
// one table of every kind (its rows kept); a row holds the keys a service was given that differ
// from its kind's defaults, and goes with its service (cascade). Each deployment's snapshot of a
// service keeps the settings it deploys with, for executors to honour.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table job_advanced_settings rename to service_advanced_settings`.execute(db)
  await sql`alter table service_advanced_settings rename constraint job_advanced_settings_pkey to service_advanced_settings_pkey`.execute(db)
  await sql`alter table service_advanced_settings rename constraint job_advanced_settings_service_id_fkey to service_advanced_settings_service_id_fkey`.execute(
    db,
  )
  // What each deployment deploys with, as of its trigger, beside the configuration and variables.
  await sql`alter table deployment_snapshots add column advanced_settings jsonb not null default '{}'`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table deployment_snapshots drop column advanced_settings`.execute(db)
  await sql`alter table service_advanced_settings rename constraint service_advanced_settings_service_id_fkey to job_advanced_settings_service_id_fkey`.execute(
    db,
  )
  await sql`alter table service_advanced_settings rename constraint service_advanced_settings_pkey to job_advanced_settings_pkey`.execute(db)
  await sql`alter table service_advanced_settings rename to job_advanced_settings`.execute(db)
}
