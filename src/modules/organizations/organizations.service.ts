import type { Principal } from '#src/platform/auth/principal.ts'
import { hasRole, isRole, type Role } from '#src/platform/auth/roles.ts'
import type { AnnouncedCache } from '#src/platform/cache/announced-cache.ts'
import type { Db } from '#src/platform/db/database.ts'
import { violatedForeignKey, whenParentGone, withUniqueName } from '#src/platform/db/errors.ts'
import { AppError, notFound } from '#src/platform/http/errors.ts'
import { type CappedList, capped, DEFAULT_LIST_LIMIT } from '#src/platform/http/lists.ts'
import { admitAll, type MintAdmission } from '#src/platform/http/rate-limits.ts'
import type { OrganizationLock, OrganizationQueries, OrganizationRow, OrganizationsRepository } from './organizations.repository.ts'
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

const roleTooLow = (needed: Role, held: Role) =>
  new AppError('forbidden', `this operation needs the ${needed} role in the organization; you have ${held}`)

const nameTaken = (name: string) => new AppError('conflict', `an organization named "${name}" already exists`)

const managesOthers = (count: number) =>
  new AppError(
    'conflict',
    `this organization manages ${count} organization(s) created by its API tokens; delete them first (GET /organization lists them)`,
  )

/** What a principal may do in an organization, as `requireRole` and `withLockedRole` establish it. */
export interface OrganizationAccess {
  organization: OrganizationRow
  role: Role
}

/**
 * The organizations each API token may act in, by token id: what `GET /organization` answers a
 * poller without a database round trip. Every change to organizations is announced (migration 0007).
 */
export type OrganizationListCache = AnnouncedCache<CappedList<OrganizationRow>>

/**
 * Each organization's ancestors, nearest first (none for a root organization or an unknown id), by
 * organization id: what `requireAccess` needs for an API token acting outside its own
 * organization, without a database round trip. Every change to organizations is announced (migration 0007).
 */
export type OrganizationAncestryCache = AnnouncedCache<string[]>

