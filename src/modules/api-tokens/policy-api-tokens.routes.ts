import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import type { OrganizationsService } from '#src/modules/organizations/organizations.service.ts'
import { ROLE_IDS, type Role, roleById } from '#src/platform/auth/roles.ts'
import { parsePolicy } from '#src/platform/auth/token-policy.ts'
import { DateTime, Nullable, OrganizationParams, Uuid } from '#src/platform/http/common-schemas.ts'
import { AppError } from '#src/platform/http/errors.ts'
import { admitAll, type MintAdmission } from '#src/platform/http/rate-limits.ts'
import type { ListedApiTokenRow } from './api-tokens.repository.ts'
import { tokenHeadFields } from './api-tokens.schemas.ts'
import type { ApiTokensService } from './api-tokens.service.ts'

// Policy API tokens (docs/authentication.md, "Policy API tokens"): API tokens for autonomous agents
// whose rego policy is evaluated on every request they make (token-policy.ts); what it allows is
// further bounded by the role they hold (ADMIN, or the custom role `role_id` names).

const tags = ['Organization Policy Api Token']

const PolicyTokenCreateRequest = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 255, pattern: '\\S' }),
    description: Type.Optional(Type.String({ maxLength: 10_000 })),
    opa_policy: Type.String({
      minLength: 1,
      maxLength: 65_536,
      description:
        'rego rule definitions without a package; Berth evaluates a subset (docs/authentication.md, "Policy API tokens") and refuses the rest with 400',
    }),
    role_id: Type.Optional(Nullable(Uuid)),
    expires_at: Type.Optional(Nullable(DateTime)),
  },
  { additionalProperties: false, title: 'OrganizationPolicyApiTokenCreateRequest' },
)

const fields = {
  ...tokenHeadFields,
  creator_name: Nullable(Type.String()),
  expires_at: Nullable(DateTime),
}
const PolicyToken = Type.Object({ ...fields, opa_policy: Type.String() }, { title: 'OrganizationPolicyApiToken' })
const PolicyTokenList = Type.Object({ results: Type.Array(PolicyToken) }, { title: 'OrganizationPolicyApiTokenResponseList' })
const PolicyTokenCreated = Type.Object(
  { ...fields, token: Type.String({ description: "send it as 'Authorization: Token <token>'; returned only here" }) },
  { title: 'OrganizationPolicyApiTokenCreate' },
)

const toFields = (row: ListedApiTokenRow) => ({
  id: row.id,
  created_at: row.createdAt.toISOString(),
  updated_at: row.updatedAt.toISOString(),
  name: row.name,
  description: row.description ?? '',
  role_name: row.customRoleId ? (row.customRoleName ?? '') : row.role,
  role_id: row.customRoleId ?? ROLE_IDS[row.role as Role],
  creator_name: row.creator ? (row.creator.kind === 'api_token' ? `API token ${row.creator.name}` : row.creator.name) : null,
  expires_at: row.expiredAt?.toISOString() ?? null,
})

export function policyApiTokensRoutes(
  apiTokens: ApiTokensService,
  organizations: Pick<OrganizationsService, 'requireRole'>,
  mintAdmission: (request: FastifyRequest) => MintAdmission = () => admitAll,
): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/organization/:organizationId/policyApiToken',
      {
        schema: {
          operationId: 'listOrganizationPolicyApiTokens',
          summary: 'List organization policy api tokens',
          description: 'ADMIN role. Each with its policy; the token itself is never returned. Oldest first, at most BERTH_LIST_LIMIT.',
          tags,
          params: OrganizationParams,
          response: { 200: PolicyTokenList },
        },
      },
      async (req) => {
        await organizations.requireRole(req.principal, req.params.organizationId, 'ADMIN')
        const list = await apiTokens.list(req.principal, req.params.organizationId, { policy: true })
        return { results: list.rows.map((row) => ({ ...toFields(row), opa_policy: row.opaPolicy ?? '' })) }
      },
    )

    app.post(
      '/organization/:organizationId/policyApiToken',
      {
        schema: {
          operationId: 'createOrganizationPolicyApiToken',
          summary: 'Create an organization policy api token',
          description:
            'ADMIN role. The policy is evaluated on every request the token makes (403 when `allow` does not hold); what it allows is then bounded by the role the token holds: ADMIN without `role_id`, else that role (a built-in role id or a custom role of the organization). The token is returned only here; it creates no API tokens. 409 when the name is taken among the organization’s tokens.',
          tags,
          params: OrganizationParams,
          body: PolicyTokenCreateRequest,
          response: { 201: PolicyTokenCreated, 409: Type.Ref('ErrorResponse', { description: 'the name is taken (`conflict`)' }) },
        },
      },
      async (req, reply) => {
        const { organizationId } = req.params
        await organizations.requireRole(req.principal, organizationId, 'ADMIN')
        const body = req.body
        parsePolicy(body.opa_policy)
        const builtIn = body.role_id ? roleById(body.role_id) : 'ADMIN'
        const held = builtIn ? { role: builtIn } : { role: 'READ' as const, customRoleId: body.role_id as string }
        const expiredAt = body.expires_at ? new Date(body.expires_at) : null
        if (expiredAt && Number.isNaN(expiredAt.getTime())) throw new AppError('bad_request', 'expires_at is not a date time')
        const created = await apiTokens.create(
          req.principal,
          organizationId,
          { name: body.name, description: body.description ?? null, held, expiredAt, opaPolicy: body.opa_policy },
          mintAdmission(req),
        )
        const listed = (await apiTokens.list(req.principal, organizationId, { policy: true })).rows.find((row) => row.id === created.id)
        const row = listed ?? { ...created, creator: null, customRoleName: created.customRoleName ?? null }
        return reply.code(201).send({ ...toFields(row), token: created.token })
      },
    )

    app.delete(
      '/organization/:organizationId/policyApiToken/:policyApiTokenId',
      {
        schema: {
          operationId: 'deleteOrganizationPolicyApiToken',
          summary: 'Delete organization policy api token',
          description: 'ADMIN role. The token stops working at once.',
          tags,
          params: Type.Object({ organizationId: Uuid, policyApiTokenId: Uuid }),
          response: { 204: Type.Null({ description: 'deleted' }) },
        },
      },
      async (req, reply) => {
        await organizations.requireRole(req.principal, req.params.organizationId, 'ADMIN')
        await apiTokens.delete(req.principal, req.params.organizationId, req.params.policyApiTokenId, true)
        return reply.code(204).send(null)
      },
    )
  }
}
