import { type Kysely, sql } from 'kysely'

// Issue 20: what the Terraform provider manages around an organization (docs/labels-and-annotations-groups.md, "Labels and
// annotations groups", "Invitations").
//
// Labels groups and annotations groups are one table, told apart by `kind`: both are a name and a
// list of key/value entries of the organization (annotations groups also have scopes). A service
// attaches a group through `service_references` (one row per attached group, its field
// `labels_groups/<id>` or `annotations_groups/<id>`), so a group in use is counted
// (`associated_items_count`) and cannot be deleted while attached, as for git tokens and helm
// repositories.
//
// An invitation records an email and the role the invited person is to get; Berth sends no email.
//
// A custom role is a name, a description and permissions per cluster and per project (and, in a
// project, per environment mode); only the entries that differ from the defaults (cluster VIEWER,
// project NO_ACCESS) are kept, so clusters and projects created later start at the defaults.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table organization_groups (
      id uuid primary key default gen_random_uuid(),
      organization_id uuid not null references organizations (id) on delete cascade,
      kind text not null check (kind in ('LABELS', 'ANNOTATIONS')),
      name text not null,
      -- [{key, value, propagate_to_cloud_provider?}] as the request gave them, in order
      entries jsonb not null,
      -- annotations groups: the reference's scope words; labels groups: []
      scopes jsonb not null default '[]',
      created_at timestamptz not null default now(),
      updated_at timestamptz
    )`.execute(db)

  await sql`alter table service_references add column organization_group_id uuid references organization_groups (id) deferrable initially deferred`.execute(
    db,
  )
  await sql`alter table service_references drop constraint service_references_one_target`.execute(db)
  await sql`alter table service_references add constraint service_references_one_target check (num_nonnulls(git_token_id, helm_repository_id, container_registry_id, organization_group_id) = 1)`.execute(
    db,
  )
  await sql`create index service_references_organization_group_idx on service_references (organization_group_id) where organization_group_id is not null`.execute(
    db,
  )

  await sql`
    create table member_invitations (
      id uuid primary key default gen_random_uuid(),
      organization_id uuid not null references organizations (id) on delete cascade,
      email text not null,
      role text not null check (role in ('ADMIN', 'WRITE', 'DEPLOY', 'READ')),
      -- who invited: a user's or an API token's display name, as it was then
      inviter text not null,
      created_at timestamptz not null default now(),
      updated_at timestamptz
    )`.execute(db)
  await sql`create unique index member_invitations_email_key on member_invitations (organization_id, lower(email))`.execute(db)

  await sql`
    create table custom_roles (
      id uuid primary key default gen_random_uuid(),
      organization_id uuid not null references organizations (id) on delete cascade,
      name text not null,
      description text,
      -- {cluster id: VIEWER | ENV_CREATOR | ADMIN}
      cluster_permissions jsonb not null default '{}',
      -- {project id: {is_admin, permissions: {mode: NO_ACCESS | VIEWER | DEPLOYER | MANAGER}}}
      project_permissions jsonb not null default '{}',
      created_at timestamptz not null default now(),
      updated_at timestamptz
    )`.execute(db)
  await sql`create unique index custom_roles_name_key on custom_roles (organization_id, lower(name))`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table if exists custom_roles`.execute(db)
  await sql`drop table if exists member_invitations`.execute(db)
  await sql`delete from service_references where organization_group_id is not null`.execute(db)
  await sql`alter table service_references drop constraint service_references_one_target`.execute(db)
  await sql`alter table service_references drop column organization_group_id`.execute(db)
  await sql`alter table service_references add constraint service_references_one_target check (num_nonnulls(git_token_id, helm_repository_id, container_registry_id) = 1)`.execute(
    db,
  )
  await sql`drop table if exists organization_groups`.execute(db)
}
