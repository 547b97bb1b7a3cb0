import { type Kysely, sql } from 'kysely'

// Issue 45: the audit log. Each change made through the API is recorded by a trigger on the table it
// changes, in the same transaction: a change that rolls back leaves no event, and no event is
// missing for a change that stays. The API says who acts in the session setting `berth.actor` of
// the connection the change goes through (platform/db/audit-actor.ts); changes without it (the
// runner's own work) are not recorded. docs/audit-log.md.

/** Which tables are audited: how their target is found, its type, and the sub-target they are. */
const AUDITED: [table: string, targetOf: string, targetType: string, subTarget: string][] = [
  ['organizations', 'self', 'ORGANIZATION', ''],
  ['projects', 'self', 'PROJECT', ''],
  ['environments', 'self', 'ENVIRONMENT', ''],
  ['services', 'self', 'SERVICE', ''],
  ['variables', 'scope', '', 'VARIABLE'],
  ['deployment_stages', 'environment', '', 'DEPLOYMENT_STAGE'],
  ['deployment_requests', 'deployment', '', ''],
  ['api_tokens', 'organization', '', 'API_TOKEN'],
  ['organization_members', 'members', '', 'MEMBER_ROLE'],
  ['member_invitations', 'members', '', 'INVITATION'],
  ['custom_roles', 'members', '', 'CUSTOM_ROLE'],
  ['git_tokens', 'organization', '', 'GIT_TOKEN'],
  ['helm_repositories', 'self', 'HELM_REPOSITORY', ''],
  ['container_registries', 'self', 'CONTAINER_REGISTRY', ''],
  ['clusters', 'self', 'CLUSTER', ''],
  ['organization_webhooks', 'self', 'WEBHOOK', ''],
  ['custom_domains', 'service', '', 'CUSTOM_DOMAIN'],
  ['service_advanced_settings', 'service', '', 'ADVANCED_SETTINGS'],
  ['deployment_restrictions', 'service', '', 'DEPLOYMENT_RULE'],
  ['environment_deployment_rules', 'environment', '', 'DEPLOYMENT_RULE'],
  ['organization_groups', 'organization', '', 'LABELS_GROUP'],
  ['backup_destinations', 'organization', '', 'CONFIG'],
  ['database_backup_schedules', 'service', '', 'CONFIG'],
]

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table audit_events (
      id uuid primary key default gen_random_uuid(),
      seq bigint generated always as identity,
      -- No foreign key: an organization's own deletion is recorded too, after its row is gone.
      organization_id uuid not null,
      created_at timestamptz not null default clock_timestamp(),
      event_type text not null,
      target_type text not null,
      target_id uuid,
      target_name text not null default '',
      sub_target_type text,
      change text,
      origin text not null,
      triggered_by text not null,
      triggered_by_id text,
      user_agent text,
      project_id uuid,
      project_name text not null default '',
      environment_id uuid,
      environment_name text not null default ''
    )
  `.execute(db)
  await sql`create index audit_events_page on audit_events (organization_id, seq desc)`.execute(db)
  await sql`create index audit_events_age on audit_events (created_at)`.execute(db)

  // Values of keys that name a secret are masked, at any depth.
  await sql`
    create function audit_masked(value jsonb) returns jsonb language plpgsql immutable as $$
    begin
      if jsonb_typeof(value) = 'object' then
        return coalesce((select jsonb_object_agg(key, case
            when key ~* '(sealed|secret|password|digest|token_start|^token$|private_key|kubeconfig)' and jsonb_typeof(item) <> 'null' then '"********"'::jsonb
            else audit_masked(item) end)
          from jsonb_each(value) as e(key, item)), '{}'::jsonb);
      elsif jsonb_typeof(value) = 'array' then
        return coalesce((select jsonb_agg(audit_masked(item)) from jsonb_array_elements(value) as e(item)), '[]'::jsonb);
      end if;
      return value;
    end
    $$
  `.execute(db)

  await sql`
    create function audit_row_change() returns trigger language plpgsql as $$
    declare
      actor jsonb := nullif(current_setting('berth.actor', true), '')::jsonb;
      target_of text := tg_argv[0];
      sub text := nullif(tg_argv[2], '');
      before_row jsonb;
      after_row jsonb;
      r jsonb;
      event text;
      change jsonb;
      changed_keys text[];
      noise text[] := array['updated_at', 'created_at', 'version', 'configuration_bytes', 'deployment_seq', 'last_used_at'];
      org uuid; svc uuid; env uuid; proj uuid;
      found_org uuid; found_env uuid; found_proj uuid;
      svc_kind text; svc_name text; env_name text; proj_name text;
      t_type text; t_id uuid; t_name text;
    begin
      if tg_op <> 'INSERT' then before_row := to_jsonb(old); end if;
      if tg_op <> 'DELETE' then after_row := to_jsonb(new); end if;
      r := coalesce(after_row, before_row);
      -- A push deploys without a caller of the API: the request names its origin and trigger.
      if actor is null and tg_table_name = 'deployment_requests' and tg_op = 'INSERT' and r->>'origin' = 'GIT' then
        actor := jsonb_build_object('name', r->>'triggered_by', 'origin', 'GIT');
      end if;
      if actor is null then
        return null;
      end if;

      event := case tg_op when 'INSERT' then 'CREATE' when 'UPDATE' then 'UPDATE' else 'DELETE' end;
      if tg_table_name = 'deployment_requests' then
        if tg_op = 'INSERT' then
          event := 'TRIGGER_' || case r->>'trigger_action'
            when 'IAC_FORCE_UNLOCK' then 'TERRAFORM_FORCE_UNLOCK'
            when 'IAC_MIGRATE_STATE' then 'TERRAFORM_MIGRATE_STATE'
            else r->>'trigger_action' end;
        elsif tg_op = 'UPDATE' and not (before_row->>'cancel_requested')::boolean and (after_row->>'cancel_requested')::boolean then
          event := 'TRIGGER_CANCEL';
        else
          return null;
        end if;
        change := jsonb_build_object('execution_id', r->>'id');
      else
        if tg_op = 'UPDATE' then
          select array_agg(key) into changed_keys from jsonb_each(after_row) as e(key, item)
           where not key = any(noise) and item is distinct from before_row->key;
          if changed_keys is null then
            return null;
          end if;
          before_row := (select jsonb_object_agg(key, before_row->key) from unnest(changed_keys) as k(key));
          after_row := (select jsonb_object_agg(key, after_row->key) from unnest(changed_keys) as k(key));
        else
          before_row := before_row - noise;
          after_row := after_row - noise;
        end if;
        -- A secret variable's value is a secret whatever its key's name.
        if coalesce((r->>'is_secret')::boolean, false) then
          before_row := case when before_row ? 'value' then jsonb_set(before_row, '{value}', '"********"') else before_row end;
          after_row := case when after_row ? 'value' then jsonb_set(after_row, '{value}', '"********"') else after_row end;
        end if;
        change := jsonb_strip_nulls(jsonb_build_object(
          'id', r->'id',
          'name', coalesce(r->'name', r->'key', r->'email'),
          'before', audit_masked(before_row),
          'after', audit_masked(after_row)));
      end if;

      org := case when tg_table_name = 'organizations' then (r->>'id')::uuid else (r->>'organization_id')::uuid end;
      svc := case when tg_table_name = 'services' then (r->>'id')::uuid else (r->>'service_id')::uuid end;
      env := case when tg_table_name = 'environments' then (r->>'id')::uuid else (r->>'environment_id')::uuid end;
      proj := case when tg_table_name = 'projects' then (r->>'id')::uuid else (r->>'project_id')::uuid end;
      if tg_table_name = 'services' then
        svc_kind := r->>'kind'; svc_name := r->>'name';
      elsif svc is not null then
        select s.kind, s.name, s.environment_id, s.organization_id into svc_kind, svc_name, found_env, found_org from services s where s.id = svc;
        env := coalesce(env, found_env); org := coalesce(org, found_org);
      end if;
      if tg_table_name = 'environments' then
        env_name := r->>'name';
      end if;
      if env is not null then
        select e.project_id, e.organization_id into found_proj, found_org from environments e where e.id = env;
        env_name := coalesce(env_name, (select e.name from environments e where e.id = env));
        proj := coalesce(proj, found_proj); org := coalesce(org, found_org);
      end if;
      if tg_table_name = 'projects' then
        proj_name := r->>'name';
      elsif proj is not null then
        select p.name, p.organization_id into proj_name, found_org from projects p where p.id = proj;
        org := coalesce(org, found_org);
      end if;
      if org is null then
        return null;
      end if;

      if target_of = 'deployment' then
        target_of := case when svc is not null then 'service' else 'environment' end;
      elsif target_of = 'scope' then
        target_of := case when svc is not null then 'service' when env is not null then 'environment' else 'project' end;
        sub := case when coalesce((r->>'is_secret')::boolean, false) then 'SECRET' else 'VARIABLE' end;
      end if;
      if tg_table_name = 'organization_groups' and r->>'kind' = 'ANNOTATIONS' then
        sub := 'ANNOTATIONS_GROUP';
      end if;
      case target_of
        when 'self' then
          t_type := case when tg_argv[1] = 'SERVICE' then svc_kind else tg_argv[1] end;
          t_id := (r->>'id')::uuid;
          t_name := coalesce(r->>'name', '');
        when 'service' then
          t_type := svc_kind; t_id := svc; t_name := svc_name;
        when 'environment' then
          t_type := 'ENVIRONMENT'; t_id := env; t_name := env_name;
        when 'project' then
          t_type := 'PROJECT'; t_id := proj; t_name := proj_name;
        when 'members' then
          t_type := 'MEMBERS_AND_ROLES';
          t_id := coalesce((r->>'user_id')::uuid, (r->>'id')::uuid);
          t_name := coalesce(r->>'name', r->>'email', (select coalesce(u.name, u.email) from users u where u.id = (r->>'user_id')::uuid), '');
        else
          t_type := 'ORGANIZATION'; t_id := org; t_name := coalesce((select o.name from organizations o where o.id = org), '');
      end case;

      insert into audit_events (organization_id, event_type, target_type, target_id, target_name, sub_target_type, change, origin,
                                triggered_by, triggered_by_id, user_agent, project_id, project_name, environment_id, environment_name)
      values (org, event, coalesce(t_type, 'ORGANIZATION'), t_id, coalesce(t_name, ''), sub, change::text, coalesce(actor->>'origin', 'API'),
              coalesce(actor->>'name', (select coalesce(u.name, u.email) from users u where u.id::text = actor->>'id'), actor->>'id', 'unknown'),
              actor->>'id', actor->>'user_agent', proj, coalesce(proj_name, ''), env, coalesce(env_name, ''));
      return null;
    end
    $$
  `.execute(db)

  for (const [table, targetOf, targetType, subTarget] of AUDITED) {
    // Each table's trigger is made only when the table exists (features land in any order). The
    // names and words are this file's constants, so they go into the statement as written.
    const { rows } = await sql<{ found: string | null }>`select to_regclass(${table})::text as found`.execute(db)
    if (!rows[0]?.found) continue
    await sql
      .raw(
        `create trigger ${table}_audit after insert or update or delete on ${table} for each row ` +
          `execute function audit_row_change('${targetOf}', '${targetType}', '${subTarget}')`,
      )
      .execute(db)
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const [table] of AUDITED) {
    const { rows } = await sql<{ found: string | null }>`select to_regclass(${table})::text as found`.execute(db)
    if (rows[0]?.found) await sql.raw(`drop trigger if exists ${table}_audit on ${table}`).execute(db)
  }
  await sql`drop function if exists audit_row_change()`.execute(db)
  await sql`drop function if exists audit_masked(jsonb)`.execute(db)
  await sql`drop table if exists audit_events`.execute(db)
}
