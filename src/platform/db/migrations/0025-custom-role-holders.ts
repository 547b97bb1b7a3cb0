import { type Kysely, sql } from 'kysely'

// Issue 20: members, API tokens and invitations may hold a custom role (docs/custom-roles.md, "Custom roles").
// A holder's `role` is READ (what it holds on the organization's own resources) and
// `custom_role_id` names the role that decides its access to projects, environments and services;
// a check keeps the two together so that nothing reads a custom-role holder as a plain member.
// A held custom role cannot be deleted (restrict: the service answers 409). The api_tokens
// trigger of migration 0005 also announces a change of a token's custom role.
export async function up(db: Kysely<unknown>): Promise<void> {
  for (const table of ['organization_members', 'api_tokens', 'member_invitations']) {
    await sql`alter table ${sql.table(table)} add column custom_role_id uuid references custom_roles (id) on delete restrict`.execute(db)
    await sql`alter table ${sql.table(table)} add constraint ${sql.id(`${table}_custom_role_read`)} check (custom_role_id is null or role = 'READ')`.execute(
      db,
    )
    await sql`create index ${sql.id(`${table}_custom_role_idx`)} on ${sql.table(table)} (custom_role_id) where custom_role_id is not null`.execute(db)
  }
  await sql`drop trigger if exists api_tokens_changed on api_tokens`.execute(db)
  await sql`
    create trigger api_tokens_changed
    after update of role, custom_role_id, expired_at, digest, name, organization_id, owner_user_id or delete on api_tokens
    for each row execute function berth_notify_api_token_change()`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop trigger if exists api_tokens_changed on api_tokens`.execute(db)
  await sql`
    create trigger api_tokens_changed
    after update of role, expired_at, digest, name, organization_id, owner_user_id or delete on api_tokens
    for each row execute function berth_notify_api_token_change()`.execute(db)
  for (const table of ['organization_members', 'api_tokens', 'member_invitations']) {
    await sql`alter table ${sql.table(table)} drop column if exists custom_role_id`.execute(db)
  }
}
