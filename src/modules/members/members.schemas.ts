import { type Static, Type } from 'typebox'
import { DateTime, RoleId, RoleName, Uuid } from '#src/platform/http/common-schemas.ts'
import { ListResponse } from '#src/platform/http/lists.ts'

const RoleWord = RoleName('READ < DEPLOY < WRITE < ADMIN')

export const Member = Type.Object(
  {
    id: Uuid,
    created_at: DateTime,
    updated_at: DateTime,
    name: Type.Optional(Type.String()),
    email: Type.String({ description: 'empty when the identity provider never sent an `email` claim' }),
    role: RoleWord,
    role_name: Type.String(),
    role_id: Uuid,
  },
  { title: 'Member' },
)
export type Member = Static<typeof Member>

export const MemberResponseList = ListResponse(Member, 'MemberResponseList')

export const MemberRoleRequest = Type.Object(
  {
    role: Type.Optional(RoleWord),
    role_id: Type.Optional(RoleId),
  },
  { additionalProperties: false, title: 'MemberRoleRequest', description: 'The role, by name (`role`) or by id (`role_id`).' },
)
export type MemberRoleRequest = Static<typeof MemberRoleRequest>

export const MemberParams = Type.Object({ organizationId: Uuid, userId: Uuid })

/** The official client's way to change a role: the user in the body of `PUT …/member`. */
export const MemberRoleUpdateRequest = Type.Object(
  {
    user_id: Type.String({ format: 'uuid', description: "the user's Berth id (GET /account)" }),
    role_id: Type.Optional(RoleId),
    role: Type.Optional(RoleWord),
  },
  {
    additionalProperties: false,
    title: 'MemberRoleUpdateRequest',
    description: 'The role, by id (`role_id`) or, as a Berth extension, by name (`role`).',
  },
)
export type MemberRoleUpdateRequest = Static<typeof MemberRoleUpdateRequest>

/** The official client's way to remove a member: the user in the body of `DELETE …/member`. */
export const DeleteMemberRequest = Type.Object(
  { user_id: Type.String({ format: 'uuid', description: "the user's Berth id (GET /account)" }) },
  { additionalProperties: false, title: 'DeleteMemberRequest' },
)
export type DeleteMemberRequest = Static<typeof DeleteMemberRequest>
