import { type Selectable, sql } from 'kysely'
import type { Db } from '#src/platform/db/database.ts'
import { deleteRows, updateRow } from '#src/platform/db/rows-by-keys.ts'
import type { CustomRolesTable } from '#src/platform/db/schema.ts'

export type CustomRoleRow = Selectable<CustomRolesTable>

export interface CustomRoleColumns {
  name: string
  description: string | null
  clusterPermissions: Record<string, string>
  projectPermissions: Record<string, { is_admin: boolean; permissions: Record<string, string> }>
}

/** The clusters and projects of an organization by name: what a role's permissions are listed over. */
export interface OrganizationScopes {
  clusters: { id: string; name: string }[]
  projects: { id: string; name: string }[]
}

const json = (columns: CustomRoleColumns) => ({
  name: columns.name,
  description: columns.description,
  clusterPermissions: JSON.stringify(columns.clusterPermissions),
  projectPermissions: JSON.stringify(columns.projectPermissions),
})

export function createCustomRolesRepository(db: Db) {
  return {
    list(organizationId: string, limit: number): Promise<CustomRoleRow[]> {
      return db
        .selectFrom('customRoles')
        .selectAll()
        .where('organizationId', '=', organizationId)
        .orderBy(sql`lower(name)`)
        .orderBy('id')
        .limit(limit)
        .execute()
    },

    findById(organizationId: string, customRoleId: string): Promise<CustomRoleRow | undefined> {
      return db.selectFrom('customRoles').selectAll().where('organizationId', '=', organizationId).where('id', '=', customRoleId).executeTakeFirst()
    },

    insert(organizationId: string, columns: CustomRoleColumns): Promise<CustomRoleRow> {
      return db
        .insertInto('customRoles')
        .values({ organizationId, ...json(columns) })
        .returningAll()
        .executeTakeFirstOrThrow()
    },

    update(organizationId: string, customRoleId: string, columns: CustomRoleColumns): Promise<CustomRoleRow | undefined> {
      return updateRow(db, 'customRoles', { organizationId, id: customRoleId }, json(columns))
    },

    delete(organizationId: string, customRoleId: string): Promise<boolean> {
      return deleteRows(db, 'customRoles', { organizationId, id: customRoleId })
    },

    async scopes(organizationId: string): Promise<OrganizationScopes> {
      // The organization's clusters or projects by name: what a role's scopes may name.
      const namesIn = (table: 'clusters' | 'projects') =>
        db.selectFrom(table).select(['id', 'name']).where('organizationId', '=', organizationId).orderBy(sql`lower(name)`).orderBy('id').execute()
      const [clusters, projects] = await Promise.all([namesIn('clusters'), namesIn('projects')])
      return { clusters, projects }
    },
  }
}

export type CustomRolesRepository = ReturnType<typeof createCustomRolesRepository>
