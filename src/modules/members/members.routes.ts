import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { OrganizationParams } from '#src/platform/http/common-schemas.ts'
import { listBody } from '#src/platform/http/lists.ts'
import { DeleteMemberRequest, Member, MemberParams, MemberResponseList, MemberRoleRequest, MemberRoleUpdateRequest } from './members.schemas.ts'
import type { MembersService } from './members.service.ts'
import { requestedMemberRole, toMemberResponse } from './members.wire.ts'

const tags = ['Members']

export function membersRoutes(members: MembersService): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/organization/:organizationId/member',
      {
        schema: {
          operationId: 'getOrganizationMembers',
          summary: 'Get organization members',
          description:
            'Needs the ADMIN role. Members are users of the OpenID Connect issuer; `id` is the user id. ' +
            'Oldest first; at most BERTH_LIST_LIMIT of them (`has_more` says when more exist).',
          tags,
          params: OrganizationParams,
          response: { 200: MemberResponseList },
        },
      },
      async (req) => listBody(await members.list(req.principal, req.params.organizationId), toMemberResponse),
    )

    app.put(
      '/organization/:organizationId/member',
      {
        schema: {
          operationId: 'editOrganizationMemberRole',
          summary: 'Edit an organization member role',
          description:
            'Needs the ADMIN role. The same as `PUT …/member/{userId}` with the user in the body, as the official client sends it; ' +
            'it adds the user when it is not a member yet.',
          tags,
          params: OrganizationParams,
          body: MemberRoleUpdateRequest,
          response: { 200: Member },
        },
      },
      async (req) => {
        const { user_id: userId, ...role } = req.body
        return toMemberResponse(await members.put(req.principal, req.params.organizationId, userId, requestedMemberRole(role)))
      },
    )

    app.delete(
      '/organization/:organizationId/member',
      {
        schema: {
          operationId: 'deleteMember',
          summary: 'Remove a member',
          description: 'Needs the ADMIN role. The same as `DELETE …/member/{userId}` with the user in the body, as the official client sends it.',
          tags,
          params: OrganizationParams,
          body: DeleteMemberRequest,
        },
      },
      async (req, reply) => {
        await members.delete(req.principal, req.params.organizationId, req.body.user_id)
        return reply.code(204).send()
      },
    )

    app.put(
      '/organization/:organizationId/member/:userId',
      {
        schema: {
          operationId: 'putOrganizationMember',
          summary: 'Add a member or change its role',
          description:
            'Berth extension; needs the ADMIN role. The user must have called Berth with a JWT once (GET /account tells it its id). ' +
            'Demoting a member lowers the API tokens it owns here (created by it or by its tokens) to its new role. The last ADMIN cannot be demoted (409).',
          tags,
          params: MemberParams,
          body: MemberRoleRequest,
          response: { 200: Member },
        },
      },
      async (req) => {
        const { organizationId, userId } = req.params
        return toMemberResponse(await members.put(req.principal, organizationId, userId, requestedMemberRole(req.body)))
      },
    )

    app.delete(
      '/organization/:organizationId/member/:userId',
      {
        schema: {
          operationId: 'deleteOrganizationMember',
          summary: 'Remove a member',
          description:
            'Berth extension; needs the ADMIN role. Also deletes the API tokens the member owns here (created by it or by its tokens). The last ADMIN cannot be removed (409).',
          tags,
          params: MemberParams,
        },
      },
      async (req, reply) => {
        await members.delete(req.principal, req.params.organizationId, req.params.userId)
        return reply.code(204).send()
      },
    )
  }
}
