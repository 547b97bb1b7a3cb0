import { type Kysely, sql } from 'kysely'

// Issue 42: a pull request's events, each applied once and in order. The delivery id header is not
// signed, so a captured event sent again under a new id is known by what it says (its fingerprint,
// kept with delivery ids); and an event older than the last one applied to its pull request changes
// nothing, whenever it comes (docs/previews.md, "Replays").
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table pull_request_marks (
      organization_id uuid not null references organizations(id) on delete cascade,
      provider text not null,
      repository text not null,
      number integer not null,
      last_event_at timestamptz not null,
      updated_at timestamptz not null default now(),
      primary key (organization_id, provider, repository, number)
    )
  `.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table if exists pull_request_marks`.execute(db)
}
