import { type Kysely, sql } from 'kysely'

// Every Berth process may remember an environment's organization and history version, so that an
// unchanged history page costs no database round trip; any change to them tells them all at commit
// (channel `berth_history`, the environment's id as payload), whatever the code path that made it:
// - every change to a history bumps its version (migration 0006), in the same transaction: the
//   runner's steps, triggers, cancels, interrupted runs, the demo's backdating;
// - an environment deleted, by itself or with its project or organization (a cascade), takes its
//   history with it, whether or not it had a version yet; one moved (never, through the API) would
//   change whose it is.
// PostgreSQL sends one notification per environment and transaction, however many rows changed.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create function berth_notify_history_change() returns trigger language plpgsql as $$
    begin
      if tg_op = 'DELETE' then
        perform pg_notify('berth_history', old.environment_id::text);
      else
        perform pg_notify('berth_history', new.environment_id::text);
      end if;
      return null;
    end $$`.execute(db)
  await sql`
    create trigger environment_history_versions_changed
    after insert or update or delete on environment_history_versions
    for each row execute function berth_notify_history_change()`.execute(db)

  await sql`
    create function berth_notify_environment_history_gone() returns trigger language plpgsql as $$
    begin
      perform pg_notify('berth_history', old.id::text);
      return null;
    end $$`.execute(db)
  await sql`
    create trigger environments_history_gone
    after update of organization_id, project_id or delete on environments
    for each row execute function berth_notify_environment_history_gone()`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop trigger if exists environments_history_gone on environments`.execute(db)
  await sql`drop function if exists berth_notify_environment_history_gone()`.execute(db)
  await sql`drop trigger if exists environment_history_versions_changed on environment_history_versions`.execute(db)
  await sql`drop function if exists berth_notify_history_change()`.execute(db)
}
