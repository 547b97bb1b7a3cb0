import type { CustomRoleColumns, CustomRoleRow, OrganizationScopes } from './custom-roles.repository.ts'
import {
  type ClusterPermission,
  type CustomRoleResponse,
  type CustomRoleUpdateRequest,
  ENVIRONMENT_TYPES,
  type ProjectPermission,
} from './custom-roles.schemas.ts'

/**
 * A role as the reference shows it: an entry for every cluster and every project of the
 * organization (what the provider's edits are built from), the defaults where nothing is stored.
 */
export function toCustomRoleResponse(row: CustomRoleRow, scopes: OrganizationScopes): CustomRoleResponse {
  return {
    id: row.id,
    name: row.name,
    ...(row.description === null ? {} : { description: row.description }),
    cluster_permissions: scopes.clusters.map((cluster) => ({
      cluster_id: cluster.id,
      cluster_name: cluster.name,
      permission: (row.clusterPermissions[cluster.id] ?? 'VIEWER') as ClusterPermission,
    })),
    project_permissions: scopes.projects.map((project) => {
      const stored = row.projectPermissions[project.id]
      const isAdmin = stored?.is_admin ?? false
      return {
        project_id: project.id,
        project_name: project.name,
        is_admin: isAdmin,
        permissions: ENVIRONMENT_TYPES.map((type) => ({
          environment_type: type,
          permission: (isAdmin ? 'MANAGER' : (stored?.permissions[type] ?? 'NO_ACCESS')) as ProjectPermission,
        })),
      }
    }),
  }
}

/** What an edit stores: only the entries that differ from the defaults (cluster VIEWER, project NO_ACCESS). */
export function customRoleColumns(body: CustomRoleUpdateRequest): CustomRoleColumns {
  const clusterPermissions: Record<string, string> = {}
  for (const { cluster_id, permission } of body.cluster_permissions) if (permission !== 'VIEWER') clusterPermissions[cluster_id] = permission
  const projectPermissions: CustomRoleColumns['projectPermissions'] = {}
  for (const project of body.project_permissions) {
    const isAdmin = project.is_admin ?? false
    const permissions: Record<string, string> = {}
    if (!isAdmin)
      for (const { environment_type, permission } of project.permissions ?? [])
        if (permission !== 'NO_ACCESS') permissions[environment_type] = permission
    if (isAdmin || Object.keys(permissions).length > 0) projectPermissions[project.project_id] = { is_admin: isAdmin, permissions }
  }
  return { name: body.name, description: body.description ?? null, clusterPermissions, projectPermissions }
}
