import type { OrganizationsService } from '#src/modules/organizations/organizations.service.ts'
import type { Principal } from '#src/platform/auth/principal.ts'
import type { Role } from '#src/platform/auth/roles.ts'
import { whenParentGone, withUniqueName } from '#src/platform/db/errors.ts'
import { AppError, notFound } from '#src/platform/http/errors.ts'
import { type CappedList, capped, DEFAULT_LIST_LIMIT } from '#src/platform/http/lists.ts'
import type { InvitationRow, InvitationsRepository } from './invitations.repository.ts'

interface Deps {
  repo: InvitationsRepository
  organizations: OrganizationsService
  /** Who the principal is, as an invitation names its inviter. */
  actorName: (principal: Principal) => Promise<string>
  /** The most invitations a list answers with (BERTH_LIST_LIMIT). */
  listLimit?: number
}

/** An invitation with the name of its organization, for responses. */
export type Invitation = InvitationRow & { organizationName: string }

const alreadyInvited = (email: string) => new AppError('conflict', `${email} is already invited to this organization`)

/**
 * Invitations to an organization (README, "Invitations"): ADMINs record them; Berth sends no email
 * and an invitation is not accepted through the API (an ADMIN adds the user once it has signed in).
 */
export function createInvitationsService({ repo, organizations, actorName, listLimit = DEFAULT_LIST_LIMIT }: Deps) {
  return {
    async list(principal: Principal, organizationId: string): Promise<CappedList<Invitation>> {
      const { organization } = await organizations.requireRole(principal, organizationId, 'ADMIN')
      const list = await capped(listLimit, (limit) => repo.list(organizationId, limit))
      return { ...list, rows: list.rows.map((row) => ({ ...row, organizationName: organization.name })) }
    },

    async get(principal: Principal, organizationId: string, invitationId: string): Promise<Invitation> {
      const { organization } = await organizations.requireRole(principal, organizationId, 'ADMIN')
      const row = await repo.findById(organizationId, invitationId)
      if (!row) throw notFound('invitation')
      return { ...row, organizationName: organization.name }
    },

    /** One invitation per email (ignoring case): a second one is a 409, as the reference says. */
    async create(principal: Principal, organizationId: string, input: { email: string; role: Role }): Promise<Invitation> {
      const { organization } = await organizations.requireRole(principal, organizationId, 'ADMIN')
      const inviter = await actorName(principal)
      const row = await whenParentGone(
        () => notFound('organization'),
        () =>
          withUniqueName(
            'member_invitations_email_key',
            () => alreadyInvited(input.email),
            () => repo.insert({ organizationId, email: input.email, role: input.role, inviter }),
          ),
      )
      return { ...row, organizationName: organization.name }
    },

    async delete(principal: Principal, organizationId: string, invitationId: string): Promise<void> {
      await organizations.requireRole(principal, organizationId, 'ADMIN')
      if (!(await repo.delete(organizationId, invitationId))) throw notFound('invitation')
    },
  }
}

export type InvitationsService = ReturnType<typeof createInvitationsService>
