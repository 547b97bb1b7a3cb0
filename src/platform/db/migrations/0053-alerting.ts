import { type Kysely, sql } from 'kysely'

// Issue 46: alert receivers (Slack webhooks, e-mail through a smarthost; their secret sealed) and
// alert rules (PromQL run by Prometheus, notified through Alertmanager) of an organization (docs/alerting.md).
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table alert_receivers (
      id uuid primary key default gen_random_uuid(),
      organization_id uuid not null references organizations(id) on delete cascade,
      name text not null,
      description text not null,
      type text not null check (type in ('SLACK', 'EMAIL')),
      send_resolved boolean not null,
      owner text,
      severity text,
      settings jsonb not null,
      secret_sealed bytea,
      created_at timestamptz not null default now(),
      updated_at timestamptz
    )
  `.execute(db)
  await sql`create index alert_receivers_by_organization on alert_receivers (organization_id, lower(name))`.execute(db)
  await sql`
    create table alert_rules (
      id uuid primary key default gen_random_uuid(),
      organization_id uuid not null references organizations(id) on delete cascade,
      cluster_id uuid not null references clusters(id) on delete cascade,
      name text not null,
      description text not null,
      tag text not null,
      condition jsonb not null,
      scoped_promql text not null,
      for_duration text not null,
      severity text not null check (severity in ('LOW', 'MEDIUM', 'HIGH', 'CRITICAL')),
      presentation jsonb not null,
      enabled boolean not null,
      alert_receiver_ids uuid[] not null,
      target_type text not null,
      target_id uuid not null,
      target_name text not null,
      version integer not null default 1,
      created_at timestamptz not null default now(),
      updated_at timestamptz
    )
  `.execute(db)
  await sql`create index alert_rules_by_organization on alert_rules (organization_id, lower(name))`.execute(db)
  await sql`create index alert_rules_by_receiver on alert_rules using gin (alert_receiver_ids)`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table alert_rules`.execute(db)
  await sql`drop table alert_receivers`.execute(db)
}
