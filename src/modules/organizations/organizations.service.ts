import type { Principal } from '#src/platform/auth/principal.ts'
import { hasRole, type Role } from '#src/platform/auth/roles.ts'
import { isUniqueViolation } from '#src/platform/db/errors.ts'
import { AppError, notFound } from '#src/platform/http/errors.ts'
import type { OrganizationRow, OrganizationsRepository } from './organizations.repository.ts'
import type { Plan } from './organizations.schemas.ts'

/** The editable fields of an organization; `plan` absent on an edit keeps the current plan. */
export interface OrganizationInput {
  name: string
  description: string | null
  websiteUrl: string | null
  repository: string | null
  logoUrl: string | null
  iconUrl: string | null
  adminEmails: string[] | null
  plan?: Plan | undefined
}

const nameTaken = (name: string) => new AppError('conflict', `an organization named "${name}" already exists`)

/** The role a principal holds in an organization, or undefined when it has no access at all. */
function roleIn(principal: Principal, organization: OrganizationRow): Role | undefined {
  if (organization.id === principal.organizationId) return principal.role
  if (organization.creatorApiTokenId === principal.apiTokenId) return 'ADMIN'
  return undefined
}

export function createOrganizationsService({ repo }: { repo: OrganizationsRepository }) {
  /**
   * Loads an organization the principal may act in with at least `needed`. No access at all is
   * reported as not found, so callers cannot probe for other organizations (DESIGN 5).
   */
  async function requireRole(principal: Principal, organizationId: string, needed: Role) {
    const organization = await repo.findById(organizationId)
    const role = organization && roleIn(principal, organization)
    if (!organization || !role) throw notFound('organization')
    if (!hasRole(role, needed)) {
      throw new AppError('forbidden', `this operation needs the ${needed} role in the organization; you have ${role}`)
    }
    return { organization, role }
  }

  return {
    requireRole,

    list(principal: Principal): Promise<OrganizationRow[]> {
      return repo.listForApiToken(principal.apiTokenId, principal.organizationId)
    },

    async get(principal: Principal, organizationId: string): Promise<OrganizationRow> {
      const { organization } = await requireRole(principal, organizationId, 'READ')
      return organization
    },

    /** An ADMIN API token may create organizations; it then holds ADMIN in them too. */
    async create(principal: Principal, input: OrganizationInput & { plan: Plan }): Promise<OrganizationRow> {
      if (!hasRole(principal.role, 'ADMIN')) {
        throw new AppError('forbidden', `creating an organization needs an ADMIN token; this token is ${principal.role}`)
      }
      try {
        return await repo.insert({ ...input, creatorApiTokenId: principal.apiTokenId })
      } catch (error) {
        if (isUniqueViolation(error, 'organizations_name_key')) throw nameTaken(input.name)
        throw error
      }
    },

    /** A full replacement of the editable fields: an omitted optional field is cleared. */
    async update(principal: Principal, organizationId: string, input: OrganizationInput): Promise<OrganizationRow> {
      const { organization } = await requireRole(principal, organizationId, 'ADMIN')
      try {
        const row = await repo.update(organizationId, { ...input, plan: input.plan ?? organization.plan })
        if (!row) throw notFound('organization')
        return row
      } catch (error) {
        if (isUniqueViolation(error, 'organizations_name_key')) throw nameTaken(input.name)
        throw error
      }
    },

    async delete(principal: Principal, organizationId: string): Promise<void> {
      await requireRole(principal, organizationId, 'ADMIN')
      if (!(await repo.delete(organizationId))) throw notFound('organization')
    },

    /** For the bootstrap command: the organization of that name, created when missing. */
    findOrCreateByName(name: string, plan: Plan = 'FREE'): Promise<OrganizationRow> {
      return repo.insertOrFind({ name, plan })
    },
  }
}

export type OrganizationsService = ReturnType<typeof createOrganizationsService>
