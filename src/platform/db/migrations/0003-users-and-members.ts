import { type Kysely, sql } from 'kysely'

// Users are the subjects of the OpenID Connect issuer's JWTs, created on first sight. The issuer is
// part of the key: the same subject at another issuer is another person.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table users (
      id uuid primary key default gen_random_uuid(),
      issuer text not null,
      subject text not null,
      name text,
      email text,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      constraint users_issuer_subject_key unique (issuer, subject)
    )`.execute(db)

  await sql`
    create table organization_members (
      organization_id uuid not null references organizations (id) on delete cascade,
      user_id uuid not null references users (id) on delete cascade,
      role text not null check (role in ('ADMIN', 'WRITE', 'DEPLOY', 'READ')),
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      primary key (organization_id, user_id)
    )`.execute(db)
  await sql`create index organization_members_user_idx on organization_members (user_id)`.execute(db)

  await sql`alter table api_tokens add column created_by_user_id uuid references users (id) on delete set null`.execute(db)
  await sql`create index api_tokens_created_by_user_idx on api_tokens (created_by_user_id) where created_by_user_id is not null`.execute(db)
  // The user whose membership a token's power comes from: its creator, or the owner of the token
  // that created it. Set once at creation and never followed through other rows, so deleting a
  // token in the middle of a chain cannot free the tokens below it from their owner's demotion.
  await sql`alter table api_tokens add column owner_user_id uuid references users (id) on delete cascade`.execute(db)
  await sql`create index api_tokens_owner_idx on api_tokens (organization_id, owner_user_id) where owner_user_id is not null`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table api_tokens drop column if exists owner_user_id, drop column if exists created_by_user_id`.execute(db)
  await sql`drop table if exists organization_members, users cascade`.execute(db)
}
