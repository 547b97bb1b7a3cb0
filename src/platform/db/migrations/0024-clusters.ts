import { type Kysely, sql } from 'kysely'

// Issue 22: clusters get an API of their own. A cluster says where its environments deploy: the
// simulator, the local Docker engine, or a Kubernetes cluster given by its kubeconfig (sealed with
// the server's SecretBox, like every other stored credential). Names are unique in an organization,
// case aside (the reference: "name is case-insensitive").
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table clusters drop constraint if exists clusters_executor_check`.execute(db)
  await sql`alter table clusters add constraint clusters_executor_check check (executor in ('SIMULATED', 'DOCKER', 'KUBERNETES'))`.execute(db)
  await sql`
    alter table clusters
      add column description text,
      add column kubernetes text not null default 'MANAGED' check (kubernetes in ('MANAGED', 'SELF_MANAGED', 'PARTIALLY_MANAGED')),
      add column production boolean not null default false,
      add column kubeconfig_sealed bytea`.execute(db)
  await sql`create unique index clusters_name_key on clusters (organization_id, lower(name))`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index if exists clusters_name_key`.execute(db)
  await sql`alter table clusters drop column if exists description, drop column if exists kubernetes, drop column if exists production, drop column if exists kubeconfig_sealed`.execute(
    db,
  )
  await sql`alter table clusters drop constraint if exists clusters_executor_check`.execute(db)
  await sql`alter table clusters add constraint clusters_executor_check check (executor in ('SIMULATED'))`.execute(db)
}
