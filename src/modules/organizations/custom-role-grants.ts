import type { Role } from '#src/platform/auth/roles.ts'

/** What a custom role says, as stored (migration 0023): only the entries that differ from the defaults. */
export interface CustomRoleGrants {
  clusterPermissions: Record<string, string>
  projectPermissions: Record<string, { is_admin: boolean; permissions: Record<string, string> }>
}

/** Where a check applies: the organization's own resources, a project, an environment (by its mode and cluster), or a cluster. */
export type AccessScope =
  | { kind: 'organization' }
  | { kind: 'project'; projectId: string }
  | { kind: 'environment'; projectId: string; mode: string; clusterId: string }
  | { kind: 'cluster'; clusterId: string }

const BY_PROJECT_PERMISSION: Record<string, Role | undefined> = { VIEWER: 'READ', DEPLOYER: 'DEPLOY', MANAGER: 'WRITE' }

/**
 * The role a custom role grants in `scope` (docs/custom-roles.md, "Custom roles"); undefined where it grants
 * nothing, which callers answer as not found. Never ADMIN. Anything the role does not name, or
 * names with a word this code does not know, grants the least: fail closed.
 */
export function customRoleGrant(grants: CustomRoleGrants, scope: AccessScope): Role | undefined {
  switch (scope.kind) {
    case 'organization':
      return 'READ'
    case 'cluster':
      return grants.clusterPermissions[scope.clusterId] === 'ADMIN' ? 'WRITE' : 'READ'
    case 'project': {
      const project = grants.projectPermissions[scope.projectId]
      if (!project) return undefined
      if (project.is_admin === true) return 'WRITE'
      return Object.values(project.permissions).some((permission) => BY_PROJECT_PERMISSION[permission]) ? 'READ' : undefined
    }
    case 'environment': {
      const project = grants.projectPermissions[scope.projectId]
      const granted = project?.is_admin === true ? 'WRITE' : BY_PROJECT_PERMISSION[project?.permissions[scope.mode] ?? 'NO_ACCESS']
      if (!granted) return undefined
      // A cluster the role leaves at VIEWER (the default) is read-only for it.
      const cluster = grants.clusterPermissions[scope.clusterId]
      return cluster === 'ENV_CREATOR' || cluster === 'ADMIN' ? granted : 'READ'
    }
  }
}
