import { isRole, ROLE_IDS, type Role, roleById } from '#src/platform/auth/roles.ts'
import { AppError } from '#src/platform/http/errors.ts'
import type { ApiTokenRow } from './api-tokens.repository.ts'
import type { ApiToken, ApiTokenCreated, ApiTokenCreateRequest } from './api-tokens.schemas.ts'
import type { ApiTokenRequest, NewlyMintedApiToken } from './api-tokens.service.ts'

/** A token as the reference's `OrganizationApiToken` shape, without its secret. */
export function toApiTokenResponse(row: ApiTokenRow): ApiToken {
  const role = row.role as Role
  return {
    id: row.id,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
    name: row.name,
    description: row.description ?? '',
    role_name: role,
    role_id: ROLE_IDS[role],
    role,
    token_start: row.tokenStart,
    expired_at: row.expiredAt?.toISOString() ?? null,
    last_used_at: row.lastUsedAt?.toISOString() ?? null,
  }
}

/** The creation response: the one place the secret is returned. */
export function toApiTokenCreatedResponse(created: NewlyMintedApiToken): ApiTokenCreated {
  return { ...toApiTokenResponse(created), token: created.token }
}

/** Picks the role from the request's `role`, `role_id` or deprecated `scope`; ADMIN when none is given. */
function requestedRole(body: ApiTokenCreateRequest): Role {
  const byId = body.role_id ? roleById(body.role_id) : undefined
  if (body.role_id && !byId) {
    throw new AppError('validation_failed', `role_id ${body.role_id} is not a role of this server`, {
      errors: [{ path: '/role_id', message: `must be one of ${Object.values(ROLE_IDS).join(', ')}`, location: 'body' }],
    })
  }
  const chosen = [body.role, byId, body.scope ?? undefined].filter((r): r is Role => isRole(r))
  if (new Set(chosen).size > 1) {
    throw new AppError('validation_failed', 'role, role_id and scope name different roles', {
      errors: [{ path: '/role', message: 'must agree with role_id and scope', location: 'body' }],
    })
  }
  return chosen[0] ?? 'ADMIN'
}

/** A validated creation request as the service's input. */
export function apiTokenRequest(body: ApiTokenCreateRequest): ApiTokenRequest {
  return {
    name: body.name,
    description: body.description,
    role: requestedRole(body),
    expiredAt: body.expired_at ? new Date(body.expired_at) : null,
  }
}
