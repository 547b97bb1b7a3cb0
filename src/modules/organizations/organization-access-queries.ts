import type { Db } from '#src/platform/db/database.ts'
import { findRow } from '#src/platform/db/rows-by-keys.ts'
import type { CustomRoleGrants } from './custom-role-grants.ts'
import type { OrganizationRow } from './organization-rows.ts'

// What role checks read: members' and API tokens' roles, custom roles' grants and names, and where
// an environment lies (a custom role grants per project, mode and cluster).

export function organizationAccessQueries(db: Db) {
  return {
    /** The role an API token holds now in its own organization; undefined once it is deleted. */
    findApiTokenRole(apiTokenId: string): Promise<{ role: string; customRoleId: string | null } | undefined> {
      return db.selectFrom('apiTokens').select(['role', 'customRoleId']).where('id', '=', apiTokenId).executeTakeFirst()
    },

    /** What a custom role of the organization grants, read afresh for every check so that an edit applies at once. */
    findCustomRoleGrants(organizationId: string, customRoleId: string): Promise<CustomRoleGrants | undefined> {
      return findRow(db, 'customRoles', { organizationId, id: customRoleId }, ['clusterPermissions', 'projectPermissions'])
    },

    /** The name of a custom role of the organization; undefined for no such role there. */
    async findCustomRoleName(organizationId: string, customRoleId: string): Promise<string | undefined> {
      return (await findRow(db, 'customRoles', { organizationId, id: customRoleId }, ['name']))?.name
    },

    /** Where an environment of the organization lies, as a custom role's permissions are given. */
    findEnvironmentScope(organizationId: string, environmentId: string): Promise<{ projectId: string; mode: string; clusterId: string } | undefined> {
      return findRow(db, 'environments', { organizationId, id: environmentId }, ['projectId', 'mode', 'clusterId'])
    },

    /** The organization with the user's role in it; `memberRole` is null when the user is no member. */
    findWithMemberRole(
      organizationId: string,
      userId: string,
    ): Promise<(OrganizationRow & { memberRole: string | null; memberCustomRoleId: string | null }) | undefined> {
      return db
        .selectFrom('organizations as o')
        .leftJoin('organizationMembers as m', (join) => join.onRef('m.organizationId', '=', 'o.id').on('m.userId', '=', userId))
        .selectAll('o')
        .select(['m.role as memberRole', 'm.customRoleId as memberCustomRoleId'])
        .where('o.id', '=', organizationId)
        .executeTakeFirst()
    },

    /** Whether the user is an ADMIN member of any of these organizations. */
    async isAdminOfAny(userId: string, organizationIds: string[]): Promise<boolean> {
      if (organizationIds.length === 0) return false
      const row = await db
        .selectFrom('organizationMembers')
        .select('organizationId')
        .where('userId', '=', userId)
        .where('role', '=', 'ADMIN')
        .where('organizationId', 'in', organizationIds)
        .executeTakeFirst()
      return row !== undefined
    },
  }
}
