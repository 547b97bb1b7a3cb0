import { ROLE_IDS, type Role, requestedHeldRole } from '#src/platform/auth/roles.ts'
import type { ApiTokenRow, ListedApiTokenRow } from './api-tokens.repository.ts'
import type { ApiToken, ApiTokenCreated, ApiTokenCreateRequest } from './api-tokens.schemas.ts'
import type { ApiTokenRequest, NewlyMintedApiToken } from './api-tokens.service.ts'

/** A listed token as the reference's `OrganizationApiToken` shape, without its secret, with its creator (an extension). */
export function toApiTokenResponse(row: ListedApiTokenRow): ApiToken {
  return { ...tokenFields(row, row.customRoleName), created_by: row.creator }
}

/** A custom role's holder shows the custom role's id and name, and `role` READ, what it holds on the organization. */
function tokenFields(row: ApiTokenRow, customRoleName: string | null | undefined): Omit<ApiToken, 'created_by'> {
  const role = row.role as Role
  return {
    id: row.id,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
    name: row.name,
    description: row.description ?? '',
    role_name: row.customRoleId ? (customRoleName ?? '') : role,
    role_id: row.customRoleId ?? ROLE_IDS[role],
    role,
    token_start: row.tokenStart,
    expired_at: row.expiredAt?.toISOString() ?? null,
    last_used_at: row.lastUsedAt?.toISOString() ?? null,
  }
}

/** The creation response: the one place the secret is returned. */
export function toApiTokenCreatedResponse(created: NewlyMintedApiToken): ApiTokenCreated {
  return { ...tokenFields(created, created.customRoleName), token: created.token }
}

/** A validated creation request as the service's input. */
export function apiTokenRequest(body: ApiTokenCreateRequest): ApiTokenRequest {
  return {
    name: body.name,
    description: body.description,
    held: requestedHeldRole(body) ?? { role: 'ADMIN' },
    expiredAt: body.expired_at ? new Date(body.expired_at) : null,
  }
}
