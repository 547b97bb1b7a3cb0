import { insertOrganizationRecord } from '#src/modules/organizations/organization-records.ts'
import type { OrganizationsService } from '#src/modules/organizations/organizations.service.ts'
import type { Principal } from '#src/platform/auth/principal.ts'
import type { HeldRole } from '#src/platform/auth/roles.ts'
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

/** An invitation with the name of its organization and of the custom role it gives, if any, for responses. */
export type Invitation = InvitationRow & { organizationName: string; customRoleName: string | null }

const alreadyInvited = (email: string) => new AppError('conflict', `${email} is already invited to this organization`)

/**
 * Invitations to an organization (docs/invitations.md, "Invitations"): ADMINs record them; Berth sends no email
 * and an invitation is not accepted through the API (an ADMIN adds the user once it has signed in).
 */
export function createInvitationsService({ repo, organizations, actorName, listLimit = DEFAULT_LIST_LIMIT }: Deps) {
  /** A held custom role cannot be deleted (migration 0025), so its name is there to read. */
  const customRoleName = (row: InvitationRow) =>
    row.customRoleId ? organizations.customRoleName(row.organizationId, row.customRoleId) : Promise.resolve(null)

  return {
    async list(principal: Principal, organizationId: string): Promise<CappedList<Invitation>> {
      const { organization } = await organizations.requireRole(principal, organizationId, 'ADMIN')
      const list = await capped(listLimit, (limit) => repo.list(organizationId, limit))
      const rows = await Promise.all(
        list.rows.map(async (row) => ({ ...row, organizationName: organization.name, customRoleName: await customRoleName(row) })),
      )
      return { ...list, rows }
    },

    async get(principal: Principal, organizationId: string, invitationId: string): Promise<Invitation> {
      const { organization } = await organizations.requireRole(principal, organizationId, 'ADMIN')
      const row = await repo.findById(organizationId, invitationId)
      if (!row) throw notFound('invitation')
      return { ...row, organizationName: organization.name, customRoleName: await customRoleName(row) }
    },

    /** One invitation per email (ignoring case): a second one is a 409, as the reference says. */
    /** A custom role must be one of the organization's (400 at `role_id`). */
    async create(principal: Principal, organizationId: string, input: { email: string; held: HeldRole }): Promise<Invitation> {
      const { organization } = await organizations.requireRole(principal, organizationId, 'ADMIN')
      const { role, customRoleId = null } = input.held
      const roleName = customRoleId ? await organizations.customRoleName(organizationId, customRoleId) : null
      const inviter = await actorName(principal)
      const row = await insertOrganizationRecord(
        'member_invitations_email_key',
        () => alreadyInvited(input.email),
        () => repo.insert({ organizationId, email: input.email, role, customRoleId, inviter }),
      )
      return { ...row, organizationName: organization.name, customRoleName: roleName }
    },

    async delete(principal: Principal, organizationId: string, invitationId: string): Promise<void> {
      await organizations.requireRole(principal, organizationId, 'ADMIN')
      if (!(await repo.delete(organizationId, invitationId))) throw notFound('invitation')
    },
  }
}

export type InvitationsService = ReturnType<typeof createInvitationsService>
