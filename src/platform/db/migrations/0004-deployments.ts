import { type Kysely, sql } from 'kysely'

// Deployment requests: one row per trigger, the environment's queue and its history at once.
// `progress` is the runner's working state (stages, services, timings); `entry_json` is the
// history entry rendered from it at every change, so that a history page is read, never rebuilt.
export async function up(db: Kysely<unknown>): Promise<void> {
  // Numbers an environment's requests 1, 2, 3…; bumping it also serialises the environment's triggers.
  await sql`alter table environments add column deployment_seq bigint not null default 0`.execute(db)

  await sql`
    create table deployment_requests (
      id uuid primary key default gen_random_uuid(),
      organization_id uuid not null references organizations (id) on delete cascade,
      environment_id uuid not null references environments (id) on delete cascade,
      seq bigint not null,
      service_id uuid,
      trigger_action text not null,
      origin text not null,
      triggered_by text not null,
      status text not null,
      action_status text not null,
      cancel_requested boolean not null default false,
      progress jsonb not null,
      message text,
      lease_owner text,
      lease_expires_at timestamptz,
      claims integer not null default 0,
      created_at timestamptz not null default clock_timestamp(),
      updated_at timestamptz not null default clock_timestamp(),
      started_at timestamptz,
      ended_at timestamptz,
      entry_json text not null,
      constraint deployment_requests_seq_key unique (environment_id, seq)
    )`.execute(db)
  await sql`create index deployment_requests_history_idx on deployment_requests (environment_id, created_at desc, id desc)`.execute(db)
  // The runners' work: small, whatever the size of the history.
  await sql`
    create index deployment_requests_unfinished_idx on deployment_requests (environment_id, seq)
    where action_status in ('QUEUED', 'ONGOING', 'CANCELING')`.execute(db)

  // One row per service a request deploys: the service-level history (helm deploymentHistoryV2).
  await sql`
    create table service_deployments (
      execution_id uuid not null references deployment_requests (id) on delete cascade,
      service_id uuid not null,
      organization_id uuid not null,
      environment_id uuid not null,
      created_at timestamptz not null,
      trigger_action text not null,
      origin text not null,
      status text not null,
      action_status text not null,
      reached boolean not null,
      service_version integer,
      entry_json text not null,
      primary key (execution_id, service_id)
    )`.execute(db)
  // A service's state comes from the latest entry that reached it (or that still may).
  await sql`create index service_deployments_history_idx on service_deployments (service_id, created_at desc, execution_id desc)`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table if exists service_deployments, deployment_requests cascade`.execute(db)
  await sql`alter table environments drop column if exists deployment_seq`.execute(db)
}
