import { type Kysely, sql } from 'kysely'

// One service model for every kind (docs/architecture.md): a `services` row holds what every kind has (its
// environment, kind, name, deployment stage, configuration version) and the kind's own
// configuration as JSON; what a configuration references (git tokens, helm repositories) is kept as
// real foreign keys in `service_references`, so it is counted and protected from deletion whatever
// the kind. Helm services move here from `helm_services`, which goes.
//
// Deployment stages order an environment's deployment. Each deployment keeps a snapshot of every
// service it includes as of its trigger, and the log lines its steps wrote.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table deployment_stages (
      id uuid primary key default gen_random_uuid(),
      organization_id uuid not null references organizations (id) on delete cascade,
      environment_id uuid not null references environments (id) on delete cascade,
      name text not null,
      description text,
      -- 1, 2, 3… within the environment: the order stages deploy in
      position integer not null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    )`.execute(db)
  await sql`create unique index deployment_stages_name_key on deployment_stages (environment_id, lower(name))`.execute(db)
  await sql`create index deployment_stages_environment_idx on deployment_stages (environment_id, position)`.execute(db)

  await sql`
    create table services (
      id uuid primary key default gen_random_uuid(),
      organization_id uuid not null references organizations (id) on delete cascade,
      environment_id uuid not null references environments (id) on delete cascade,
      kind text not null check (kind in ('APPLICATION', 'DATABASE', 'CONTAINER', 'JOB', 'HELM', 'IAC', 'GITOPS_APP')),
      name text not null,
      -- NO ACTION: a stage with services cannot be deleted, but an environment's delete takes both
      deployment_stage_id uuid not null references deployment_stages (id),
      -- left out of environment-level deployments (attachServiceToDeploymentStage's is_skipped)
      deployment_skipped boolean not null default false,
      configuration jsonb not null,
      -- bumped on every change; the service's ETag
      version integer not null default 1,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    )`.execute(db)
  // A name is unique in its environment whatever the kind, ignoring case.
  await sql`create unique index services_name_key on services (environment_id, lower(name))`.execute(db)
  await sql`create index services_stage_idx on services (deployment_stage_id)`.execute(db)

  await sql`
    create table service_references (
      service_id uuid not null references services (id) on delete cascade,
      -- which part of the configuration holds the reference (a kind's own word: 'source', 'values')
      field text not null,
      git_token_id uuid references git_tokens (id) deferrable initially deferred,
      helm_repository_id uuid references helm_repositories (id) deferrable initially deferred,
      primary key (service_id, field),
      check (num_nonnulls(git_token_id, helm_repository_id) = 1)
    )`.execute(db)
  await sql`create index service_references_git_token_idx on service_references (git_token_id) where git_token_id is not null`.execute(db)
  await sql`create index service_references_helm_repository_idx on service_references (helm_repository_id) where helm_repository_id is not null`.execute(
    db,
  )

  // What each deployment deploys, as of its trigger: the executor runs it, and an edit made after
  // the trigger changes neither the run nor its history.
  await sql`
    create table deployment_snapshots (
      execution_id uuid not null references deployment_requests (id) on delete cascade,
      service_id uuid not null,
      kind text not null,
      name text not null,
      version integer not null,
      configuration jsonb not null,
      -- what the trigger asked for beyond the configuration (a chart version, a commit)
      overrides jsonb not null default '{}',
      primary key (execution_id, service_id)
    )`.execute(db)

  // What a deployment's steps wrote, oldest first by id.
  await sql`
    create table deployment_logs (
      id bigint generated always as identity primary key,
      execution_id uuid not null references deployment_requests (id) on delete cascade,
      organization_id uuid not null,
      environment_id uuid not null,
      service_id uuid,
      stage_name text,
      step text not null,
      level text not null check (level in ('INFO', 'WARNING', 'ERROR')),
      message text not null,
      created_at timestamptz not null default clock_timestamp()
    )`.execute(db)
  await sql`create index deployment_logs_execution_idx on deployment_logs (execution_id, id)`.execute(db)
  // Pruning by age walks the oldest first.
  await sql`create index deployment_logs_created_idx on deployment_logs (created_at)`.execute(db)

  // Where a cluster's environments deploy (docs/architecture.md); the simulator until other executors exist.
  await sql`alter table clusters add column executor text not null default 'SIMULATED' check (executor in ('SIMULATED'))`.execute(db)

  // Helm services move: their stage, their row, their references, and a snapshot for the
  // deployments that deployed the version they still have (older ones say nothing of today's).
  await sql`
    insert into deployment_stages (organization_id, environment_id, name, position)
    select distinct organization_id, environment_id, 'HELM DEFAULT', 1 from helm_services`.execute(db)
  await sql`
    insert into services (id, organization_id, environment_id, kind, name, deployment_stage_id, configuration, version, created_at, updated_at)
    select h.id, h.organization_id, h.environment_id, 'HELM', h.name, st.id,
      jsonb_build_object(
        'description', h.description, 'timeoutSec', h.timeout_sec, 'autoPreview', h.auto_preview,
        'autoDeploy', h.auto_deploy, 'source', h.source, 'arguments', h.arguments,
        'allowClusterWideResources', h.allow_cluster_wide_resources, 'valuesOverride', h.values_override,
        'ports', h.ports, 'iconUri', h.icon_uri, 'blueprintId', h.blueprint_id),
      h.version, h.created_at, h.updated_at
    from helm_services h join deployment_stages st on st.environment_id = h.environment_id`.execute(db)
  await sql`
    insert into service_references (service_id, field, git_token_id, helm_repository_id)
    select id, 'source', source_git_token_id, null::uuid from helm_services where source_git_token_id is not null
    union all select id, 'values', values_git_token_id, null::uuid from helm_services where values_git_token_id is not null
    union all select id, 'repository', null::uuid, helm_repository_id from helm_services where helm_repository_id is not null`.execute(db)
  await sql`
    insert into deployment_snapshots (execution_id, service_id, kind, name, version, configuration)
    select d.execution_id, s.id, s.kind, s.name, s.version, s.configuration
    from service_deployments d join services s on s.id = d.service_id and s.version = d.service_version`.execute(db)
  await sql`drop table helm_services`.execute(db)
}

export async function down(): Promise<void> {
  throw new Error('migration 0008 (one service model) cannot be undone: restore the backup taken before upgrading')
}
