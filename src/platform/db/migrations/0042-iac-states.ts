import { type Kysely, sql } from 'kysely'

// Issue 42, item 1: IAC services keep their state in Berth's own table, served to their runs by the
// engine's http backend with a credential of the run (docs/iac.md, "State"), instead of a schema per
// service that the engine's pg backend reached with Berth's own database credentials. The states the
// pg backend kept in this database (schemas `berth_iac_{service id}`, table `states`, workspace
// `default`) are copied over, and the schemas dropped: they were readable by every run.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table iac_states (
      service_id uuid primary key references services(id) on delete cascade,
      state text,
      lock_info jsonb,
      updated_at timestamptz not null default now()
    )
  `.execute(db)
  await sql`
    do $$
    declare
      found record;
      service uuid;
    begin
      for found in
        select table_schema from information_schema.tables
        where table_schema like 'berth\_iac\_%' and table_name = 'states'
      loop
        service := replace(substring(found.table_schema from 11), '_', '-')::uuid;
        if exists (select 1 from services where id = service) then
          execute format('insert into iac_states (service_id, state) select $1, data from %I.states where name = ''default''', found.table_schema)
            using service;
        end if;
        execute format('drop schema %I cascade', found.table_schema);
      end loop;
    end
    $$
  `.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table if exists iac_states`.execute(db)
}
