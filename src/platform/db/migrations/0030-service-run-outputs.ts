import { type Kysely, sql } from 'kysely'

// Issue 37: what a service's last run left for its own routes (an IAC apply's resources, served by
// terraformResources), one row per service, replaced by the next run that leaves one.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table service_run_outputs (
      service_id uuid primary key references services(id) on delete cascade,
      execution_id text not null,
      output jsonb not null,
      created_at timestamptz not null default now()
    )
  `.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table if exists service_run_outputs`.execute(db)
}
