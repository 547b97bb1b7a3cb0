import { type Kysely, sql } from 'kysely'

// Issue 42: runners claim first the runs of the organizations holding fewest runs (fair share,
// docs/deployments.md). Counting an organization's leased runs at each claim reads this index:
// small, whatever the size of the history.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create index deployment_requests_leased_idx on deployment_requests (organization_id)
    where lease_owner is not null and action_status in ('QUEUED', 'ONGOING', 'CANCELING')`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index if exists deployment_requests_leased_idx`.execute(db)
}
