import { type Kysely, sql } from 'kysely'

// Issue 18: the durable cron scheduler, and jobs' advanced settings (below) (docs/architecture.md, "Cron jobs"). One row per deployed
// cron job: its schedule as deployed and the next time it fires. Runners claim due rows with FOR
// UPDATE SKIP LOCKED and, in the same transaction, queue the job's run and advance `next_fire_at`,
// so that each tick is queued once whatever the number of runners. A successful deploy of the job
// writes its row; a successful stop or uninstall removes it; deleting the job removes it (cascade).
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table cron_job_schedules (
      service_id uuid primary key references services (id) on delete cascade,
      environment_id uuid not null references environments (id) on delete cascade,
      scheduled_at text not null,
      timezone text not null,
      next_fire_at timestamptz not null,
      -- how many ticks were queued, and when the last one was (for operators)
      fired integer not null default 0,
      last_fired_at timestamptz,
      updated_at timestamptz not null default now()
    )`.execute(db)
  await sql`create index cron_job_schedules_due_idx on cron_job_schedules (next_fire_at)`.execute(db)

  // A job's advanced settings as last PUT (the keys it set); reads fill in the defaults.
  await sql`
    create table job_advanced_settings (
      service_id uuid primary key references services (id) on delete cascade,
      settings jsonb not null,
      updated_at timestamptz not null default now()
    )`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table job_advanced_settings`.execute(db)
  await sql`drop table cron_job_schedules`.execute(db)
}
