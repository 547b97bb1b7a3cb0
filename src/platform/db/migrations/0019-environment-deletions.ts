import { type Kysely, sql } from 'kysely'

// Issue 18: deleting an environment that has services is a deployment (its services uninstalled,
// their on_delete lifecycle jobs run), after which the environment goes. This row names the run
// that deletes it; the run's last save deletes the environment when every service went. A marker
// whose run ended otherwise (failed, canceled) is left behind, harmless: only an unfinished run
// makes the environment "being deleted", and the next delete replaces it.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table environment_deletions (
      environment_id uuid primary key references environments (id) on delete cascade,
      execution_id uuid not null references deployment_requests (id) on delete cascade
    )`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table environment_deletions`.execute(db)
}
