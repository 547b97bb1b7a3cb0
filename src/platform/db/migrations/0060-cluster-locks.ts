import { type Kysely, sql } from 'kysely'

// Issue 48: clusters' locks (lockCluster). A locked cluster's environments queue no deployment until
// the lock is removed or `expires_at` (locked_at + ttl_in_days) passes; one lock per cluster.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table cluster_locks (
      cluster_id uuid primary key references clusters (id) on delete cascade,
      organization_id uuid not null references organizations (id) on delete cascade,
      reason text not null,
      ttl_in_days integer,
      owner_name text not null,
      locked_at timestamptz not null default now(),
      expires_at timestamptz
    )`.execute(db)
  await sql`create index cluster_locks_organization_idx on cluster_locks (organization_id)`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table if exists cluster_locks`.execute(db)
}
