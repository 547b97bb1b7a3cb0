import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { conflictResponse, OrganizationParams } from '#src/platform/http/common-schemas.ts'
import { listBody } from '#src/platform/http/lists.ts'
import { InviteMember, InviteMemberRequest, InviteMemberResponseList, InviteParams } from './invitations.schemas.ts'
import type { InvitationsService } from './invitations.service.ts'
import { invitedRole, toInviteMember } from './invitations.wire.ts'

const tags = ['Members']

export function invitationsRoutes(invitations: InvitationsService): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/organization/:organizationId/inviteMember',
      {
        schema: {
          operationId: 'getOrganizationInvitedMembers',
          summary: 'Get invited members',
          description: 'Needs the ADMIN role. Oldest first.',
          tags,
          params: OrganizationParams,
          response: { 200: InviteMemberResponseList },
        },
      },
      async (req) => listBody(await invitations.list(req.principal, req.params.organizationId), toInviteMember),
    )

    app.post(
      '/organization/:organizationId/inviteMember',
      {
        schema: {
          operationId: 'postInviteMember',
          summary: 'Invite someone in the organization',
          description: 'Needs the ADMIN role. Records the invitation; Berth sends no email. 409 when the email is already invited.',
          tags,
          params: OrganizationParams,
          body: InviteMemberRequest,
          response: { 201: InviteMember, ...conflictResponse('the email is already invited') },
        },
      },
      async (req, reply) => {
        const invitation = await invitations.create(req.principal, req.params.organizationId, { email: req.body.email, held: invitedRole(req.body) })
        return reply.code(201).send(toInviteMember(invitation))
      },
    )

    app.get(
      '/organization/:organizationId/inviteMember/:inviteId',
      {
        schema: {
          operationId: 'getMemberInvitation',
          summary: 'Get member invitation',
          description: 'Needs the ADMIN role.',
          tags,
          params: InviteParams,
          response: { 200: InviteMember },
        },
      },
      async (req) => toInviteMember(await invitations.get(req.principal, req.params.organizationId, req.params.inviteId)),
    )

    app.delete(
      '/organization/:organizationId/inviteMember/:inviteId',
      {
        schema: {
          operationId: 'deleteInviteMember',
          summary: 'Remove an invited member',
          description: 'Needs the ADMIN role.',
          tags,
          params: InviteParams,
          response: { 204: Type.Null({ description: 'deleted' }) },
        },
      },
      async (req, reply) => {
        await invitations.delete(req.principal, req.params.organizationId, req.params.inviteId)
        return reply.code(204).send(null)
      },
    )
  }
}
