import type { Principal } from '#src/platform/auth/principal.ts'
import { hasRole, isRole, type Role, unknownRoleId } from '#src/platform/auth/roles.ts'
import type { AnnouncedCache } from '#src/platform/cache/announced-cache.ts'
import type { Db } from '#src/platform/db/database.ts'
import { violatedForeignKey, whenParentGone, withUniqueName } from '#src/platform/db/errors.ts'
import { AppError, notFound } from '#src/platform/http/errors.ts'
import { type CappedList, capped, DEFAULT_LIST_LIMIT } from '#src/platform/http/lists.ts'
import { admitAll, type MintAdmission } from '#src/platform/http/rate-limits.ts'
import { type AccessScope, customRoleGrant } from './custom-role-grants.ts'
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

const scopedRoleTooLow = (needed: Role, held: Role) =>
  new AppError('forbidden', `this operation needs the ${needed} role here; your custom role grants ${held}`)

/** Where an access check applies; an environment may be named by id, its mode and cluster then read. */
export type CheckedScope = AccessScope | { kind: 'environmentId'; environmentId: string }

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
  /** The custom role held (docs/custom-roles.md, "Custom roles"); `role` is then READ, what it grants on the organization's own resources. */
  customRoleId: string | null
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
  /** Told after an organization is deleted (its tokens went with it), with the environments that went with it. */
  onDeleted?: (organizationId: string, environmentIds: string[]) => void
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
  ): Promise<{ organization?: OrganizationRow; role?: Role; customRoleId?: string | null }> {
    if (principal.kind === 'user') {
      const found = await queries.findWithMemberRole(organizationId, principal.userId)
      if (!found) return {}
      const { memberRole, memberCustomRoleId: customRoleId, ...organization } = found
      const role = isRole(memberRole) ? memberRole : undefined
      if (role === 'ADMIN' || organization.parentOrganizationId === null) return { organization, role, customRoleId }
      const inherited = await queries.isAdminOfAny(principal.userId, await queries.ancestorIds(organizationId))
      return inherited ? { organization, role: 'ADMIN', customRoleId: null } : { organization, role, customRoleId }
    }
    const organization = await queries.findById(organizationId)
    if (!organization) return {}
    const tokenRole = async () => {
      const held = current ? await queries.findApiTokenRole(principal.apiTokenId) : principal
      if (!held || !isRole(held.role)) throw new AppError('unauthenticated', 'invalid API token: revoked while the request ran')
      return { role: held.role, customRoleId: held.customRoleId }
    }
    if (organization.id === principal.organizationId) return { organization, ...(await tokenRole()) }
    if (organization.parentOrganizationId === null || principal.role !== 'ADMIN') return { organization }
    if (!(await queries.ancestorIds(organizationId)).includes(principal.organizationId)) return { organization }
    return { organization, role: (await tokenRole()).role === 'ADMIN' ? 'ADMIN' : undefined, customRoleId: null }
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

  /** No access at all is reported as not found, so callers cannot probe for other organizations (docs/authentication.md, "Authentication and roles"). */
  function check(
    { organization, role, customRoleId }: { organization?: OrganizationRow; role?: Role; customRoleId?: string | null },
    needed: Role,
  ): OrganizationAccess {
    if (!organization || !role) throw notFound('organization')
    if (!hasRole(role, needed)) throw roleTooLow(needed, role)
    return { organization, role, customRoleId: customRoleId ?? null }
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
    return (await requireHeld(principal, organizationId, needed)).role
  }

  /** As `requireAccess`, with the custom role held, if any. */
  async function requireHeld(principal: Principal, organizationId: string, needed: Role): Promise<{ role: Role; customRoleId: string | null }> {
    if (principal.kind === 'api_token') {
      if (principal.customRoleId && principal.organizationId === organizationId) {
        if (!hasRole(principal.role, needed)) throw roleTooLow(needed, principal.role)
        return { role: principal.role, customRoleId: principal.customRoleId }
      }
      return { role: await tokenAccess(principal, organizationId, needed), customRoleId: null }
    }
    const { role, customRoleId } = await requireRole(principal, organizationId, needed)
    return { role, customRoleId }
  }

  /** `requireAccess` for an API token without a custom role. */
  async function tokenAccess(principal: Principal & { kind: 'api_token' }, organizationId: string, needed: Role): Promise<Role> {
    const role = principal.organizationId === organizationId ? principal.role : undefined
    if (role) {
      if (!hasRole(role, needed)) throw roleTooLow(needed, role)
      return role
    }
    if (principal.role !== 'ADMIN' || !(await ancestorsOf(organizationId)).includes(principal.organizationId)) throw notFound('organization')
    return 'ADMIN'
  }

  /**
   * The one place where a custom role is read (docs/custom-roles.md, "Custom roles"): the role the principal
   * holds in `scope` of the organization, checked against `needed`. A built-in role holds alike
   * everywhere in the organization; a custom role grants per project, environment mode and
   * cluster, read afresh each time, and nothing (404, as for another organization's resource)
   * where it says NO_ACCESS. Callers name the resource's scope; `requireRole` and `requireAccess`
   * answer for the organization's own resources, where a custom role grants READ.
   */
  async function requireScoped(principal: Principal, organizationId: string, scope: CheckedScope, needed: Role): Promise<Role> {
    const held = await requireHeld(principal, organizationId, 'READ')
    const role = held.customRoleId ? await grantIn(organizationId, held.customRoleId, scope) : held.role
    if (!role) throw notFound('organization')
    if (!hasRole(role, needed)) throw held.customRoleId ? scopedRoleTooLow(needed, role) : roleTooLow(needed, role)
    return role
  }

  async function grantIn(organizationId: string, customRoleId: string, scope: CheckedScope): Promise<Role | undefined> {
    let resolved: AccessScope | undefined
    if (scope.kind === 'environmentId') {
      const environment = await repo.findEnvironmentScope(organizationId, scope.environmentId)
      resolved = environment && { kind: 'environment', ...environment }
    } else resolved = scope
    if (!resolved) return undefined
    // A role deleted meanwhile (held roles cannot be) grants what a role without permissions does.
    const grants = (await repo.findCustomRoleGrants(organizationId, customRoleId)) ?? { clusterPermissions: {}, projectPermissions: {} }
    return customRoleGrant(grants, resolved)
  }

  /**
   * For lists: undefined when the principal sees everything of the organization it may read, else
   * which scopes its custom role lets it see. The principal must hold READ there (404 otherwise).
   */
  async function visibility(principal: Principal, organizationId: string): Promise<((scope: AccessScope) => boolean) | undefined> {
    const held = await requireHeld(principal, organizationId, 'READ')
    if (!held.customRoleId) return undefined
    const grants = (await repo.findCustomRoleGrants(organizationId, held.customRoleId)) ?? { clusterPermissions: {}, projectPermissions: {} }
    return (scope) => customRoleGrant(grants, scope) !== undefined
  }

  return {
    requireRole,
    requireAccess,
    requireScoped,
    visibility,
    withLockedRole,

    /**
     * For lists of services across the organization: keeps the rows in environments the
     * principal may read. Only a custom role's holder loses any (docs/custom-roles.md, "Custom roles").
     */
    async onlyVisible<T extends { environmentId: string }>(principal: Principal, organizationId: string, rows: T[]): Promise<T[]> {
      const visible = await visibility(principal, organizationId)
      if (!visible) return rows
      const seen = new Map<string, boolean>()
      for (const { environmentId } of rows) {
        if (seen.has(environmentId)) continue
        const environment = await repo.findEnvironmentScope(organizationId, environmentId)
        seen.set(environmentId, environment !== undefined && visible({ kind: 'environment', ...environment }))
      }
      return rows.filter(({ environmentId }) => seen.get(environmentId) === true)
    },

    /** The name of the organization's custom role that a request names by id: a 400 at `role_id` for no such role there. */
    async customRoleName(organizationId: string, customRoleId: string): Promise<string> {
      const name = await repo.findCustomRoleName(organizationId, customRoleId)
      if (name === undefined) throw unknownRoleId()
      return name
    },

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
      let deleted: { environmentIds: string[] } | undefined
      try {
        deleted = await repo.delete(organizationId).finally(forgetLists)
      } catch (error) {
        // One created meanwhile by a token of this organization.
        if (violatedForeignKey(error) === 'organizations_parent_organization_id_fkey') throw managesOthers(1)
        throw error
      }
      if (!deleted) throw notFound('organization')
      // Its id as stored: the one its tokens and environments are remembered with.
      onDeleted?.(organization.id, deleted.environmentIds)
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
