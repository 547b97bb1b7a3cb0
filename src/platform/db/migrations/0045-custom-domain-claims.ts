import { type Kysely, sql } from 'kysely'

// Issue 42: a custom domain is held by one service on the whole server (docs/custom-domains.md,
// "Who holds a domain"). A domain holds its name from the check that first proved it (`verified_at`)
// until a check fails; `verification_token` is what a `use_cdn` domain proves control with (a TXT
// record), made once per domain and kept across edits.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table custom_domains add column verification_token text not null default replace(gen_random_uuid()::text, '-', '')`.execute(db)
  await sql`alter table custom_domains add column verified_at timestamptz`.execute(db)
  // Verified domains of every organization are compared by name (and by their parent, for wildcards).
  await sql`create index custom_domains_verified_name_idx on custom_domains (lower(domain)) where verified_at is not null`.execute(db)
  // Domains whose last check passed before this migration proved what they could then: they keep holding.
  await sql`update custom_domains set verified_at = checked_at where check_status in ('MATCHES_LOAD_BALANCER_HOST', 'RESOLVES_TO_IP') and not use_cdn`.execute(
    db,
  )
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index if exists custom_domains_verified_name_idx`.execute(db)
  await sql`alter table custom_domains drop column if exists verified_at`.execute(db)
  await sql`alter table custom_domains drop column if exists verification_token`.execute(db)
}
