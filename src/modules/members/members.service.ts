import type { ApiTokensService } from '#src/modules/api-tokens/api-tokens.service.ts'
import type { OrganizationsService } from '#src/modules/organizations/organizations.service.ts'
import type { UsersService } from '#src/modules/users/users.service.ts'
import type { Principal } from '#src/platform/auth/principal.ts'
import { type HeldRole, hasRole, type Role } from '#src/platform/auth/roles.ts'
import { AppError, notFound } from '#src/platform/http/errors.ts'
import { type CappedList, capped, DEFAULT_LIST_LIMIT } from '#src/platform/http/lists.ts'
import type { MemberRow, MembersRepository } from './members.repository.ts'

interface Deps {
  repo: MembersRepository
  organizations: OrganizationsService
  users: UsersService
  apiTokens: Pick<ApiTokensService, 'capOwnedBy' | 'revokeOwnedBy' | 'boundInManaged' | 'forgetOwnedBy' | 'forget'>
  /** The most members a list answers with (BERTH_LIST_LIMIT). */
  listLimit?: number
}

const lastAdmin = () => new AppError('conflict', 'an organization must keep at least one ADMIN member: make another member ADMIN first')

/**
 * Membership of users in organizations, managed by the organization's ADMINs. A member's API
 * tokens never hold more than the member: demoting a member lowers the tokens it owns in the
 * organization (those it created, and those its tokens created) to its new role, and removing it
 * deletes them. The same holds in the organizations the organization manages, where the member
 * held ADMIN through it: its tokens there are lowered to what it still holds there, or deleted.
 *
 * A change runs in a transaction that holds the organization locked (`change`), and the caller's
 * ADMIN role is checked again under that lock: changes of one organization run one after another,
 * the ADMINs a change counts are still the ADMINs when it commits, and an ADMIN removed by a change
 * that committed first cannot finish one of its own. The check before the lock only spares
 * outsiders a wait and keeps them from learning which user ids exist.
 */
export function createMembersService({ repo, organizations, users, apiTokens, listLimit = DEFAULT_LIST_LIMIT }: Deps) {
  return {
    async list(principal: Principal, organizationId: string): Promise<CappedList<MemberRow>> {
      await organizations.requireRole(principal, organizationId, 'ADMIN')
      return capped(listLimit, (limit) => repo.list(organizationId, limit))
    },

    /**
     * Adds the user with `held`, or changes its role; the last ADMIN cannot be demoted. A custom
     * role must be one of the organization's (400 at `role_id`); the tokens of a member given a
     * custom role all hold that role from then on.
     */
    async put(principal: Principal, organizationId: string, userId: string, held: HeldRole): Promise<MemberRow> {
      await organizations.requireRole(principal, organizationId, 'ADMIN')
      if (held.customRoleId) await organizations.customRoleName(organizationId, held.customRoleId)
      await users.get(userId)
      const { role } = held
      const member = await organizations.withLockedRole(principal, organizationId, 'ADMIN', 'change', async (trx) => {
        const members = repo.within(trx)
        const current = await members.find(organizationId, userId)
        if (current?.role === 'ADMIN' && role !== 'ADMIN' && (await members.countAdmins(organizationId)) <= 1) throw lastAdmin()
        await members.upsert(organizationId, userId, held)
        let revoked: string[] = []
        const lowered = current && !hasRole(role, current.role as Role)
        if (current && (lowered || held.customRoleId || current.customRoleId)) await apiTokens.capOwnedBy(trx, organizationId, userId, held)
        if (lowered) revoked = await apiTokens.boundInManaged(trx, organizationId, userId)
        const member = await members.find(organizationId, userId)
        if (!member) throw notFound('member')
        return { member, revoked }
      })
      apiTokens.forgetOwnedBy(userId)
      apiTokens.forget(member.revoked)
      return member.member
    },

    /** Removes the user from the organization and revokes its tokens there; the last ADMIN cannot leave. */
    async delete(principal: Principal, organizationId: string, userId: string): Promise<void> {
      await organizations.requireRole(principal, organizationId, 'ADMIN')
      const revoked = await organizations.withLockedRole(principal, organizationId, 'ADMIN', 'change', async (trx) => {
        const members = repo.within(trx)
        const current = await members.find(organizationId, userId)
        if (!current) throw notFound('member')
        if (current.role === 'ADMIN' && (await members.countAdmins(organizationId)) <= 1) throw lastAdmin()
        const revoked = await apiTokens.revokeOwnedBy(trx, organizationId, userId)
        await members.delete(organizationId, userId)
        return [...revoked, ...(await apiTokens.boundInManaged(trx, organizationId, userId))]
      })
      apiTokens.forgetOwnedBy(userId)
      apiTokens.forget(revoked)
    },
  }
}

export type MembersService = ReturnType<typeof createMembersService>
