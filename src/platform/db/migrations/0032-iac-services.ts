import { type Kysely, sql } from 'kysely'

// Issue 37, IAC services: what a service's last run left for its own routes (an IAC apply's
// resources, served by terraformResources), one row per service, replaced by the next run that
// leaves one; and the variables of IAC (and GitOps) services, whose scope the check of migration
// 0010 did not list.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table service_run_outputs (
      service_id uuid primary key references services(id) on delete cascade,
      execution_id text not null,
      output jsonb not null,
      created_at timestamptz not null default now()
    )
  `.execute(db)
  await sql`alter table variables drop constraint variables_scope_check`.execute(db)
  await sql`
    alter table variables add constraint variables_scope_check
      check (scope in ('PROJECT', 'ENVIRONMENT', 'APPLICATION', 'CONTAINER', 'JOB', 'HELM', 'DATABASE', 'IAC', 'GITOPS_APP', 'BUILT_IN'))
  `.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table if exists service_run_outputs`.execute(db)
  await sql`delete from variables where scope in ('IAC', 'GITOPS_APP')`.execute(db)
  await sql`alter table variables drop constraint variables_scope_check`.execute(db)
  await sql`
    alter table variables add constraint variables_scope_check
      check (scope in ('PROJECT', 'ENVIRONMENT', 'APPLICATION', 'CONTAINER', 'JOB', 'HELM', 'DATABASE', 'BUILT_IN'))
  `.execute(db)
}
