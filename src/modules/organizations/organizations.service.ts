import type { Principal } from '#src/platform/auth/principal.ts'
import { hasRole, type Role } from '#src/platform/auth/roles.ts'
import { isUniqueViolation } from '#src/platform/db/errors.ts'
import { AppError, notFound } from '#src/platform/http/errors.ts'
import type { OrganizationRow, OrganizationsRepository } from './organizations.repository.ts'
import type { Organization, OrganizationEditRequest, OrganizationRequest } from './organizations.schemas.ts'

const AUDIT_LOG_RETENTION_DAYS = 30

export function toOrganizationResponse(row: OrganizationRow): Organization {
  return {
    id: row.id,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
    name: row.name,
    description: row.description,
    plan: row.plan,
    website_url: row.websiteUrl,
    repository: row.repository,
    logo_url: row.logoUrl,
    icon_url: row.iconUrl,
    admin_emails: row.adminEmails,
    billing_deployment_restriction: null,
    organization_plan: { plan: row.plan, audit_logs_retention_in_days: AUDIT_LOG_RETENTION_DAYS },
  }
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

    async list(principal: Principal): Promise<Organization[]> {
      const rows = await repo.listForApiToken(principal.apiTokenId, principal.organizationId)
      return rows.map(toOrganizationResponse)
    },

    async get(principal: Principal, organizationId: string): Promise<Organization> {
      const { organization } = await requireRole(principal, organizationId, 'READ')
      return toOrganizationResponse(organization)
    },

    /** An ADMIN API token may create organizations; it then holds ADMIN in them too. */
    async create(principal: Principal, input: OrganizationRequest): Promise<Organization> {
      if (!hasRole(principal.role, 'ADMIN')) {
        throw new AppError('forbidden', `creating an organization needs an ADMIN token; this token is ${principal.role}`)
      }
      try {
        const row = await repo.insert({ ...editableColumns(input), plan: input.plan, creatorApiTokenId: principal.apiTokenId })
        return toOrganizationResponse(row)
      } catch (error) {
        if (isUniqueViolation(error, 'organizations_name_key')) throw nameTaken(input.name)
        throw error
      }
    },

    /** A full replacement of the editable fields: an omitted optional field is cleared. */
    async update(principal: Principal, organizationId: string, input: OrganizationEditRequest): Promise<Organization> {
      const { organization } = await requireRole(principal, organizationId, 'ADMIN')
      try {
        const row = await repo.update(organizationId, { ...editableColumns(input), plan: input.plan ?? organization.plan })
        if (!row) throw notFound('organization')
        return toOrganizationResponse(row)
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
    findOrCreateByName(name: string, plan: OrganizationRequest['plan'] = 'FREE'): Promise<OrganizationRow> {
      return repo.insertOrFind({ name, plan })
    },
  }
}

function editableColumns(input: OrganizationEditRequest) {
  return {
    name: input.name.trim(),
    description: input.description ?? null,
    websiteUrl: input.website_url ?? null,
    repository: input.repository ?? null,
    logoUrl: input.logo_url ?? null,
    iconUrl: input.icon_url ?? null,
    adminEmails: input.admin_emails ?? null,
  }
}

export type OrganizationsService = ReturnType<typeof createOrganizationsService>
