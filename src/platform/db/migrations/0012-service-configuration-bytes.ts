import { type Kysely, sql } from 'kysely'

// Issue 23: no list of services grows past a byte budget. Each service keeps the size of its
// configuration as PostgreSQL renders it (the text a query sends back), computed on every write, so
// that a page of services is cut by a running sum of these sizes without rendering any
// configuration it leaves out.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table services add column configuration_bytes integer generated always as (octet_length(configuration::text)) stored`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table services drop column if exists configuration_bytes`.execute(db)
}
