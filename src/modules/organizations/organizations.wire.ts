import type { OrganizationRow } from './organizations.repository.ts'
import type { Organization, OrganizationEditRequest, OrganizationRequest } from './organizations.schemas.ts'
import type { OrganizationInput } from './organizations.service.ts'

const AUDIT_LOG_RETENTION_DAYS = 30

/** An organization as the reference's `Organization` shape. */
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
    parent_organization_id: row.parentOrganizationId,
    billing_deployment_restriction: null,
    organization_plan: { plan: row.plan, audit_logs_retention_in_days: AUDIT_LOG_RETENTION_DAYS },
  }
}

/** A validated create or edit request as the service's input; an omitted optional field is null. */
export function organizationInput(body: OrganizationRequest | OrganizationEditRequest): OrganizationInput {
  return {
    name: body.name.trim(),
    description: body.description ?? null,
    websiteUrl: body.website_url ?? null,
    repository: body.repository ?? null,
    logoUrl: body.logo_url ?? null,
    iconUrl: body.icon_url ?? null,
    adminEmails: body.admin_emails ?? null,
    plan: body.plan,
  }
}
