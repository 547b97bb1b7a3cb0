import { type Kysely, sql } from 'kysely'

// A number that changes whenever anything in an environment's deployment history does, so that a
// process may keep a rendered history page and serve it again while the number is unchanged.
// A table of its own: bumping it never waits on the environment row that triggers lock.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table environment_history_versions (
      environment_id uuid primary key references environments (id) on delete cascade,
      version bigint not null
    )`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table if exists environment_history_versions`.execute(db)
}
