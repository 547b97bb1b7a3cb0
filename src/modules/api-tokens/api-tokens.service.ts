import type { OrganizationsService } from '#src/modules/organizations/organizations.service.ts'
import { apiTokenStart, digestApiToken, generateApiToken, isWellFormedApiToken } from '#src/platform/auth/api-token-codec.ts'
import type { Principal } from '#src/platform/auth/principal.ts'
import { type HeldRole, hasRole, type Role } from '#src/platform/auth/roles.ts'
import type { Db } from '#src/platform/db/database.ts'
import { withUniqueName } from '#src/platform/db/errors.ts'
import { AppError, notFound } from '#src/platform/http/errors.ts'
import { type CappedList, capped, DEFAULT_LIST_LIMIT } from '#src/platform/http/lists.ts'
import { admitAll, type MintAdmission } from '#src/platform/http/rate-limits.ts'
import type { ApiTokenQueries, ApiTokenRow, ApiTokensRepository, ListedApiTokenRow } from './api-tokens.repository.ts'
import type { TokenCache } from './token-cache.ts'
import type { TokenUsageTracker } from './token-usage.ts'

interface Deps {
  repo: ApiTokensRepository
  organizations: OrganizationsService
  usage: TokenUsageTracker
  /** Recently authenticated tokens; absent: every request reads the database. */
  cache?: TokenCache
  clock?: () => Date
  /** The most tokens a list answers with (BERTH_LIST_LIMIT). */
  listLimit?: number
}

/** What a caller asks for; the role and expiry are checked against the caller's own. */
export interface ApiTokenRequest {
  name: string
  description?: string | null
  held: HeldRole
  expiredAt: Date | null
  /** A policy token's rego policy (token-policy.ts), checked by the caller. */
  opaPolicy?: string | null
}

/** A token just created: the only time its secret exists outside the caller's hands. */
export type NewlyMintedApiToken = ApiTokenRow & { token: string; customRoleName?: string | null }

export interface NewApiToken {
  name: string
  description?: string | null
  role: Role
  /** A custom role of the organization (docs/custom-roles.md, "Custom roles"); `role` must then be READ. */
  customRoleId?: string | null
  expiredAt?: Date | null
  opaPolicy?: string | null
  createdByApiTokenId?: string | null
  createdByUserId?: string | null
  ownerUserId?: string | null
}

/** How a token records its creator, and how a creator finds its own tokens. */
const createdBy = (principal: Principal) =>
  principal.kind === 'api_token' ? { createdByApiTokenId: principal.apiTokenId } : { createdByUserId: principal.userId }

/** The member whose role will bound a new token: the creating user, or the creating token's owner. */
const ownerFor = (principal: Principal) => (principal.kind === 'user' ? principal.userId : principal.ownerUserId)

const isCreator = (principal: Principal, row: ApiTokenRow) =>
  principal.kind === 'api_token' ? row.createdByApiTokenId === principal.apiTokenId : row.createdByUserId === principal.userId

const expiryError = (message: string) =>
  new AppError('validation_failed', `expired_at ${message}`, { errors: [{ path: '/expired_at', message, location: 'body' }] })

/**
 * The new token's expiry: the requested one, which must be in the future. A token never outlives
 * the token that creates it: without a requested expiry it inherits the caller's, and a later one
 * is refused, so an expiring credential cannot mint itself a permanent successor. A user's JWT is
 * a short session of a lasting person, so its expiry is not inherited; what bounds a user's
 * tokens is the user's membership (see the members module).
 */
function tokenExpiry(principal: Principal, requested: Date | null, now: Date): Date | null {
  const callerExpiry = principal.kind === 'api_token' ? principal.expiresAt : null
  if (!requested) return callerExpiry
  if (requested <= now) throw expiryError('must be in the future')
  if (callerExpiry && requested > callerExpiry) {
    throw expiryError(`must not be later than the expiry of the calling token (${callerExpiry.toISOString()})`)
  }
  return requested
}

