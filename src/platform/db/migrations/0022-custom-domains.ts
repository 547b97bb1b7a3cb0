import { type Kysely, sql } from 'kysely'

// Issue 20: custom domains of applications, containers and helm services. A domain belongs to one
// service and goes with it. It is unique within an organization (case aside) and never compared
// with other organizations' domains, so that adding one tells nothing about other tenants; which of
// two organizations really holds a domain is what its DNS says (the CNAME the check looks up points
// at one service's validation domain). The last check's outcome is kept with the domain.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table custom_domains (
      id uuid primary key default gen_random_uuid(),
      organization_id uuid not null references organizations (id) on delete cascade,
      service_id uuid not null references services (id) on delete cascade,
      -- as the user wrote it (clients compare it verbatim); unique in lower case
      domain text not null,
      generate_certificate boolean not null,
      use_cdn boolean not null default false,
      -- the last check (checkCustomDomain): a CheckedCustomDomainStatus word, its details, when
      check_status text,
      check_error_details text,
      checked_at timestamptz,
      created_at timestamptz not null default now(),
      updated_at timestamptz
    )`.execute(db)
  await sql`create unique index custom_domains_domain_key on custom_domains (organization_id, lower(domain))`.execute(db)
  await sql`create index custom_domains_service_idx on custom_domains (service_id, created_at, id)`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table if exists custom_domains`.execute(db)
}
