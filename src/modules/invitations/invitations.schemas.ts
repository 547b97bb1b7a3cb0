import { type Static, Type } from 'typebox'
import { DateTime, Enum, Uuid } from '#src/platform/http/common-schemas.ts'
import { ListResponse } from '#src/platform/http/lists.ts'

/** The reference's (deprecated) role words of an invitation. */
export const INVITE_ROLES = ['ADMIN', 'DEVELOPER', 'OWNER', 'VIEWER'] as const
export type InviteRole = (typeof INVITE_ROLES)[number]
const InviteRoleEnum = Enum(
  INVITE_ROLES,
  'InviteMemberRoleEnum',
  'deprecated: OWNER and ADMIN invite as ADMIN, DEVELOPER as WRITE, VIEWER as READ; prefer role_id',
)

export const InviteMemberRequest = Type.Object(
  {
    email: Type.String({ format: 'email', maxLength: 320 }),
    role: Type.Optional(InviteRoleEnum),
    role_id: Type.Optional(
      Type.String({
        format: 'uuid',
        description: 'the role the new member is to get: a built-in role id (GET /organization/{id}/member shows them)',
      }),
    ),
  },
  { additionalProperties: false, title: 'InviteMemberRequest', description: 'Neither role nor role_id: READ.' },
)
export type InviteMemberRequest = Static<typeof InviteMemberRequest>

export const InviteMember = Type.Object(
  {
    id: Uuid,
    created_at: DateTime,
    updated_at: Type.Optional(DateTime),
    email: Type.String(),
    role: InviteRoleEnum,
    invitation_link: Type.String({ format: 'uri', description: 'an opaque URN naming the invitation: Berth sends no email and serves no page' }),
    invitation_status: Type.Unsafe<'PENDING' | 'EXPIRED'>({ type: 'string', enum: ['EXPIRED', 'PENDING'], title: 'InviteStatusEnum' }),
    organization_name: Type.String(),
    inviter: Type.String(),
    role_id: Uuid,
    role_name: Type.String(),
  },
  { title: 'InviteMember' },
)
export type InviteMember = Static<typeof InviteMember>

export const InviteMemberResponseList = ListResponse(InviteMember, 'InviteMemberResponseList')

export const InviteParams = Type.Object({ organizationId: Uuid, inviteId: Uuid })
