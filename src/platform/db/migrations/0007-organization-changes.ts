import { type Kysely, sql } from 'kysely'

// Every Berth process may keep the organizations an API token may act in for a moment; any change
// to organizations tells them all at commit, whatever the code path that made it. Organizations
// change rarely, so one announcement per statement, and listeners forget every list.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create function berth_notify_organization_change() returns trigger language plpgsql as $$
    begin
      perform pg_notify('berth_organizations', '');
      return null;
    end $$`.execute(db)
  await sql`
    create trigger organizations_changed
    after insert or update or delete or truncate on organizations
    for each statement execute function berth_notify_organization_change()`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop trigger if exists organizations_changed on organizations`.execute(db)
  await sql`drop function if exists berth_notify_organization_change()`.execute(db)
}
