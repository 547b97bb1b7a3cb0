import { type Kysely, sql } from 'kysely'

// Issue 19: git pushes deploy. Each organization has one webhook secret (sealed with the server's
// secret key) that git providers sign their push events with; the delivery ids already acted on are
// remembered for a while, so that a replayed delivery does nothing. Each service keeps the git
// repository and branch a push to which deploys it (its kind's followed branch, when `auto_deploy`
// is on), written by the service core on every write, so that a push finds its services by index
// instead of reading every configuration of the organization.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table git_webhook_secrets (
      organization_id uuid primary key references organizations (id) on delete cascade,
      secret_sealed bytea not null,
      created_at timestamptz not null default now(),
      rotated_at timestamptz not null default now()
    )`.execute(db)
  await sql`
    create table git_webhook_deliveries (
      organization_id uuid not null references organizations (id) on delete cascade,
      provider text not null,
      delivery_id text not null,
      received_at timestamptz not null default now(),
      primary key (organization_id, provider, delivery_id)
    )`.execute(db)
  await sql`create index git_webhook_deliveries_received_idx on git_webhook_deliveries (received_at)`.execute(db)

  // 'github:owner/name', lower case (providers match owners and names without case); null: pushes deploy nothing.
  await sql`alter table services add column push_repository text`.execute(db)
  // The branch as git names it (case matters); null: the repository's default branch.
  await sql`alter table services add column push_branch text`.execute(db)
  await sql`create index services_push_repository_idx on services (organization_id, push_repository) where push_repository is not null`.execute(db)
  // Helm services are the only kind stored before this migration: their chart's git source, when auto_deploy is on.
  await sql`
    update services set
      push_repository = lower(
        (configuration -> 'source' -> 'git' ->> 'provider') || ':' ||
        (configuration -> 'source' -> 'git' ->> 'owner') || '/' ||
        (configuration -> 'source' -> 'git' ->> 'name')),
      push_branch = configuration -> 'source' -> 'git' ->> 'branch'
    where kind = 'HELM' and configuration -> 'source' ? 'git' and (configuration ->> 'autoDeploy')::boolean`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index if exists services_push_repository_idx`.execute(db)
  await sql`alter table services drop column if exists push_branch`.execute(db)
  await sql`alter table services drop column if exists push_repository`.execute(db)
  await sql`drop table if exists git_webhook_deliveries`.execute(db)
  await sql`drop table if exists git_webhook_secrets`.execute(db)
}
