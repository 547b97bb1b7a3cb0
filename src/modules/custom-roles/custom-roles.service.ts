import type { OrganizationsService } from '#src/modules/organizations/organizations.service.ts'
import type { Principal } from '#src/platform/auth/principal.ts'
import { violatedForeignKey, whenParentGone, withUniqueName } from '#src/platform/db/errors.ts'
import { AppError, type FieldError, notFound, validationFailed } from '#src/platform/http/errors.ts'
import { capped, DEFAULT_LIST_LIMIT } from '#src/platform/http/lists.ts'
import type { CustomRoleColumns, CustomRoleRow, CustomRolesRepository, OrganizationScopes } from './custom-roles.repository.ts'
import type { CustomRoleUpdateRequest } from './custom-roles.schemas.ts'

interface Deps {
  repo: CustomRolesRepository
  organizations: OrganizationsService
  /** The most roles a list answers with (BERTH_LIST_LIMIT). */
  listLimit?: number
}

/** Names of the reference's built-in roles, which a custom role may not take (the provider refuses them too). */
const RESERVED_NAMES = new Set(['owner', 'admin', 'devops', 'billing', 'viewer'])

const nameTaken = (name: string) => new AppError('conflict', `a custom role named "${name}" already exists in this organization`)

/** A role with the clusters and projects its permissions are listed over. */
export interface CustomRoleView {
  row: CustomRoleRow
  scopes: OrganizationScopes
}

/**
 * Custom roles of an organization (docs/custom-roles.md, "Custom roles"): every member reads them, ADMINs create,
 * edit and delete them. What holding one grants is decided in the organizations service
 * (`requireScoped`), which reads the role afresh for each check.
 */
export function createCustomRolesService({ repo, organizations, listLimit = DEFAULT_LIST_LIMIT }: Deps) {
  function checkName(name: string, errors: FieldError[]): void {
    if (name.trim() !== name) errors.push({ path: '/name', message: 'must not start or end with whitespace', location: 'body' })
    if (RESERVED_NAMES.has(name.toLowerCase())) errors.push({ path: '/name', message: 'is the name of a built-in role', location: 'body' })
  }

  const guardName = <T>(name: string, write: () => Promise<T>) => withUniqueName('custom_roles_name_key', () => nameTaken(name), write)

  async function get(principal: Principal, organizationId: string, customRoleId: string): Promise<CustomRoleView> {
    await organizations.requireRole(principal, organizationId, 'READ')
    const row = await repo.findById(organizationId, customRoleId)
    if (!row) throw notFound('custom role')
    return { row, scopes: await repo.scopes(organizationId) }
  }

  return {
    get,

    async list(principal: Principal, organizationId: string) {
      await organizations.requireRole(principal, organizationId, 'READ')
      const [list, scopes] = await Promise.all([capped(listLimit, (limit) => repo.list(organizationId, limit)), repo.scopes(organizationId)])
      return { ...list, scopes }
    },

    /** A role without permissions: VIEWER on every cluster, NO_ACCESS on every project, as the reference seeds it. */
    async create(principal: Principal, organizationId: string, input: { name: string; description: string | null }): Promise<CustomRoleView> {
      await organizations.requireRole(principal, organizationId, 'ADMIN')
      const errors: FieldError[] = []
      checkName(input.name, errors)
      if (errors.length > 0) throw validationFailed(errors)
      const columns: CustomRoleColumns = { ...input, clusterPermissions: {}, projectPermissions: {} }
      const row = await whenParentGone(
        () => notFound('organization'),
        () => guardName(input.name, () => repo.insert(organizationId, columns)),
      )
      return { row, scopes: await repo.scopes(organizationId) }
    },

    /** A full replacement: what the request leaves out gets the defaults; clusters and projects must be the organization's (400). */
    async update(
      principal: Principal,
      organizationId: string,
      customRoleId: string,
      body: CustomRoleUpdateRequest,
      columns: CustomRoleColumns,
    ): Promise<CustomRoleView> {
      await organizations.requireRole(principal, organizationId, 'ADMIN')
      const scopes = await repo.scopes(organizationId)
      const errors: FieldError[] = []
      checkName(body.name, errors)
      const clusters = new Set(scopes.clusters.map(({ id }) => id))
      const projects = new Set(scopes.projects.map(({ id }) => id))
      const seen = new Set<string>()
      body.cluster_permissions.forEach(({ cluster_id }, index) => {
        const path = `/cluster_permissions/${index}/cluster_id`
        if (!clusters.has(cluster_id)) errors.push({ path, message: 'is not a cluster of this organization', location: 'body' })
        else if (seen.has(cluster_id)) errors.push({ path, message: 'is given twice', location: 'body' })
        seen.add(cluster_id)
      })
      body.project_permissions.forEach(({ project_id, permissions = [] }, index) => {
        const path = `/project_permissions/${index}`
        if (!projects.has(project_id)) errors.push({ path: `${path}/project_id`, message: 'is not a project of this organization', location: 'body' })
        else if (seen.has(project_id)) errors.push({ path: `${path}/project_id`, message: 'is given twice', location: 'body' })
        seen.add(project_id)
        const types = new Set<string>()
        permissions.forEach(({ environment_type }, at) => {
          if (types.has(environment_type))
            errors.push({ path: `${path}/permissions/${at}/environment_type`, message: 'is given twice', location: 'body' })
          types.add(environment_type)
        })
      })
      if (errors.length > 0) throw validationFailed(errors)
      const row = await guardName(body.name, () => repo.update(organizationId, customRoleId, columns))
      if (!row) throw notFound('custom role')
      return { row, scopes }
    },

    /** Refused with 409 while a member, an invitation or an API token holds the role (migration 0025): give them another role first. */
    async delete(principal: Principal, organizationId: string, customRoleId: string): Promise<void> {
      await organizations.requireRole(principal, organizationId, 'ADMIN')
      let deleted: boolean
      try {
        deleted = await repo.delete(organizationId, customRoleId)
      } catch (error) {
        if (violatedForeignKey(error) === undefined) throw error
        throw new AppError('conflict', 'this custom role is held by members, invitations or API tokens: give them another role first')
      }
      if (!deleted) throw notFound('custom role')
    },
  }
}

export type CustomRolesService = ReturnType<typeof createCustomRolesService>