export function createOrganizationsService({
  repo,
  onDeleted,
  listCache,
  ancestryCache,
  clock = () => Date.now(),
  listLimit = DEFAULT_LIST_LIMIT,
}: {
  repo: OrganizationsRepository
  /** Told after an organization is deleted (its tokens went with it). */
  onDeleted?: (organizationId: string) => void
  listCache?: OrganizationListCache
  ancestryCache?: OrganizationAncestryCache
  clock?: () => number
  /** The most organizations a list answers with (BERTH_LIST_LIMIT). */
  listLimit?: number
}) {
  /**
   * The organization and the role the principal holds in it, or no role when it has no access at
   * all. An API token holds its role in its own organization; a user holds its member role. Either
   * holds ADMIN in the organizations managed by one it is an ADMIN of: those created by that
   * organization's tokens, and theirs (migration 0009). With `current`, an API token's role is read
   * again rather than taken from the principal, which was authenticated before a membership change
   * may have lowered it.
   */
  async function withRole(
    queries: OrganizationQueries,
    principal: Principal,
    organizationId: string,
    current = false,
  ): Promise<{ organization?: OrganizationRow; role?: Role }> {
    if (principal.kind === 'user') {
      const found = await queries.findWithMemberRole(organizationId, principal.userId)
      if (!found) return {}
      const { memberRole, ...organization } = found
      const role = isRole(memberRole) ? memberRole : undefined
      if (role === 'ADMIN' || organization.parentOrganizationId === null) return { organization, role }
      const inherited = await queries.isAdminOfAny(principal.userId, await queries.ancestorIds(organizationId))
      return { organization, role: inherited ? 'ADMIN' : role }
    }
    const organization = await queries.findById(organizationId)
    if (!organization) return {}
    const tokenRole = async () => {
      const role = current ? await queries.findApiTokenRole(principal.apiTokenId) : principal.role
      if (!isRole(role)) throw new AppError('unauthenticated', 'invalid API token: revoked while the request ran')
      return role
    }
    if (organization.id === principal.organizationId) return { organization, role: await tokenRole() }
    if (organization.parentOrganizationId === null || principal.role !== 'ADMIN') return { organization }
    if (!(await queries.ancestorIds(organizationId)).includes(principal.organizationId)) return { organization }
    return { organization, role: (await tokenRole()) === 'ADMIN' ? 'ADMIN' : undefined }
  }

  /** This process forgets every remembered list and ancestry at once after its own change; others when they hear of it. */
  const forgetLists = () => {
    listCache?.forgetAll()
    ancestryCache?.forgetAll()
  }

  /** The organization's ancestors, nearest first: remembered, or read (and remembered unless organizations changed meanwhile). */
  async function ancestorsOf(organizationId: string): Promise<string[]> {
    const now = clock()
    const remembered = ancestryCache?.get(organizationId, now)
    if (remembered) return remembered
    const generation = ancestryCache?.generation ?? 0
    const ancestors = await repo.ancestorIds(organizationId)
    ancestryCache?.set(organizationId, ancestors, generation, now)
    return ancestors
  }

  /** No access at all is reported as not found, so callers cannot probe for other organizations (README, "Authentication and roles"). */
  function check({ organization, role }: { organization?: OrganizationRow; role?: Role }, needed: Role): OrganizationAccess {
    if (!organization || !role) throw notFound('organization')
    if (!hasRole(role, needed)) throw roleTooLow(needed, role)
    return { organization, role }
  }

  /** Loads an organization the principal may act in with at least `needed`. */
  async function requireRole(principal: Principal, organizationId: string, needed: Role): Promise<OrganizationAccess> {
    return check(await withRole(repo, principal, organizationId), needed)
  }

  /**
   * Runs `work` in a transaction that holds the organization locked (see `OrganizationLock`), once
   * the principal is found, under that lock, to hold `needed` there still. A role that a membership
   * change took away is not used after that change commits, however the two requests interleave.
   * `work` gets the transaction for the repositories of the modules it calls.
   */
  function withLockedRole<T>(
    principal: Principal,
    organizationId: string,
    needed: Role,
    lock: OrganizationLock,
    work: (trx: Db, access: OrganizationAccess) => Promise<T>,
  ): Promise<T> {
    return repo.transaction(async (queries, trx) => {
      if (!(await queries.lock(organizationId, lock))) throw notFound('organization')
      return work(trx, check(await withRole(queries, principal, organizationId, true), needed))
    })
  }

  /**
   * `requireRole` for callers that need only the check. An API token in its own organization holds
   * the role it was authenticated with, without reading the organization: its tokens go with it.
   * Anywhere else it holds ADMIN where it is an ADMIN token of an ancestor (as `withRole` says), and
   * nothing otherwise (an unknown organization has no ancestors): the ancestries are remembered,
   * so neither answer reads the database while organizations are unchanged.
   */
  async function requireAccess(principal: Principal, organizationId: string, needed: Role): Promise<Role> {
    if (principal.kind === 'api_token') {
      const role = principal.organizationId === organizationId ? principal.role : undefined
      if (role) {
        if (!hasRole(role, needed)) throw roleTooLow(needed, role)
        return role
      }
      if (principal.role !== 'ADMIN' || !(await ancestorsOf(organizationId)).includes(principal.organizationId)) throw notFound('organization')
      return 'ADMIN'
    }
    return (await requireRole(principal, organizationId, needed)).role
  }

  return {
    requireRole,
    requireAccess,
    withLockedRole,

    async list(principal: Principal): Promise<CappedList<OrganizationRow>> {
      if (principal.kind === 'user') return capped(listLimit, (limit) => repo.listForUser(principal.userId, limit))
      const now = clock()
      // Keyed by role too: a token whose role was lowered (announced, and authenticated anew) no
      // longer sees the organizations its organization manages.
      const key = `${principal.apiTokenId}:${principal.role}`
      const remembered = listCache?.get(key, now)
      if (remembered) return remembered
      const generation = listCache?.generation ?? 0
      const list = await capped(listLimit, (limit) => repo.listForApiToken(principal.organizationId, principal.role, limit))
      listCache?.set(key, list, generation, now)
      return list
    },

    async get(principal: Principal, organizationId: string): Promise<OrganizationRow> {
      const { organization } = await requireRole(principal, organizationId, 'READ')
      return organization
    },

    /**
     * Any user may create organizations and becomes their first ADMIN member. An API token must be
     * ADMIN to do so; the new organization is then managed by the token's organization: its
     * ADMINs (the token among them) hold ADMIN in it, whatever becomes of the token. `admit` counts
     * the creation against the minting limit of the token's tree of organizations.
     */
    async create(principal: Principal, input: OrganizationInput & { plan: Plan }, admit: MintAdmission = admitAll): Promise<OrganizationRow> {
      if (principal.kind === 'api_token' && !hasRole(principal.role, 'ADMIN')) {
        throw new AppError('forbidden', `creating an organization needs an ADMIN token; this token is ${principal.role}`)
      }
      if (principal.kind === 'api_token') await admit(await repo.rootOf(principal.organizationId))
      // The token's organization deleted meanwhile took the token with it.
      const revoked = () => new AppError('unauthenticated', 'invalid API token: revoked while the request ran')
      return whenParentGone(revoked, () =>
        withUniqueName(
          'organizations_name_key',
          () => nameTaken(input.name),
          () =>
            principal.kind === 'user'
              ? repo.insertWithAdmin(input, principal.userId)
              : repo.insert({ ...input, creatorApiTokenId: principal.apiTokenId, parentOrganizationId: principal.organizationId }),
        ),
      ).finally(forgetLists)
    },

    /** A full replacement of the editable fields: an omitted optional field is cleared. */
    async update(principal: Principal, organizationId: string, input: OrganizationInput): Promise<OrganizationRow> {
      const { organization } = await requireRole(principal, organizationId, 'ADMIN')
      const row = await withUniqueName(
        'organizations_name_key',
        () => nameTaken(input.name),
        () => repo.update(organizationId, { ...input, plan: input.plan ?? organization.plan }),
      ).finally(forgetLists)
      if (!row) throw notFound('organization')
      return row
    },

    /** Refused with 409 while the organization manages others: they would be left without ADMINs. */
    async delete(principal: Principal, organizationId: string): Promise<void> {
      const { organization } = await requireRole(principal, organizationId, 'ADMIN')
      const managed = await repo.countManaged(organizationId)
      if (managed > 0) throw managesOthers(managed)
      let deleted: boolean
      try {
        deleted = await repo.delete(organizationId).finally(forgetLists)
      } catch (error) {
        // One created meanwhile by a token of this organization.
        if (violatedForeignKey(error) === 'organizations_parent_organization_id_fkey') throw managesOthers(1)
        throw error
      }
      if (!deleted) throw notFound('organization')
      // Its id as stored: the one its tokens and environments are remembered with.
      onDeleted?.(organization.id)
    },

    /** The topmost organization of the tree this one belongs to: what minting limits count by. */
    rootOf: (organizationId: string) => repo.rootOf(organizationId),

    /** For the bootstrap command: the organization of that name, created when missing. */
    findOrCreateByName(name: string, plan: Plan = 'FREE'): Promise<OrganizationRow> {
      return repo.insertOrFind({ name, plan }).finally(forgetLists)
    },
  }
}

export type OrganizationsService = ReturnType<typeof createOrganizationsService>
