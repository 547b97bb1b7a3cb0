import { type Kysely, sql } from 'kysely'

// Issue 36: preview environments. Each row links a preview (an environment of mode PREVIEW cloned
// from `source_environment_id`) to what asked for it: a pull request (provider, repository key as
// pushes name it, number) or a container image's tag (previewContainerEnvironments). The row is
// written before the clone as a claim: the unique index makes a second delivery, retry or replay of
// the same pull request find the first's row instead of cloning again. `environment_id` is null
// while the clone is being made; the preview environment's delete takes the row with it.
// Environments' deployment rules (getEnvironmentDeploymentRule) keep the preview settings the
// reference has beside `auto_preview`, which stays on the environment.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table preview_environments (
      id uuid primary key default gen_random_uuid(),
      organization_id uuid not null references organizations (id) on delete cascade,
      -- null once the source is deleted: the sweep then deletes the preview
      source_environment_id uuid references environments (id) on delete set null,
      environment_id uuid unique references environments (id) on delete cascade,
      -- GITHUB, GITLAB, BITBUCKET for pull requests; CONTAINER for an image's tag
      provider text not null,
      -- github:owner/name (lower case), or the container image's name
      repository text not null,
      pull_request_number integer,
      image_tag text,
      title text,
      url text,
      head_branch text,
      head_commit text,
      author text,
      created_at timestamptz not null default now(),
      last_activity_at timestamptz not null default now()
    )`.execute(db)
  await sql`
    create unique index preview_environments_source_key on preview_environments
      (source_environment_id, provider, repository, coalesce(pull_request_number, -1), coalesce(image_tag, ''))`.execute(db)
  await sql`create index preview_environments_activity_idx on preview_environments (last_activity_at)`.execute(db)
  await sql`
    create table environment_deployment_rules (
      environment_id uuid primary key references environments (id) on delete cascade,
      on_demand_preview boolean not null default false,
      auto_stop boolean not null default false,
      timezone text not null default 'UTC',
      start_time timestamptz not null default '1970-01-01T08:00:00Z',
      stop_time timestamptz not null default '1970-01-01T19:00:00Z',
      weekdays jsonb not null default '[]',
      created_at timestamptz not null default now(),
      updated_at timestamptz
    )`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table if exists environment_deployment_rules`.execute(db)
  await sql`drop table if exists preview_environments`.execute(db)
}
