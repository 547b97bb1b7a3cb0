import { type Kysely, sql } from 'kysely'

// Issue 47: the Argo CD integration (docs/argocd.md). Each cluster's Argo CD instance with its token
// sealed, the mapping of Argo CD's destination cluster URLs to Berth clusters, and the applications
// the poller last saw, each with the GITOPS_APP service that shows it.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table argocd_credentials (
      id uuid primary key default gen_random_uuid(),
      organization_id uuid not null references organizations(id) on delete cascade,
      cluster_id uuid not null unique references clusters(id) on delete cascade,
      argocd_url text not null,
      token_sealed bytea not null,
      -- whether the URL was saved while BERTH_GIT_ALLOW_PRIVATE_URLS allowed private addresses: the runners' syncs go where the save went
      private_allowed boolean not null default false,
      -- connected or error, as the last check or poll found it
      status text not null default 'connected' check (status in ('connected', 'error')),
      last_checked_at timestamptz,
      last_polled_at timestamptz,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    )`.execute(db)

  await sql`
    create table argocd_destination_mappings (
      organization_id uuid not null references organizations(id) on delete cascade,
      agent_cluster_id uuid not null references clusters(id) on delete cascade,
      argocd_cluster_url text not null,
      cluster_id uuid not null references clusters(id) on delete cascade,
      created_at timestamptz not null default now(),
      primary key (agent_cluster_id, argocd_cluster_url)
    )`.execute(db)
  await sql`create index argocd_destination_mappings_by_organization on argocd_destination_mappings (organization_id)`.execute(db)

  await sql`
    create table argocd_apps (
      id uuid primary key default gen_random_uuid(),
      organization_id uuid not null references organizations(id) on delete cascade,
      credentials_id uuid not null references argocd_credentials(id) on delete cascade,
      name text not null,
      destination_server text not null,
      destination_namespace text not null,
      -- the GITOPS_APP service showing it; null while its destination maps to no cluster
      service_id uuid unique references services(id) on delete set null,
      sync_status text,
      health_status text,
      revision text,
      repo_url text,
      path text,
      target_revision text,
      -- the highest status.history id already written to the environment's history
      last_history_id integer,
      last_synced_at timestamptz,
      -- false while its Argo CD does not answer: the status is then unknown
      reachable boolean not null default true,
      seen_at timestamptz not null default now(),
      unique (credentials_id, name)
    )`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table argocd_apps`.execute(db)
  await sql`drop table argocd_destination_mappings`.execute(db)
  await sql`drop table argocd_credentials`.execute(db)
}
