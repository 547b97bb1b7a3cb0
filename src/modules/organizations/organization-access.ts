import type { Principal } from '#src/platform/auth/principal.ts'
import { hasRole, isRole, type Role, unknownRoleId } from '#src/platform/auth/roles.ts'
import type { AnnouncedCache } from '#src/platform/cache/announced-cache.ts'
import type { Db } from '#src/platform/db/database.ts'
import { AppError, notFound } from '#src/platform/http/errors.ts'
import { type AccessScope, customRoleGrant } from './custom-role-grants.ts'
import type { OrganizationRow } from './organization-rows.ts'
import type { OrganizationLock, OrganizationQueries, OrganizationsRepository } from './organizations.repository.ts'

// Who may do what in an organization: the role a principal holds there (a member's, an API
// token's, an ADMIN's of an ancestor), a custom role's grants per scope, and the checks every
// module calls through the organizations service.

const roleTooLow = (needed: Role, held: Role) =>
  new AppError('forbidden', `this operation needs the ${needed} role in the organization; you have ${held}`)

const scopedRoleTooLow = (needed: Role, held: Role) =>
  new AppError('forbidden', `this operation needs the ${needed} role here; your custom role grants ${held}`)

/** Where an access check applies; an environment may be named by id, its mode and cluster then read. */
export type CheckedScope = AccessScope | { kind: 'environmentId'; environmentId: string }

/** What a principal may do in an organization, as `requireRole` and `withLockedRole` establish it. */
export interface OrganizationAccess {
  organization: OrganizationRow
  role: Role
  /** The custom role held (docs/custom-roles.md, "Custom roles"); `role` is then READ, what it grants on the organization's own resources. */
  customRoleId: string | null
}

/**
 * Each organization's ancestors, nearest first (none for a root organization or an unknown id), by
 * organization id: what `requireAccess` needs for an API token acting outside its own
 * organization, without a database round trip. Every change to organizations is announced (migration 0007).
 */
export type OrganizationAncestryCache = AnnouncedCache<string[]>

/**
 * The organization and the role the principal holds in it, or no role when it has no access at
 * all. An API token holds its role in its own organization; a user holds its member role. Either
 * holds ADMIN in the organizations managed by one it is an ADMIN of: those created by that
 * organization's tokens, and theirs (migration 0009). With `current`, an API token's role is read
 * again rather than taken from the principal, which was authenticated before a membership change
 * may have lowered it.
 */
async function roleIn(
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

export function createOrganizationAccess({
  repo,
  ancestryCache,
  clock,
}: {
  repo: OrganizationsRepository
  ancestryCache?: OrganizationAncestryCache | undefined
  clock: () => number
}) {
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
    return check(await roleIn(repo, principal, organizationId), needed)
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
      return work(trx, check(await roleIn(queries, principal, organizationId, true), needed))
    })
  }

  /**
   * `requireRole` for callers that need only the check. An API token in its own organization holds
   * the role it was authenticated with, without reading the organization: its tokens go with it.
   * Anywhere else it holds ADMIN where it is an ADMIN token of an ancestor (as `roleIn` says), and
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
  }
}
