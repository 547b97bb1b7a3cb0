import { type Kysely, sql } from 'kysely'

// Environment variables and secrets at every scope (docs/variables.md, "Variables and secrets"): one table for
// project, environment and service variables, their aliases and overrides, and the built-in
// variables, which the database keeps in step with the names they describe whatever the code path
// that renames or creates (triggers below). A variable belongs to its scope's row by foreign key, so
// it goes with it; an alias or an override goes with the variable it points at.
//
// Each deployment snapshot keeps the variables it deployed with, resolved (secrets still sealed), and
// a fingerprint of the variable rows the service saw (their ids and versions), which a service's
// status compares with today's to say OUT_OF_DATE.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table variables (
      id uuid primary key default gen_random_uuid(),
      organization_id uuid not null references organizations (id) on delete cascade,
      project_id uuid not null references projects (id) on delete cascade,
      environment_id uuid references environments (id) on delete cascade,
      service_id uuid references services (id) on delete cascade,
      -- the wire scope: PROJECT, ENVIRONMENT, the service's kind, or BUILT_IN
      scope text not null check (scope in ('PROJECT', 'ENVIRONMENT', 'APPLICATION', 'CONTAINER', 'JOB', 'HELM', 'DATABASE', 'BUILT_IN')),
      variable_type text not null check (variable_type in ('VALUE', 'FILE', 'ALIAS', 'OVERRIDE', 'BUILT_IN')),
      key text not null,
      -- the value of what is not a secret; null for secrets and aliases (an alias shows its target's key)
      value text,
      -- a secret's value, sealed with the server's secret key; never returned
      value_sealed bytea,
      is_secret boolean not null default false,
      mount_path text,
      description text,
      enable_interpolation_in_file boolean,
      aliased_variable_id uuid references variables (id) on delete cascade,
      overridden_variable_id uuid references variables (id) on delete cascade,
      -- bumped on every change: deployments compare the versions they saw
      version integer not null default 1,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      check (service_id is null or environment_id is not null),
      check ((scope = 'PROJECT') = (environment_id is null)),
      check (scope <> 'ENVIRONMENT' or service_id is null),
      check (scope in ('PROJECT', 'ENVIRONMENT', 'BUILT_IN') or service_id is not null),
      check (num_nonnulls(value, value_sealed) <= 1),
      check ((variable_type = 'ALIAS') = (aliased_variable_id is not null)),
      check ((variable_type = 'OVERRIDE') = (overridden_variable_id is not null)),
      check ((variable_type = 'BUILT_IN') = (scope = 'BUILT_IN')),
      -- a key is unique in its scope (keys are case-sensitive)
      constraint variables_key unique nulls not distinct (project_id, environment_id, service_id, key)
    )`.execute(db)
  await sql`create index variables_environment_idx on variables (environment_id) where environment_id is not null`.execute(db)
  await sql`create index variables_service_idx on variables (service_id) where service_id is not null`.execute(db)
  await sql`create index variables_aliased_idx on variables (aliased_variable_id) where aliased_variable_id is not null`.execute(db)
  await sql`create index variables_overridden_idx on variables (overridden_variable_id) where overridden_variable_id is not null`.execute(db)

  // Built-in variables: what describes where a service runs. Written, and rewritten when a name
  // changes, by the database itself; a rewrite that changes a value bumps its version.
  await sql`
    create function berth_write_built_ins(p_organization uuid, p_project uuid, p_environment uuid, p_service uuid, p_pairs text[][])
    returns void language plpgsql as $$
    begin
      insert into variables (organization_id, project_id, environment_id, service_id, scope, variable_type, key, value)
      select p_organization, p_project, p_environment, p_service, 'BUILT_IN', 'BUILT_IN', p_pairs[i][1], p_pairs[i][2]
      from generate_subscripts(p_pairs, 1) as i
      on conflict on constraint variables_key do update
        set value = excluded.value, version = variables.version + 1, updated_at = now()
        where variables.value is distinct from excluded.value;
    end $$`.execute(db)
  await sql`
    create function berth_environment_built_ins(p_environment uuid) returns void language plpgsql as $$
    declare e record;
    begin
      select en.id, en.organization_id, en.project_id, en.name, p.name as project_name into e
      from environments en join projects p on p.id = en.project_id where en.id = p_environment;
      if not found then return; end if;
      perform berth_write_built_ins(e.organization_id, e.project_id, e.id, null, array[
        array['QOVERY_PROJECT_ID', e.project_id::text], array['QOVERY_PROJECT_NAME', e.project_name],
        array['QOVERY_ENVIRONMENT_ID', e.id::text], array['QOVERY_ENVIRONMENT_NAME', e.name]]);
    end $$`.execute(db)
  await sql`
    create function berth_service_built_ins(p_service uuid) returns void language plpgsql as $$
    declare s record;
    begin
      select sv.id, sv.organization_id, en.project_id, sv.environment_id, sv.kind, sv.name into s
      from services sv join environments en on en.id = sv.environment_id where sv.id = p_service;
      if not found then return; end if;
      perform berth_write_built_ins(s.organization_id, s.project_id, s.environment_id, s.id, array[
        array['QOVERY_' || s.kind || '_ID', s.id::text], array['QOVERY_SERVICE_ID', s.id::text],
        array['QOVERY_SERVICE_NAME', s.name], array['QOVERY_SERVICE_TYPE', s.kind]]);
    end $$`.execute(db)
  await sql`
    create function berth_built_ins_on_change() returns trigger language plpgsql as $$
    begin
      if tg_table_name = 'environments' then
        perform berth_environment_built_ins(new.id);
      elsif tg_table_name = 'projects' then
        perform berth_environment_built_ins(en.id) from environments en where en.project_id = new.id;
      else
        perform berth_service_built_ins(new.id);
      end if;
      return null;
    end $$`.execute(db)
  await sql`
    create trigger environments_built_ins after insert or update of name on environments
    for each row execute function berth_built_ins_on_change()`.execute(db)
  await sql`
    create trigger projects_built_ins after update of name on projects
    for each row when (old.name is distinct from new.name) execute function berth_built_ins_on_change()`.execute(db)
  await sql`
    create trigger services_built_ins after insert or update of name on services
    for each row execute function berth_built_ins_on_change()`.execute(db)
  await sql`select berth_environment_built_ins(id) from environments`.execute(db)
  await sql`select berth_service_built_ins(id) from services`.execute(db)

  // The variable rows a service sees (its project's, its environment's and its own, built-ins
  // included), named by id and version: what a deployment deployed with, compared with today.
  await sql`
    create function berth_service_variables_fingerprint(p_service uuid) returns text language sql stable as $$
      select coalesce(md5(string_agg(v.id::text || ':' || v.version, ',' order by v.id)), '')
      from services s
      join environments e on e.id = s.environment_id
      join variables v on v.project_id = e.project_id
        and (v.environment_id is null or v.environment_id = e.id)
        and (v.service_id is null or v.service_id = s.id)
      where s.id = p_service
    $$`.execute(db)

  await sql`alter table deployment_snapshots add column variables jsonb not null default '[]'`.execute(db)
  await sql`alter table deployment_snapshots add column variables_fingerprint text not null default ''`.execute(db)
  // What was deployed before variables existed saw none but the built-ins now written.
  await sql`update deployment_snapshots set variables_fingerprint = berth_service_variables_fingerprint(service_id)`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table deployment_snapshots drop column if exists variables_fingerprint`.execute(db)
  await sql`alter table deployment_snapshots drop column if exists variables`.execute(db)
  await sql`drop function if exists berth_service_variables_fingerprint(uuid)`.execute(db)
  await sql`drop trigger if exists services_built_ins on services`.execute(db)
  await sql`drop trigger if exists projects_built_ins on projects`.execute(db)
  await sql`drop trigger if exists environments_built_ins on environments`.execute(db)
  await sql`drop function if exists berth_built_ins_on_change()`.execute(db)
  await sql`drop function if exists berth_service_built_ins(uuid)`.execute(db)
  await sql`drop function if exists berth_environment_built_ins(uuid)`.execute(db)
  await sql`drop function if exists berth_write_built_ins(uuid, uuid, uuid, uuid, text[])`.execute(db)
  await sql`drop table if exists variables`.execute(db)
}
