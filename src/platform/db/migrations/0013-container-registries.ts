import { type Kysely, sql } from 'kysely'

// Issue 18: an organization's container registries, where container services and jobs take their
// images from. Kept like helm repositories: the safe config fields as JSON, the secret ones sealed.
// A service references its registry through `service_references`, so a registry in use is counted
// and cannot be deleted.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table container_registries (
      id uuid primary key default gen_random_uuid(),
      organization_id uuid not null references organizations (id) on delete cascade,
      name text not null,
      kind text not null,
      description text,
      url text not null,
      -- the config fields that are safe to return (username, region, access key id…)
      config jsonb not null default '{}',
      -- the secret config fields (passwords, tokens, secret keys) as sealed JSON; null when there are none
      secrets_sealed bytea,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    )`.execute(db)
  await sql`create unique index container_registries_name_key on container_registries (organization_id, lower(name))`.execute(db)

  await sql`alter table service_references add column container_registry_id uuid references container_registries (id) deferrable initially deferred`.execute(
    db,
  )
  await sql`alter table service_references drop constraint service_references_check`.execute(db)
  await sql`alter table service_references add constraint service_references_one_target check (num_nonnulls(git_token_id, helm_repository_id, container_registry_id) = 1)`.execute(
    db,
  )
  await sql`create index service_references_container_registry_idx on service_references (container_registry_id) where container_registry_id is not null`.execute(
    db,
  )
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`delete from service_references where container_registry_id is not null`.execute(db)
  await sql`alter table service_references drop constraint service_references_one_target`.execute(db)
  await sql`alter table service_references drop column container_registry_id`.execute(db)
  await sql`alter table service_references add constraint service_references_check check (num_nonnulls(git_token_id, helm_repository_id) = 1)`.execute(
    db,
  )
  await sql`drop table container_registries`.execute(db)
}
