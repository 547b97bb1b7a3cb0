import type { MembersService } from '#src/modules/members/members.service.ts'
import type { OrganizationsService } from '#src/modules/organizations/organizations.service.ts'
import type { UsersService } from '#src/modules/users/users.service.ts'
import type { Principal } from '#src/platform/auth/principal.ts'
import { AppError, notFound, validationFailed } from '#src/platform/http/errors.ts'
import type { MembershipsRepository } from './memberships.repository.ts'

interface Deps {
  repo: MembershipsRepository
  users: Pick<UsersService, 'account'>
  members: Pick<MembersService, 'put'>
  /** Its access checks, and the name of the custom role an invitation gives (for its response). */
  organizations: Pick<OrganizationsService, 'requireRole' | 'requireAccess' | 'customRoleName'>
}

/**
 * The changes of membership a user makes itself (accepting an invitation) and ownership transfers
 * (docs/organization-views.md): Berth has no single owner, so a transfer makes the user an ADMIN.
 */
export function createMembershipsService({ repo, users, members, organizations }: Deps) {
  return {
    /**
     * The calling user accepts an invitation sent to its email (the JWT's `email` claim, in any
     * case): it becomes a member with the invitation's role, and the invitation is used up. An
     * invitation to another email is not found, as one that does not exist.
     */
    async acceptInvitation(principal: Principal, organizationId: string, invitationId: string) {
      // An API token is no person: refused where it may look, and another organization's invitation, or none, stays a 404.
      if (principal.kind === 'api_token') await organizations.requireAccess(principal, organizationId, 'READ')
      const invitation = await repo.findInvitation(organizationId, invitationId)
      if (!invitation) throw notFound('invitation')
      const user = await users.account(principal)
      if (!user.email || invitation.email.toLowerCase() !== user.email.toLowerCase()) throw notFound('invitation')
      const roleName = invitation.customRoleId ? await organizations.customRoleName(organizationId, invitation.customRoleId) : null
      if (!(await repo.acceptInvitation(invitation, user.id))) throw new AppError('conflict', 'you are already a member of this organization')
      return { ...invitation, customRoleName: roleName }
    },

    /** Makes the member `userId` an ADMIN of the organization; the caller must be one. A user who is not a member is a 400. */
    async transferOwnership(principal: Principal, organizationId: string, userId: string): Promise<void> {
      await organizations.requireRole(principal, organizationId, 'ADMIN')
      if (!(await repo.isMember(organizationId, userId))) {
        throw validationFailed([{ path: '/user_id', message: 'is not a member of this organization', location: 'body' }])
      }
      await members.put(principal, organizationId, userId, { role: 'ADMIN' })
    },
  }
}

export type MembershipsService = ReturnType<typeof createMembershipsService>
