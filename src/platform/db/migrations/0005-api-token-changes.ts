import { type Kysely, sql } from 'kysely'

// Every Berth process may keep authenticated API tokens in memory for a moment; a change that
// matters to authentication (revocation, a lowered role, a new expiry) tells them all at commit
// through NOTIFY, whatever the code path or cascade that made it.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create function berth_notify_api_token_change() returns trigger language plpgsql as $$
    begin
      perform pg_notify('berth_api_tokens', old.id::text);
      return null;
    end $$`.execute(db)
  await sql`
    create trigger api_tokens_changed
    after update of role, expired_at, digest, name, organization_id, owner_user_id or delete on api_tokens
    for each row execute function berth_notify_api_token_change()`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop trigger if exists api_tokens_changed on api_tokens`.execute(db)
  await sql`drop function if exists berth_notify_api_token_change()`.execute(db)
}
