import { type Kysely, sql } from 'kysely'

// Issue 45: organizations' outbound webhooks. A deployment that starts or ends writes one delivery
// per matching webhook into an outbox, in the transaction that changes the deployment (the trigger
// below), so that a crash between the change and the delivery loses nothing. Runners deliver from
// the outbox and record every attempt (docs/webhooks.md).
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table organization_webhooks (
      id uuid primary key default gen_random_uuid(),
      organization_id uuid not null references organizations(id) on delete cascade,
      kind text not null check (kind in ('STANDARD', 'SLACK')),
      target_url text not null,
      target_secret_sealed bytea,
      description text,
      enabled boolean not null default true,
      events text[] not null,
      project_names_filter text[] not null default '{}',
      environment_types_filter text[] not null default '{}',
      created_at timestamptz not null default now(),
      updated_at timestamptz
    )
  `.execute(db)
  await sql`create index organization_webhooks_by_organization on organization_webhooks (organization_id, created_at, id)`.execute(db)

  // The outbox: one row per event and webhook, until delivered or given up.
  await sql`
    create table webhook_deliveries (
      id uuid primary key default gen_random_uuid(),
      organization_id uuid not null references organizations(id) on delete cascade,
      webhook_id uuid not null references organization_webhooks(id) on delete cascade,
      event text not null,
      execution_id uuid not null,
      facts jsonb not null,
      state text not null default 'PENDING' check (state in ('PENDING', 'DELIVERED', 'FAILED')),
      attempts integer not null default 0,
      next_attempt_at timestamptz not null default clock_timestamp(),
      lease_expires_at timestamptz,
      created_at timestamptz not null default clock_timestamp(),
      ended_at timestamptz
    )
  `.execute(db)
  await sql`create index webhook_deliveries_due on webhook_deliveries (next_attempt_at) where state = 'PENDING'`.execute(db)

  await sql`
    create table webhook_attempts (
      id uuid primary key default gen_random_uuid(),
      organization_id uuid not null references organizations(id) on delete cascade,
      webhook_id uuid not null references organization_webhooks(id) on delete cascade,
      delivery_id uuid not null references webhook_deliveries(id) on delete cascade,
      kind text not null,
      matched_event text not null,
      target_url_used text not null,
      request jsonb not null,
      status_code integer not null,
      response_body text,
      created_at timestamptz not null default clock_timestamp()
    )
  `.execute(db)
  await sql`create index webhook_attempts_by_webhook on webhook_attempts (webhook_id, created_at desc, id desc)`.execute(db)

  // Project filters are wildcards (`product*`), case-insensitive: * becomes LIKE's %, and LIKE's own
  // special characters in a name are matched as themselves.
  await sql`
    create function webhook_deliveries_for_deployment() returns trigger language plpgsql as $$
    declare
      matched text;
    begin
      matched := case
        when new.action_status = 'ONGOING' and old.action_status = 'QUEUED' then 'DEPLOYMENT_STARTED'
        when new.action_status = 'SUCCESS' then 'DEPLOYMENT_SUCCESSFUL'
        when new.action_status = 'ERROR' then 'DEPLOYMENT_FAILURE'
        when new.action_status = 'CANCELED' then 'DEPLOYMENT_CANCELLED'
      end;
      if matched is null then
        return null;
      end if;
      insert into webhook_deliveries (organization_id, webhook_id, event, execution_id, facts)
      select w.organization_id, w.id, matched, new.id, jsonb_build_object(
          'organization', jsonb_build_object('id', o.id, 'name', o.name),
          'project', jsonb_build_object('id', p.id, 'name', p.name),
          'environment', jsonb_build_object('id', new.environment_id, 'name', e.name, 'mode', e.mode),
          'entry', new.entry_json::jsonb,
          'triggered_by', new.triggered_by,
          'origin', new.origin,
          'occurred_at', clock_timestamp())
        from organization_webhooks w
        join organizations o on o.id = w.organization_id
        left join environments e on e.id = new.environment_id
        left join projects p on p.id = e.project_id
       where w.organization_id = new.organization_id
         and w.enabled
         and matched = any(w.events)
         and (cardinality(w.environment_types_filter) = 0 or e.mode = any(w.environment_types_filter))
         and (cardinality(w.project_names_filter) = 0 or exists (
               select 1 from unnest(w.project_names_filter) as f(pattern)
                where lower(p.name) like replace(replace(replace(replace(lower(f.pattern), '\\', '\\\\'), '%', '\\%'), '_', '\\_'), '*', '%')));
      return null;
    end
    $$
  `.execute(db)
  await sql`
    create trigger deployment_requests_webhook_events
      after update of action_status on deployment_requests
      for each row when (old.action_status is distinct from new.action_status)
      execute function webhook_deliveries_for_deployment()
  `.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop trigger if exists deployment_requests_webhook_events on deployment_requests`.execute(db)
  await sql`drop function if exists webhook_deliveries_for_deployment()`.execute(db)
  await sql`drop table if exists webhook_attempts`.execute(db)
  await sql`drop table if exists webhook_deliveries`.execute(db)
  await sql`drop table if exists organization_webhooks`.execute(db)
}
