import { type Kysely, sql } from 'kysely'

// Issue 34: the front door sends a service's traffic to the instances its rollout found ready. A
// mark per ready container (Docker's labels cannot change once it is created), written by the
// runner that rolled it out, read by every process that rebuilds the front door's routes, removed
// once its container is gone from the engine.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table front_door_ready_instances (
      container_id text primary key,
      service_id uuid not null,
      ready_at timestamptz not null default now()
    )
  `.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table if exists front_door_ready_instances`.execute(db)
}
