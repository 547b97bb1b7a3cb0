import { type Static, Type } from 'typebox'
import { Nullable, Uuid } from '#src/platform/http/common-schemas.ts'
import { ListResponse } from '#src/platform/http/lists.ts'
import { NamedResource, RequestName } from '#src/platform/http/named-resources.ts'

export const PLANS = [
  'FREE',
  'TEAM',
  'TEAM_YEARLY',
  'ENTERPRISE',
  'ENTERPRISE_YEARLY',
  'PROFESSIONAL',
  'BUSINESS',
  'USER_2025',
  'TEAM_2025',
  'BUSINESS_2025',
  'ENTERPRISE_2025',
] as const

export type Plan = (typeof PLANS)[number]
const Plan = Type.Unsafe<Plan>({ type: 'string', enum: [...PLANS], title: 'PlanEnum' })
const Name = RequestName('case insensitive; unique on the server')
const OptionalText = Type.Optional(Nullable(Type.String({ maxLength: 10_000 })))
const OptionalUrl = Type.Optional(Nullable(Type.String({ maxLength: 2048 })))
const AdminEmails = Type.Optional(Nullable(Type.Array(Type.String({ maxLength: 320 }), { maxItems: 100 })))

const editableFields = {
  name: Name,
  description: OptionalText,
  website_url: OptionalUrl,
  repository: OptionalUrl,
  logo_url: OptionalUrl,
  icon_url: OptionalUrl,
  admin_emails: AdminEmails,
}

export const OrganizationRequest = Type.Object({ ...editableFields, plan: Plan }, { additionalProperties: false, title: 'OrganizationRequest' })
export type OrganizationRequest = Static<typeof OrganizationRequest>

// The reference lists `plan` as required here but never defines it; clients do not send it.
export const OrganizationEditRequest = Type.Object(
  { ...editableFields, plan: Type.Optional(Plan) },
  { additionalProperties: false, title: 'OrganizationEditRequest' },
)
export type OrganizationEditRequest = Static<typeof OrganizationEditRequest>

export const Organization = NamedResource('Organization', {
  description: Nullable(Type.String()),
  plan: Type.String(),
  website_url: Nullable(Type.String()),
  repository: Nullable(Type.String()),
  logo_url: Nullable(Type.String()),
  icon_url: Nullable(Type.String()),
  admin_emails: Nullable(Type.Array(Type.String())),
  owner: Type.Optional(Uuid),
  parent_organization_id: Nullable(
    Type.String({
      format: 'uuid',
      description:
        'Berth extension: the organization whose API token created this one; its ADMINs manage this one too. Null for organizations created by users or by `berth token create`.',
    }),
  ),
  billing_deployment_restriction: Nullable(Type.String()),
  organization_plan: Type.Object({
    plan: Type.String(),
    audit_logs_retention_in_days: Type.Number(),
  }),
})
export type Organization = Static<typeof Organization>

export const OrganizationResponseList = ListResponse(Organization, 'OrganizationResponseList')
