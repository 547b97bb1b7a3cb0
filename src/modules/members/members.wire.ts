import { type HeldRole, ROLE_IDS, type Role, requestedHeldRole, roleFieldError } from '#src/platform/auth/roles.ts'
import type { MemberRow } from './members.repository.ts'
import type { Member, MemberRoleRequest } from './members.schemas.ts'

/** A member as the reference's `Member` shape; its `id` is the user's id. */
export function toMemberResponse(row: MemberRow): Member {
  const role = row.role as Role
  return {
    id: row.userId,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
    ...(row.name ? { name: row.name } : {}),
    email: row.email ?? '',
    role,
    role_name: row.customRoleId ? (row.customRoleName ?? '') : role,
    role_id: row.customRoleId ?? ROLE_IDS[role],
  }
}

/** The role a request names by `role` or `role_id`; both may be given when they agree. */
export function requestedMemberRole(body: MemberRoleRequest): HeldRole {
  const held = requestedHeldRole(body)
  if (!held) throw roleFieldError('/role', 'is required (or role_id)')
  return held
}
