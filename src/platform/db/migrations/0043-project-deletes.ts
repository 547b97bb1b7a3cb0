import { type Kysely, sql } from 'kysely'

// Issue 42, item 7: a project is deleted through its environments' deletes (their services
// uninstalled: an IAC service's destroy, its volume, its images), not by the foreign keys' cascade,
// which ran none of that. A project being deleted is marked; it goes when its last environment
// went, whichever path deleted that one (a DELETE run's end, an empty environment's delete). The
// project row is locked first, so that two environments going at once cannot both see the other;
// only a marked one, so that other deletes take no lock they did not take before. No environment
// is added to a project being deleted (as if it were gone: a foreign key violation, which the
// services answer with 404); the share lock makes an insert and the mark wait for each other.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table projects add column deleting_at timestamptz`.execute(db)
  await sql`
    create function delete_emptied_project() returns trigger language plpgsql as $$
    begin
      if not exists (select 1 from projects where id = old.project_id and deleting_at is not null) then
        return null;
      end if;
      perform 1 from projects where id = old.project_id and deleting_at is not null for update;
      if found then
        delete from projects p
        where p.id = old.project_id
          and not exists (select 1 from environments e where e.project_id = old.project_id);
      end if;
      return null;
    end
    $$
  `.execute(db)
  await sql`
    create trigger environments_delete_emptied_project after delete on environments
    for each row execute function delete_emptied_project()
  `.execute(db)
  await sql`
    create function refuse_environment_of_deleted_project() returns trigger language plpgsql as $$
    declare
      marked timestamptz;
    begin
      select deleting_at into marked from projects where id = new.project_id for share;
      if marked is not null then
        raise exception 'project % is being deleted', new.project_id
          using errcode = 'foreign_key_violation', constraint = 'environments_project_id_fkey';
      end if;
      return new;
    end
    $$
  `.execute(db)
  await sql`
    create trigger environments_refuse_deleted_project before insert on environments
    for each row execute function refuse_environment_of_deleted_project()
  `.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop trigger if exists environments_refuse_deleted_project on environments`.execute(db)
  await sql`drop function if exists refuse_environment_of_deleted_project()`.execute(db)
  await sql`drop trigger if exists environments_delete_emptied_project on environments`.execute(db)
  await sql`drop function if exists delete_emptied_project()`.execute(db)
  await sql`alter table projects drop column if exists deleting_at`.execute(db)
}
