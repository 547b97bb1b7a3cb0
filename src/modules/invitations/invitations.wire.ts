import { type HeldRole, ROLE_IDS, type Role, requestedHeldRole, roleFieldError } from '#src/platform/auth/roles.ts'
import type { InviteMember, InviteMemberRequest, InviteRole } from './invitations.schemas.ts'
import type { Invitation } from './invitations.service.ts'

const BY_INVITE_ROLE: Record<InviteRole, Role> = { OWNER: 'ADMIN', ADMIN: 'ADMIN', DEVELOPER: 'WRITE', VIEWER: 'READ' }
const INVITE_ROLE: Record<Role, InviteRole> = { ADMIN: 'ADMIN', WRITE: 'DEVELOPER', DEPLOY: 'DEVELOPER', READ: 'VIEWER' }

/** The role an invitation request names by `role_id` (a built-in or a custom role's) or the deprecated `role`; READ when neither. */
export function invitedRole(body: InviteMemberRequest): HeldRole {
  const byId = requestedHeldRole({ role_id: body.role_id })
  const byWord = body.role ? BY_INVITE_ROLE[body.role] : undefined
  if (byId && byWord && byId.role !== byWord) throw roleFieldError('/role', 'must agree with role_id')
  return byId ?? { role: byWord ?? 'READ' }
}

export function toInviteMember(row: Invitation): InviteMember {
  const role = row.role as Role
  return {
    id: row.id,
    created_at: row.createdAt.toISOString(),
    ...(row.updatedAt ? { updated_at: row.updatedAt.toISOString() } : {}),
    email: row.email,
    role: INVITE_ROLE[role],
    invitation_link: `urn:berth:invitation:${row.id}`,
    invitation_status: 'PENDING',
    organization_name: row.organizationName,
    inviter: row.inviter,
    role_id: row.customRoleId ?? ROLE_IDS[role],
    role_name: row.customRoleId ? (row.customRoleName ?? '') : role,
  }
}
