import { type Kysely, sql } from 'kysely'

// Issue 48: the email a user wants to be written to (editAccountInformation; null: its token's
// `email` claim), and where an organization's onboarding stands (updateOrganizationOnboarding).
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table users add column communication_email text`.execute(db)
  await sql`
    alter table organizations add column onboarding_status text not null default 'IN_PROGRESS'
      check (onboarding_status in ('IN_PROGRESS', 'DISMISSED', 'COMPLETED'))
  `.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table organizations drop column onboarding_status`.execute(db)
  await sql`alter table users drop column communication_email`.execute(db)
}
