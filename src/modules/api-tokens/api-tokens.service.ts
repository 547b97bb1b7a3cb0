import type { OrganizationsService } from '#src/modules/organizations/organizations.service.ts'
import { apiTokenStart, digestApiToken, generateApiToken, isWellFormedApiToken } from '#src/platform/auth/api-token-codec.ts'
import type { Principal } from '#src/platform/auth/principal.ts'
import { hasRole, isRole, ROLE_IDS, type Role, roleById } from '#src/platform/auth/roles.ts'
import { isUniqueViolation } from '#src/platform/db/errors.ts'
import { AppError, notFound } from '#src/platform/http/errors.ts'
import type { ApiTokenRow, ApiTokensRepository } from './api-tokens.repository.ts'
import type { ApiToken, ApiTokenCreated, ApiTokenCreateRequest } from './api-tokens.schemas.ts'
import type { TokenUsageTracker } from './token-usage.ts'

interface Deps {
  repo: ApiTokensRepository
  organizations: OrganizationsService
  usage: TokenUsageTracker
  clock?: () => Date
}

export interface NewApiToken {
  name: string
  description?: string | null
  role: Role
  expiredAt?: Date | null
  createdByApiTokenId?: string | null
}

/** Picks the role from the request's `role`, `role_id` or deprecated `scope`; ADMIN when none is given. */
function requestedRole(input: ApiTokenCreateRequest): Role {
  const byId = input.role_id ? roleById(input.role_id) : undefined
  if (input.role_id && !byId) {
    throw new AppError('validation_failed', `role_id ${input.role_id} is not a role of this server`, {
      errors: [{ path: '/role_id', message: `must be one of ${Object.values(ROLE_IDS).join(', ')}`, location: 'body' }],
    })
  }
  const chosen = [input.role, byId, input.scope ?? undefined].filter((r): r is Role => isRole(r))
  if (new Set(chosen).size > 1) {
    throw new AppError('validation_failed', 'role, role_id and scope name different roles', {
      errors: [{ path: '/role', message: 'must agree with role_id and scope', location: 'body' }],
    })
  }
  return chosen[0] ?? 'ADMIN'
}

export function createApiTokensService({ repo, organizations, usage, clock = () => new Date() }: Deps) {
  function toResponse(row: ApiTokenRow): ApiToken {
    const pending = usage.pendingFor(row.id)
    const lastUsed = pending && (!row.lastUsedAt || pending > row.lastUsedAt) ? pending : row.lastUsedAt
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
      last_used_at: lastUsed?.toISOString() ?? null,
    }
  }

  /** Mints a token in an organization; the caller has checked the right to do so. */
  async function mint(organizationId: string, input: NewApiToken): Promise<ApiTokenCreated> {
    const token = generateApiToken()
    try {
      const row = await repo.insert({
        organizationId,
        name: input.name.trim(),
        description: input.description ?? null,
        role: input.role,
        digest: digestApiToken(token),
        tokenStart: apiTokenStart(token),
        expiredAt: input.expiredAt ?? null,
        createdByApiTokenId: input.createdByApiTokenId ?? null,
      })
      return { ...toResponse(row), token }
    } catch (error) {
      if (isUniqueViolation(error, 'api_tokens_name_key')) {
        throw new AppError('conflict', `an API token named "${input.name.trim()}" already exists in this organization`)
      }
      throw error
    }
  }

  return {
    mint,

    /**
     * Any member may create tokens, but never with more power than it holds itself in that
     * organization (DESIGN 5).
     */
    async create(principal: Principal, organizationId: string, input: ApiTokenCreateRequest): Promise<ApiTokenCreated> {
      const { role: callerRole } = await organizations.requireRole(principal, organizationId, 'READ')
      const role = requestedRole(input)
      if (!hasRole(callerRole, role)) {
        throw new AppError('forbidden', `cannot create a ${role} token: you hold ${callerRole} in this organization`)
      }
      let expiredAt: Date | null = null
      if (input.expired_at) {
        expiredAt = new Date(input.expired_at)
        if (expiredAt <= clock()) {
          throw new AppError('validation_failed', 'expired_at must be in the future', {
            errors: [{ path: '/expired_at', message: 'must be in the future', location: 'body' }],
          })
        }
      }
      return mint(organizationId, { name: input.name, description: input.description, role, expiredAt, createdByApiTokenId: principal.apiTokenId })
    },

    /** ADMINs see every token of the organization; other members see the tokens they created. */
    async list(principal: Principal, organizationId: string, filter: { name?: string; creatorName?: string }): Promise<ApiToken[]> {
      const { role } = await organizations.requireRole(principal, organizationId, 'READ')
      const own = hasRole(role, 'ADMIN') ? {} : { createdByApiTokenId: principal.apiTokenId }
      const rows = await repo.list(organizationId, { ...filter, ...own })
      return rows.map(toResponse)
    },

    /** ADMINs may delete any token of the organization; other members only those they created. */
    async delete(principal: Principal, organizationId: string, apiTokenId: string): Promise<void> {
      const { role } = await organizations.requireRole(principal, organizationId, 'READ')
      const row = await repo.findById(organizationId, apiTokenId)
      if (!row) throw notFound('API token')
      if (!hasRole(role, 'ADMIN') && row.createdByApiTokenId !== principal.apiTokenId) {
        throw new AppError('forbidden', 'deleting a token you did not create needs the ADMIN role')
      }
      if (!(await repo.delete(organizationId, apiTokenId))) throw notFound('API token')
    },

    /** Resolves `Authorization: Token …`. A malformed token is refused before any database access. */
    async authenticate(token: string): Promise<Principal> {
      if (!isWellFormedApiToken(token)) throw new AppError('unauthenticated', 'malformed API token')
      // The lookup is by SHA-256 digest under a unique index: response time says nothing about how
      // close a guess was.
      const row = await repo.findByDigest(digestApiToken(token))
      if (!row) throw new AppError('unauthenticated', 'invalid API token: unknown or revoked')
      const now = clock()
      if (row.expiredAt && row.expiredAt <= now) {
        throw new AppError('unauthenticated', `API token expired at ${row.expiredAt.toISOString()}`)
      }
      usage.touch(row.id, now)
      return { kind: 'api_token', apiTokenId: row.id, name: row.name, organizationId: row.organizationId, role: row.role as Role }
    },
  }
}

export type ApiTokensService = ReturnType<typeof createApiTokensService>
