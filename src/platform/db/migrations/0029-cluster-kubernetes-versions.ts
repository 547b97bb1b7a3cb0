import { type Kysely, sql } from 'kysely'

// Issue 32: the versions a runner last saw when it acted on a KUBERNETES cluster, the cluster's API
// server's and the runner's kubectl's, so that the cluster's status reports their skew.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table clusters add column kubernetes_version text, add column kubectl_version text, add column versions_seen_at timestamptz`.execute(
    db,
  )
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table clusters drop column if exists kubernetes_version, drop column if exists kubectl_version, drop column if exists versions_seen_at`.execute(
    db,
  )
}
