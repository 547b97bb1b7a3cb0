import { type Kysely, sql } from 'kysely'

// Issue 48: policy API tokens (createOrganizationPolicyApiToken). A policy token is an API token with
// a rego policy, evaluated on every request it makes before its role is checked; regular tokens have none.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table api_tokens add column opa_policy text`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table api_tokens drop column if exists opa_policy`.execute(db)
}
