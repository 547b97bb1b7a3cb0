import { type Kysely, sql } from 'kysely'

// Issue 21: a deployment's snapshot keeps the labels of the service's labels groups as of the
// trigger, which the Docker executor puts on the containers it makes (docs/docker.md, "Deploying with Docker").
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table deployment_snapshots add column labels jsonb not null default '{}'`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table deployment_snapshots drop column labels`.execute(db)
}
