import { type Kysely, sql } from 'kysely'

// The built-in variables of databases (docs/databases.md, "Databases"): each database gives every service of
// its environment its host, port, login, password and URIs, named as the platform names them
// (`QOVERY_POSTGRESQL_Z1A2B3C4D_HOST`). They are rows of `variables` at the environment's scope,
// written by the database itself whenever a database's configuration is written, whatever the code
// path, and deleted with the database.
//
// A trigger cannot seal a secret, so the service seals the password and the URI that holds it
// before it stores the configuration (`credentials.passwordSealed`, `credentials.uriSealed`,
// base64); the trigger copies them, still sealed, into `value_sealed`. The keys name the database by
// its id, which never changes, so a rename leaves them as they are.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create function berth_database_key_prefix(p_service uuid, p_type text) returns text language sql immutable as $$
      select 'QOVERY_' || p_type || '_Z' || upper(left(p_service::text, 8)) || '_'
    $$`.execute(db)
  await sql`
    create function berth_database_built_ins(p_service uuid) returns void language plpgsql as $$
    declare s record; c jsonb; prefix text;
    begin
      select sv.id, sv.organization_id, en.project_id, sv.environment_id, sv.configuration into s
      from services sv join environments en on en.id = sv.environment_id where sv.id = p_service and sv.kind = 'DATABASE';
      if not found then return; end if;
      c := s.configuration -> 'credentials';
      if c is null then return; end if;
      prefix := berth_database_key_prefix(s.id, s.configuration ->> 'type');
      insert into variables (organization_id, project_id, environment_id, service_id, scope, variable_type, key, value, value_sealed, is_secret)
      select s.organization_id, s.project_id, s.environment_id, null, 'BUILT_IN', 'BUILT_IN', prefix || b.suffix, b.value, b.sealed, b.sealed is not null
      from (values
        ('HOST', c ->> 'host', null::bytea),
        ('HOST_INTERNAL', c ->> 'host', null),
        ('PORT', c ->> 'port', null),
        ('LOGIN', c ->> 'login', null),
        ('DEFAULT_DATABASE_NAME', c ->> 'databaseName', null),
        ('DATABASE_URI_WITHOUT_CREDENTIALS', c ->> 'uriWithoutCredentials', null),
        ('PASSWORD', null, decode(c ->> 'passwordSealed', 'base64')),
        ('DATABASE_URI', null, decode(c ->> 'uriSealed', 'base64'))
      ) as b (suffix, value, sealed)
      on conflict on constraint variables_key do update
        set value = excluded.value, value_sealed = excluded.value_sealed, is_secret = excluded.is_secret,
          version = variables.version + 1, updated_at = now()
        where (variables.value, variables.value_sealed) is distinct from (excluded.value, excluded.value_sealed);
    end $$`.execute(db)
  await sql`
    create function berth_database_built_ins_on_change() returns trigger language plpgsql as $$
    begin
      if tg_op = 'DELETE' then
        delete from variables v
        where v.environment_id = old.environment_id and v.service_id is null and v.variable_type = 'BUILT_IN'
          and left(v.key, length(berth_database_key_prefix(old.id, old.configuration ->> 'type')))
            = berth_database_key_prefix(old.id, old.configuration ->> 'type');
      else
        perform berth_database_built_ins(new.id);
      end if;
      return null;
    end $$`.execute(db)
  await sql`
    create trigger services_database_built_ins after insert or update of configuration on services
    for each row when (new.kind = 'DATABASE') execute function berth_database_built_ins_on_change()`.execute(db)
  await sql`
    create trigger services_database_built_ins_deleted after delete on services
    for each row when (old.kind = 'DATABASE') execute function berth_database_built_ins_on_change()`.execute(db)
  await sql`select berth_database_built_ins(id) from services where kind = 'DATABASE'`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop trigger if exists services_database_built_ins_deleted on services`.execute(db)
  await sql`drop trigger if exists services_database_built_ins on services`.execute(db)
  await sql`
    delete from variables v using services s
    where s.kind = 'DATABASE' and v.environment_id = s.environment_id and v.service_id is null and v.variable_type = 'BUILT_IN'
      and left(v.key, length(berth_database_key_prefix(s.id, s.configuration ->> 'type'))) = berth_database_key_prefix(s.id, s.configuration ->> 'type')`.execute(
    db,
  )
  await sql`drop function if exists berth_database_built_ins_on_change()`.execute(db)
  await sql`drop function if exists berth_database_built_ins(uuid)`.execute(db)
  await sql`drop function if exists berth_database_key_prefix(uuid, text)`.execute(db)
}
