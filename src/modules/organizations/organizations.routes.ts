import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { OrganizationParams } from '#src/platform/http/common-schemas.ts'
import { Organization, OrganizationEditRequest, OrganizationRequest, OrganizationResponseList } from './organizations.schemas.ts'
import type { OrganizationsService } from './organizations.service.ts'
import { organizationInput, toOrganizationResponse } from './organizations.wire.ts'

const tags = ['Organization Main Calls']

export function organizationsRoutes(organizations: OrganizationsService): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/organization',
      {
        schema: { operationId: 'listOrganization', summary: 'List user organizations', tags, response: { 200: OrganizationResponseList } },
      },
      async (req) => ({ results: (await organizations.list(req.principal)).map(toOrganizationResponse) }),
    )

    app.post(
      '/organization',
      {
        schema: {
          operationId: 'createOrganization',
          summary: 'Create an organization',
          tags,
          body: OrganizationRequest,
          response: { 201: Organization },
        },
      },
      async (req, reply) => {
        const created = await organizations.create(req.principal, { ...organizationInput(req.body), plan: req.body.plan })
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
          description: 'Needs the ADMIN role.',
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
