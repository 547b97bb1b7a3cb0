import type { Principal } from '#src/platform/auth/principal.ts'
import { hasRole } from '#src/platform/auth/roles.ts'
import type { AnnouncedCache } from '#src/platform/cache/announced-cache.ts'
import { violatedForeignKey, whenParentGone, withUniqueName } from '#src/platform/db/errors.ts'
import { AppError, notFound } from '#src/platform/http/errors.ts'
import { type CappedList, capped, DEFAULT_LIST_LIMIT } from '#src/platform/http/lists.ts'
import { admitAll, type MintAdmission } from '#src/platform/http/rate-limits.ts'
import { createOrganizationAccess, type OrganizationAncestryCache } from './organization-access.ts'
import type { OrganizationRow, OrganizationsRepository } from './organizations.repository.ts'
import type { Plan } from './organizations.schemas.ts'

export type { CheckedScope, OrganizationAccess, OrganizationAncestryCache } from './organization-access.ts'

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

const nameTaken = (name: string) => new AppError('conflict', `an organization named "${name}" already exists`)

const managesOthers = (count: number) =>
  new AppError(
    'conflict',
    `this organization manages ${count} organization(s) created by its API tokens; delete them first (GET /organization lists them)`,
  )

/**
 * The organizations each API token may act in, by token id: what `GET /organization` answers a
 * poller without a database round trip. Every change to organizations is announced (migration 0007).
 */
export type OrganizationListCache = AnnouncedCache<CappedList<OrganizationRow>>

/**
 * The organizations service: the access checks of organization-access.ts, which every module
 * calls, and the organizations' own list, create, edit and delete.
 */
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
  /** This process forgets every remembered list and ancestry at once after its own change; others when they hear of it. */
  const forgetLists = () => {
    listCache?.forgetAll()
    ancestryCache?.forgetAll()
  }

  const access = createOrganizationAccess({ repo, ancestryCache, clock })
  const { requireRole } = access

  return {
    ...access,

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