export function createApiTokensService({ repo, organizations, usage, cache, clock = () => new Date(), listLimit = DEFAULT_LIST_LIMIT }: Deps) {
  /** The row with the freshest `lastUsedAt`: a use not yet written back counts. */
  function withUsage(row: ApiTokenRow): ApiTokenRow {
    const pending = usage.pendingFor(row.id)
    return pending && (!row.lastUsedAt || pending > row.lastUsedAt) ? { ...row, lastUsedAt: pending } : row
  }

  function forgetIds(apiTokenIds: readonly string[]): void {
    const gone = new Set(apiTokenIds)
    cache?.forgetMatching((row) => gone.has(row.id))
  }

  /** Mints a token in an organization, in the caller's transaction if given; the caller has checked the right to do so. */
  async function mint(organizationId: string, input: NewApiToken, queries: ApiTokenQueries = repo): Promise<NewlyMintedApiToken> {
    const token = generateApiToken()
    const nameTaken = () => new AppError('conflict', `an API token named "${input.name.trim()}" already exists in this organization`)
    const row = await withUniqueName('api_tokens_name_key', nameTaken, () =>
      queries.insert({
        organizationId,
        name: input.name.trim(),
        description: input.description ?? null,
        role: input.role,
        customRoleId: input.customRoleId ?? null,
        digest: digestApiToken(token),
        tokenStart: apiTokenStart(token),
        expiredAt: input.expiredAt ?? null,
        opaPolicy: input.opaPolicy ?? null,
        createdByApiTokenId: input.createdByApiTokenId ?? null,
        createdByUserId: input.createdByUserId ?? null,
        ownerUserId: input.ownerUserId ?? null,
      }),
    )
    return { ...row, token }
  }

  return {
    mint,

    /**
     * Any member may create tokens, but never with more power than it holds itself in that
     * organization (docs/authentication.md, "Authentication and roles"). `admit` counts the minting against the limit of the organization's
     * tree (BERTH_TOKEN_MINTS_PER_MINUTE) once the caller is known to be allowed to mint there.
     */
    async create(
      principal: Principal,
      organizationId: string,
      input: ApiTokenRequest,
      admit: MintAdmission = admitAll,
    ): Promise<NewlyMintedApiToken> {
      // The role is read and the token inserted under the organization's lock, so that a demotion
      // or removal of the member behind the caller either sees the new token (and lowers or
      // deletes it) or commits first (and the caller's lowered role is what is checked here).
      // A policy token's successors would not carry its policy: it mints none.
      if (principal.kind === 'api_token' && principal.policy)
        throw new AppError('forbidden', 'a policy API token cannot create API tokens: they would not carry its policy')
      return organizations.withLockedRole(principal, organizationId, 'READ', 'use', async (trx, caller) => {
        const { role, customRoleId } = input.held
        const customRoleName = customRoleId ? await organizations.customRoleName(organizationId, customRoleId) : null
        // A custom role grants at most WRITE, and READ on the organization: a WRITE or ADMIN caller
        // holds all of it. A custom-role holder may pass on only its own role, which it holds exactly.
        const allowed = caller.customRoleId
          ? customRoleId === caller.customRoleId
          : customRoleId
            ? hasRole(caller.role, 'WRITE')
            : hasRole(caller.role, role)
        if (!allowed) {
          const wanted = customRoleName === null ? role : `custom role "${customRoleName}"`
          const held = caller.customRoleId ? 'a custom role' : caller.role
          throw new AppError('forbidden', `cannot create a token holding ${wanted}: you hold ${held} in this organization`)
        }
        const expiredAt = tokenExpiry(principal, input.expiredAt, clock())
        await admit(await organizations.rootOf(organizationId))
        const token = {
          name: input.name,
          description: input.description,
          role,
          customRoleId: customRoleId ?? null,
          expiredAt,
          opaPolicy: input.opaPolicy ?? null,
          ...createdBy(principal),
          ownerUserId: ownerFor(principal),
        }
        return { ...(await mint(organizationId, token, repo.within(trx))), customRoleName }
      })
    },

    /** ADMINs see every token of the organization; other members see the tokens they created. */
    async list(
      principal: Principal,
      organizationId: string,
      filter: { name?: string; creatorName?: string; policy?: boolean },
    ): Promise<CappedList<ListedApiTokenRow>> {
      const { role } = await organizations.requireRole(principal, organizationId, 'READ')
      const own = hasRole(role, 'ADMIN') ? {} : createdBy(principal)
      const list = await capped(listLimit, (limit) => repo.list(organizationId, { ...filter, ...own }, limit))
      return { ...list, rows: list.rows.map((row) => ({ ...withUsage(row), creator: row.creator, customRoleName: row.customRoleName })) }
    },

    /**
     * ADMINs may delete any token of the organization; other members only those they created. The
     * tokens it minted go with it, and the tokens those minted, in whatever organization
     * (migration 0009): a leaked token leaves no working copy of itself behind.
     */
    async delete(principal: Principal, organizationId: string, apiTokenId: string, policy = false): Promise<void> {
      const { role } = await organizations.requireRole(principal, organizationId, 'READ')
      const row = await repo.findById(organizationId, apiTokenId)
      // Each family is deleted by its own operation: a policy token is not a regular one, nor the reverse.
      if (!row || (row.opaPolicy !== null) !== policy) throw notFound(policy ? 'policy API token' : 'API token')
      if (!hasRole(role, 'ADMIN') && !isCreator(principal, row)) {
        throw new AppError('forbidden', 'deleting a token you did not create needs the ADMIN role')
      }
      const deleted = await repo.delete(organizationId, apiTokenId)
      if (deleted.length === 0) throw notFound('API token')
      // Other processes hear of each at commit (migration 0005); this one forgets them at once.
      forgetIds(deleted)
    },

    /**
     * For the members module, inside its transaction that holds the organization locked: lowers
     * the tokens the member owns there to its new role.
     */
    async capOwnedBy(trx: Db, organizationId: string, userId: string, held: HeldRole): Promise<void> {
      await repo.within(trx).capOwnedBy(organizationId, userId, held)
    },

    /**
     * For the members module, as `capOwnedBy`: deletes the tokens the removed member owns there,
     * and what they minted; returns the ids of all deleted, for `forget` once committed.
     */
    revokeOwnedBy(trx: Db, organizationId: string, userId: string): Promise<string[]> {
      return repo.within(trx).deleteOwnedBy(organizationId, userId)
    },

    /**
     * For the members module, after a member's role in an organization was lowered or removed, in
     * its transaction: bounds the member's tokens in the organizations that one manages by what
     * the member holds there now. Returns the ids of the tokens it deleted.
     */
    boundInManaged(trx: Db, organizationId: string, userId: string): Promise<string[]> {
      return repo.within(trx).boundInManaged(organizationId, userId)
    },

    /**
     * Forgets, in this process, the remembered tokens of a member whose tokens a committed change
     * capped or revoked, in any organization (those its organization manages included).
     */
    forgetOwnedBy(ownerUserId: string): void {
      cache?.forgetMatching((row) => row.ownerUserId === ownerUserId)
    },

    /** Forgets, in this process, tokens a committed change deleted. */
    forget: forgetIds,

    /** Resolves `Authorization: Token …`. A malformed token is refused before any database access. */

    async authenticate(token: string): Promise<Principal> {
      if (!isWellFormedApiToken(token)) throw new AppError('unauthenticated', 'malformed API token')
      // The lookup is by SHA-256 digest under a unique index: response time says nothing about how
      // close a guess was.
      const digest = digestApiToken(token)
      const now = clock()
      const key = digest.toString('hex')
      let row = cache?.get(key, now.getTime())
      if (!row) {
        const generation = cache?.generation ?? 0
        row = await repo.findByDigest(digest)
        if (row) cache?.set(key, row, generation, now.getTime())
      }
      if (!row) throw new AppError('unauthenticated', 'invalid API token: unknown or revoked')
      if (row.expiredAt && row.expiredAt <= now) {
        throw new AppError('unauthenticated', `API token expired at ${row.expiredAt.toISOString()}`)
      }
      usage.touch(row.id, now)
      return {
        kind: 'api_token',
        apiTokenId: row.id,
        name: row.name,
        organizationId: row.organizationId,
        role: row.role as Role,
        customRoleId: row.customRoleId,
        expiresAt: row.expiredAt,
        ownerUserId: row.ownerUserId,
        policy: row.opaPolicy,
      }
    },
  }
}

export type ApiTokensService = ReturnType<typeof createApiTokensService>
