import { type Kysely, sql } from 'kysely'

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table organizations (
      id uuid primary key default gen_random_uuid(),
      name text not null,
      description text,
      plan text not null,
      website_url text,
      repository text,
      logo_url text,
      icon_url text,
      admin_emails text[],
      creator_api_token_id uuid,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    )`.execute(db)
  // Organization names are case-insensitive and unique: `berth token create --org` finds them by name.
  await sql`create unique index organizations_name_key on organizations (lower(name))`.execute(db)

  await sql`
    create table api_tokens (
      id uuid primary key default gen_random_uuid(),
      organization_id uuid not null references organizations (id) on delete cascade,
      name text not null,
      description text,
      role text not null check (role in ('ADMIN', 'WRITE', 'DEPLOY', 'READ')),
      digest bytea not null,
      token_start text not null,
      created_by_api_token_id uuid references api_tokens (id) on delete set null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      expired_at timestamptz,
      last_used_at timestamptz
    )`.execute(db)
  await sql`create unique index api_tokens_digest_key on api_tokens (digest)`.execute(db)
  await sql`create unique index api_tokens_name_key on api_tokens (organization_id, lower(name))`.execute(db)
  await sql`
    alter table organizations add constraint organizations_creator_api_token_fkey
      foreign key (creator_api_token_id) references api_tokens (id) on delete set null`.execute(db)
  await sql`create index organizations_creator_api_token_idx on organizations (creator_api_token_id)`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table if exists api_tokens, organizations cascade`.execute(db)
}
