import { type Kysely, sql } from 'kysely'

// Issue 22: applications and jobs built from git on a KUBERNETES cluster are pushed to a container
// registry of the organization the cluster pulls from. A registry that is deleted leaves the cluster
// without one (its builds then fail saying so).
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table clusters add column image_registry_id uuid references container_registries (id) on delete set null`.execute(db)
  await sql`create index clusters_image_registry_idx on clusters (image_registry_id) where image_registry_id is not null`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table clusters drop column if exists image_registry_id`.execute(db)
}
