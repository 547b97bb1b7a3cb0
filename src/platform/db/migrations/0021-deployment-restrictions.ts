import { type Kysely, sql } from 'kysely'

// Issue 20: deployment restrictions of applications, jobs and helm services (docs/git-push.md, "Deployment
// restrictions"). A service's PATH restrictions decide whether a git push deploys it, from the
// paths the push changed. They go with their service (cascade). One (mode, type, value) per
// service: the reference answers 409 to a second one.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table deployment_restrictions (
      id uuid primary key default gen_random_uuid(),
      service_id uuid not null references services (id) on delete cascade,
      mode text not null check (mode in ('EXCLUDE', 'MATCH')),
      type text not null check (type in ('PATH')),
      value text not null check (value <> ''),
      created_at timestamptz not null default now(),
      updated_at timestamptz,
      constraint deployment_restrictions_unique unique (service_id, mode, type, value)
    )`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table if exists deployment_restrictions`.execute(db)
}
