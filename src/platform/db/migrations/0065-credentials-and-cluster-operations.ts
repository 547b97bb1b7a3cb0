import { type Kysely, sql } from 'kysely'

// Issue 48: the organization's on-premise credentials (the one cloud-provider credential family a
// self-hosted platform counts; a cluster names them in its cloud provider info), a cluster's log
// lines (what Berth did to it: deploy, stop, upgrade, kubeconfig, DNS provider, locks), and its DNS
// provider (the domain its services' default names live under; a provider's secret sealed).
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table on_premise_credentials (
      id uuid primary key default gen_random_uuid(),
      organization_id uuid not null references organizations (id) on delete cascade,
      name text not null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    )`.execute(db)
  await sql`create unique index on_premise_credentials_name_key on on_premise_credentials (organization_id, lower(name))`.execute(db)
  await sql`
    create table cluster_logs (
      id bigserial primary key,
      cluster_id uuid not null references clusters (id) on delete cascade,
      organization_id uuid not null references organizations (id) on delete cascade,
      created_at timestamptz not null default clock_timestamp(),
      type text not null check (type in ('info', 'warning', 'error')),
      step text not null,
      message text not null,
      error_tag text
    )`.execute(db)
  await sql`create index cluster_logs_cluster_idx on cluster_logs (cluster_id, id)`.execute(db)
  await sql`
    create table cluster_dns_providers (
      cluster_id uuid primary key references clusters (id) on delete cascade,
      organization_id uuid not null references organizations (id) on delete cascade,
      provider text not null check (provider in ('QOVERY', 'CLOUDFLARE', 'ROUTE53')),
      domain text not null,
      email text,
      proxied boolean,
      aws_region text,
      hosted_zone_id text,
      aws_access_key_id text,
      secret_sealed bytea,
      updated_at timestamptz not null default now()
    )`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table if exists cluster_dns_providers`.execute(db)
  await sql`drop table if exists cluster_logs`.execute(db)
  await sql`drop table if exists on_premise_credentials`.execute(db)
}
