import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest } from 'fastify'
import { OrganizationParams } from '#src/platform/http/common-schemas.ts'
import { listBody } from '#src/platform/http/lists.ts'
import { admitAll, type MintAdmission } from '#src/platform/http/rate-limits.ts'
import { Organization, OrganizationEditRequest, OrganizationRequest, OrganizationResponseList } from './organizations.schemas.ts'
import type { OrganizationsService } from './organizations.service.ts'
import { organizationInput, toOrganizationResponse } from './organizations.wire.ts'

const tags = ['Organization Main Calls']

/** `mintAdmission` gives a request's minting limit (rate-limits.ts), which organizations made by API tokens count against. */
export function organizationsRoutes(
  organizations: OrganizationsService,
  mintAdmission: (request: FastifyRequest) => MintAdmission = () => admitAll,
): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/organization',
      {
        schema: {
          operationId: 'listOrganization',
          summary: 'List user organizations',
          description:
            "The caller's organizations and, for their ADMINs, the organizations they manage: those created by their API tokens, and theirs. " +
            'Oldest first; at most BERTH_LIST_LIMIT of them (`has_more` says when more exist).',
          tags,
          response: { 200: OrganizationResponseList },
        },
      },
      async (req) => listBody(await organizations.list(req.principal), toOrganizationResponse),
    )

    app.post(
      '/organization',
      {
        schema: {
          operationId: 'createOrganization',
          summary: 'Create an organization',
          description:
            'A user becomes its first ADMIN member. An ADMIN API token may create one too: the ADMINs of its organization then manage it ' +
            '(it counts against BERTH_TOKEN_MINTS_PER_MINUTE).',
          tags,
          body: OrganizationRequest,
          response: { 201: Organization },
        },
      },
      async (req, reply) => {
        const created = await organizations.create(req.principal, { ...organizationInput(req.body), plan: req.body.plan }, mintAdmission(req))
        return reply.code(201).send(toOrganizationResponse(created))
      },
    )

    app.get(
      '/organization/:organizationId',
      {
        schema: {
          operationId: 'getOrganization',
          summary: 'Get organization by ID',
          tags,
          params: OrganizationParams,
          response: { 200: Organization },
        },
      },
      async (req) => toOrganizationResponse(await organizations.get(req.principal, req.params.organizationId)),
    )

    app.put(
      '/organization/:organizationId',
      {
        schema: {
          operationId: 'editOrganization',
          summary: 'Edit an organization',
          description: 'Needs the ADMIN role.',
          tags,
          params: OrganizationParams,
          body: OrganizationEditRequest,
          response: { 200: Organization },
        },
      },
      async (req) => toOrganizationResponse(await organizations.update(req.principal, req.params.organizationId, organizationInput(req.body))),
    )

    app.delete(
      '/organization/:organizationId',
      {
        schema: {
          operationId: 'deleteOrganization',
          summary: 'Delete an organization',
          description: 'Needs the ADMIN role. Refused with 409 while it manages organizations created by its API tokens.',
          tags,
          params: OrganizationParams,
        },
      },
      async (req, reply) => {
        await organizations.delete(req.principal, req.params.organizationId)
        return reply.code(204).send()
      },
    )
  }
}
