import { type Kysely, sql } from 'kysely'

// Issue 48: projects' deployment rules. A rule matches the names of environments created in its
// project (`wildcard`, `*` and `?`), the first in `priority_index` order winning, and gives them its
// mode, cluster and auto-stop schedule. `environment_schedule_marks` says, per environment, up to
// which schedule event the platform acted: a runner claims the row (FOR UPDATE SKIP LOCKED) and
// moves it in the transaction that decides, so an event is acted on once however many processes look.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table project_deployment_rules (
      id uuid primary key default gen_random_uuid(),
      organization_id uuid not null references organizations (id) on delete cascade,
      project_id uuid not null references projects (id) on delete cascade,
      name text not null,
      description text,
      mode text not null,
      -- a rule whose cluster is deleted goes with it: it could not give new environments a cluster
      cluster_id uuid not null references clusters (id) on delete cascade,
      auto_stop boolean not null default false,
      timezone text not null,
      start_time timestamptz not null,
      stop_time timestamptz not null,
      weekdays jsonb not null default '[]',
      wildcard text not null default '',
      priority_index integer not null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    )`.execute(db)
  await sql`create unique index project_deployment_rules_name_key on project_deployment_rules (project_id, lower(name))`.execute(db)
  await sql`create index project_deployment_rules_priority_idx on project_deployment_rules (project_id, priority_index)`.execute(db)
  await sql`
    create table environment_schedule_marks (
      environment_id uuid primary key references environments (id) on delete cascade,
      acted_through timestamptz not null,
      last_action text,
      updated_at timestamptz not null default now()
    )`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table if exists environment_schedule_marks`.execute(db)
  await sql`drop table if exists project_deployment_rules`.execute(db)
}
