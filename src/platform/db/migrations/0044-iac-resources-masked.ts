import { type Kysely, sql } from 'kysely'

// Issue 42, item 3: the resources of an IAC apply are now kept with every sensitive value and every
// secret variable's value masked. Those kept before were not: they go, and the service's next apply
// lists its resources again.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`delete from service_run_outputs where output ? 'terraform_resources'`.execute(db)
}

export async function down(): Promise<void> {}
