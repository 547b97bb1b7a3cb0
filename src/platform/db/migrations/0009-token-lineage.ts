import { type Kysely, sql } from 'kysely'

// Issue 23: what an API token made goes with it.
// - A token minted by a token is deleted with it (transitively, through the cascade), so that a
//   leaked token cannot leave working copies of itself behind. The creator link is no longer
//   cleared on delete: while a token exists, so does the token that minted it.
// - An organization created by an API token records the organization that token belonged to. That
//   organization's ADMINs manage it (and, in turn, what its own tokens create), whatever becomes of
//   the token. An organization that manages others cannot be deleted before them (NO ACTION).
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table api_tokens drop constraint api_tokens_created_by_api_token_id_fkey`.execute(db)
  await sql`
    alter table api_tokens add constraint api_tokens_created_by_api_token_id_fkey
      foreign key (created_by_api_token_id) references api_tokens (id) on delete cascade`.execute(db)
  // The cascade, and revocation, look tokens up by their creator.
  await sql`
    create index api_tokens_created_by_api_token_idx on api_tokens (created_by_api_token_id)
    where created_by_api_token_id is not null`.execute(db)

  await sql`alter table organizations add column parent_organization_id uuid references organizations (id)`.execute(db)
  await sql`
    create index organizations_parent_organization_idx on organizations (parent_organization_id)
    where parent_organization_id is not null`.execute(db)
  // Organizations created before: their creator token's organization, while that token exists.
  await sql`
    update organizations o set parent_organization_id = t.organization_id
    from api_tokens t
    where t.id = o.creator_api_token_id and t.organization_id <> o.id`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table organizations drop column if exists parent_organization_id`.execute(db)
  await sql`drop index if exists api_tokens_created_by_api_token_idx`.execute(db)
  await sql`alter table api_tokens drop constraint api_tokens_created_by_api_token_id_fkey`.execute(db)
  await sql`
    alter table api_tokens add constraint api_tokens_created_by_api_token_id_fkey
      foreign key (created_by_api_token_id) references api_tokens (id) on delete set null`.execute(db)
}
