import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { InviteMember, InviteParams } from '#src/modules/invitations/invitations.schemas.ts'
import { toInviteMember } from '#src/modules/invitations/invitations.wire.ts'
import { conflictResponse, OrganizationParams, Uuid } from '#src/platform/http/common-schemas.ts'
import type { MembershipsService } from './memberships.service.ts'

const TransferOwnershipRequest = Type.Object({ user_id: Uuid }, { title: 'TransferOwnershipRequest' })

export function membershipsRoutes(memberships: MembershipsService): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      '/organization/:organizationId/inviteMember/:inviteId',
      {
        schema: {
          operationId: 'postAcceptInviteMember',
          summary: 'Accept Invite in the organization',
          description:
            "The calling user (Bearer JWT) accepts an invitation to its email (the token's `email` claim, in any case): it becomes a member " +
            "with the invitation's role and the invitation is used up; the answer is the invitation as it was. An invitation to another " +
            'email is a 404, as one that does not exist; a member already is a 409; API tokens, which are no person, get 403.',
          tags: ['Members'],
          params: InviteParams,
          response: { 201: InviteMember, ...conflictResponse('the user is already a member') },
        },
      },
      async (req, reply) =>
        reply.code(201).send(toInviteMember(await memberships.acceptInvitation(req.principal, req.params.organizationId, req.params.inviteId))),
    )

    app.post(
      '/organization/:organizationId/transferOwnership',
      {
        schema: {
          operationId: 'postOrganizationTransferOwnership',
          summary: 'Transfer organization ownership to another user',
          description:
            'Berth has no single owner: every ADMIN may do what an owner does. A transfer makes the member `user_id` an ADMIN, and changes ' +
            'nothing of the caller, who may then lower its own role. Needs the ADMIN role; a user who is not a member is a 400.',
          tags: ['Members'],
          params: OrganizationParams,
          body: TransferOwnershipRequest,
          response: { 204: Type.Null({ description: 'the user is an ADMIN' }) },
        },
      },
      async (req, reply) => {
        await memberships.transferOwnership(req.principal, req.params.organizationId, req.body.user_id)
        return reply.code(204).send(null)
      },
    )
  }
}
