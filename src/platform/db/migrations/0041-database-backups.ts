import { type Kysely, sql } from 'kysely'

// Issue 44: databases' backups. Where they go (an organization's S3-compatible stores; no row means
// the directory under the data dir), each backup and each restore as a job runners claim with a lease,
// and each database's schedule with its retention (docs/backups.md).
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table backup_destinations (
      id uuid primary key default gen_random_uuid(),
      organization_id uuid not null references organizations(id) on delete cascade,
      name text not null,
      kind text not null check (kind in ('S3')),
      endpoint text,
      region text not null,
      bucket text not null,
      prefix text not null default '',
      path_style boolean not null default false,
      access_key_id text not null,
      secret_sealed bytea not null,
      created_at timestamptz not null default now(),
      updated_at timestamptz
    )
  `.execute(db)
  await sql`create unique index backup_destinations_name_key on backup_destinations (organization_id, lower(name))`.execute(db)

  await sql`
    create table database_backups (
      id uuid primary key default gen_random_uuid(),
      organization_id uuid not null references organizations(id) on delete cascade,
      service_id uuid not null references services(id) on delete cascade,
      destination_id uuid references backup_destinations(id) on delete restrict,
      engine text not null,
      name text not null,
      message text not null,
      origin text not null check (origin in ('MANUAL', 'SCHEDULED')),
      status text not null default 'QUEUED' check (status in ('QUEUED', 'RUNNING', 'DONE', 'ERROR')),
      error text,
      object_key text not null,
      size_bytes bigint,
      sha256 text,
      log text not null default '',
      created_by text not null,
      lease_owner text,
      lease_expires_at timestamptz,
      claims integer not null default 0,
      created_at timestamptz not null default clock_timestamp(),
      updated_at timestamptz not null default clock_timestamp(),
      started_at timestamptz,
      ended_at timestamptz
    )
  `.execute(db)
  await sql`create index database_backups_by_service on database_backups (service_id, created_at desc, id desc)`.execute(db)
  await sql`create index database_backups_unfinished on database_backups (created_at) where status in ('QUEUED', 'RUNNING')`.execute(db)
  await sql`create index database_backups_by_destination on database_backups (destination_id) where destination_id is not null`.execute(db)

  await sql`
    create table database_restores (
      id uuid primary key default gen_random_uuid(),
      organization_id uuid not null references organizations(id) on delete cascade,
      service_id uuid not null references services(id) on delete cascade,
      backup_id uuid references database_backups(id) on delete set null,
      backup_name text not null,
      source_service_id uuid not null,
      status text not null default 'QUEUED' check (status in ('QUEUED', 'RUNNING', 'DONE', 'ERROR')),
      error text,
      log text not null default '',
      created_by text not null,
      lease_owner text,
      lease_expires_at timestamptz,
      claims integer not null default 0,
      created_at timestamptz not null default clock_timestamp(),
      updated_at timestamptz not null default clock_timestamp(),
      started_at timestamptz,
      ended_at timestamptz
    )
  `.execute(db)
  await sql`create index database_restores_by_service on database_restores (service_id, created_at desc, id desc)`.execute(db)
  await sql`create index database_restores_unfinished on database_restores (created_at) where status in ('QUEUED', 'RUNNING')`.execute(db)
  await sql`create index database_restores_by_backup on database_restores (backup_id) where backup_id is not null`.execute(db)

  await sql`
    create table database_backup_schedules (
      service_id uuid primary key references services(id) on delete cascade,
      organization_id uuid not null references organizations(id) on delete cascade,
      cron text not null,
      timezone text not null,
      destination_id uuid references backup_destinations(id) on delete restrict,
      keep_count integer,
      keep_days integer,
      next_fire_at timestamptz not null,
      created_at timestamptz not null default now(),
      updated_at timestamptz
    )
  `.execute(db)
  await sql`create index database_backup_schedules_due on database_backup_schedules (next_fire_at)`.execute(db)
  await sql`create index database_backup_schedules_by_destination on database_backup_schedules (destination_id) where destination_id is not null`.execute(
    db,
  )
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table if exists database_backup_schedules`.execute(db)
  await sql`drop table if exists database_restores`.execute(db)
  await sql`drop table if exists database_backups`.execute(db)
  await sql`drop table if exists backup_destinations`.execute(db)
}
