import { type Kysely, sql } from 'kysely'

// Every table below carries `organization_id` so that repositories scope each query to the
// caller's organization directly (docs/architecture.md). Names are case-insensitively unique in their parent:
// where the reference says "name is case insensitive" (projects, environments, services) and, by
// Berth's choice, for git tokens and helm repositories. References a user may break by deleting a token or
// a repository are NO ACTION (checked at the end of the statement), so deleting an organization
// still cascades through everything while deleting a token that a service uses fails.
export async function up(db: Kysely<unknown>): Promise<void> {
  // Server-wide facts, such as which secret key sealed the stored secrets.
  await sql`
    create table server_settings (
      name text primary key,
      value text not null,
      created_at timestamptz not null default now()
    )`.execute(db)

  await sql`
    create table clusters (
      id uuid primary key default gen_random_uuid(),
      organization_id uuid not null references organizations (id) on delete cascade,
      name text not null,
      cloud_provider text not null,
      region text not null,
      is_default boolean not null default false,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    )`.execute(db)
  await sql`create unique index clusters_default_key on clusters (organization_id) where is_default`.execute(db)

  await sql`
    create table projects (
      id uuid primary key default gen_random_uuid(),
      organization_id uuid not null references organizations (id) on delete cascade,
      name text not null,
      description text,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    )`.execute(db)
  await sql`create unique index projects_name_key on projects (organization_id, lower(name))`.execute(db)

  await sql`
    create table environments (
      id uuid primary key default gen_random_uuid(),
      organization_id uuid not null references organizations (id) on delete cascade,
      project_id uuid not null references projects (id) on delete cascade,
      cluster_id uuid not null references clusters (id),
      name text not null,
      mode text not null check (mode in ('DEVELOPMENT', 'PREVIEW', 'PRODUCTION', 'STAGING')),
      auto_preview boolean not null default false,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    )`.execute(db)
  await sql`create unique index environments_name_key on environments (project_id, lower(name))`.execute(db)
  await sql`create index environments_cluster_idx on environments (cluster_id)`.execute(db)

  await sql`
    create table git_tokens (
      id uuid primary key default gen_random_uuid(),
      organization_id uuid not null references organizations (id) on delete cascade,
      name text not null,
      description text,
      type text not null check (type in ('GITHUB', 'GITLAB', 'BITBUCKET')),
      workspace text,
      git_api_url text,
      -- the provider's token, sealed with the server's secret key (secret-box.ts)
      token_sealed bytea not null,
      expired_at timestamptz,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    )`.execute(db)
  await sql`create unique index git_tokens_name_key on git_tokens (organization_id, lower(name))`.execute(db)

  await sql`
    create table helm_repositories (
      id uuid primary key default gen_random_uuid(),
      organization_id uuid not null references organizations (id) on delete cascade,
      name text not null,
      kind text not null,
      description text,
      url text,
      skip_tls_verification boolean not null,
      -- the config fields that are safe to return (username, region, key ids…)
      config jsonb not null default '{}',
      -- the secret config fields (passwords, secret keys) as sealed JSON; null when there are none
      secrets_sealed bytea,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    )`.execute(db)
  await sql`create unique index helm_repositories_name_key on helm_repositories (organization_id, lower(name))`.execute(db)

  await sql`
    create table helm_services (
      id uuid primary key default gen_random_uuid(),
      organization_id uuid not null references organizations (id) on delete cascade,
      environment_id uuid not null references environments (id) on delete cascade,
      name text not null,
      description text,
      auto_preview boolean not null,
      auto_deploy boolean not null,
      source jsonb not null,
      arguments jsonb not null,
      allow_cluster_wide_resources boolean not null,
      values_override jsonb not null,
      ports jsonb not null,
      timeout_sec integer not null check (timeout_sec >= 0),
      icon_uri text not null,
      blueprint_id uuid,
      -- what the service uses, as real references: counted, and protected from deletion
      source_git_token_id uuid references git_tokens (id),
      values_git_token_id uuid references git_tokens (id),
      helm_repository_id uuid references helm_repositories (id),
      -- bumped on every change; the ETag of the service
      version integer not null default 1,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    )`.execute(db)
  await sql`create unique index helm_services_name_key on helm_services (environment_id, lower(name))`.execute(db)
  await sql`create index helm_services_source_git_token_idx on helm_services (source_git_token_id)`.execute(db)
  await sql`create index helm_services_values_git_token_idx on helm_services (values_git_token_id)`.execute(db)
  await sql`create index helm_services_helm_repository_idx on helm_services (helm_repository_id)`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table if exists helm_services, helm_repositories, git_tokens, environments, projects, clusters, server_settings cascade`.execute(db)
}
