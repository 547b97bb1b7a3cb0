import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { conflictResponse, OrganizationParams } from '#src/platform/http/common-schemas.ts'
import { CustomRoleCreateRequest, CustomRoleList, CustomRoleParams, CustomRoleResponse, CustomRoleUpdateRequest } from './custom-roles.schemas.ts'
import type { CustomRolesService, CustomRoleView } from './custom-roles.service.ts'
import { customRoleColumns, toCustomRoleResponse } from './custom-roles.wire.ts'

const tags = ['Organization Custom Role']
const wire = ({ row, scopes }: CustomRoleView) => toCustomRoleResponse(row, scopes)
const nameTaken = conflictResponse('a custom role of that name exists in the organization')

export function customRolesRoutes(customRoles: CustomRolesService): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/organization/:organizationId/customRole',
      {
        schema: {
          operationId: 'listOrganizationCustomRoles',
          summary: 'List organization custom roles',
          description: 'By name; each with an entry for every cluster and project of the organization.',
          tags,
          params: OrganizationParams,
          response: { 200: CustomRoleList },
        },
      },
      async (req) => {
        const { rows, hasMore, scopes } = await customRoles.list(req.principal, req.params.organizationId)
        return { results: rows.map((row) => toCustomRoleResponse(row, scopes)), has_more: hasMore }
      },
    )

    app.post(
      '/organization/:organizationId/customRole',
      {
        schema: {
          operationId: 'createOrganizationCustomRole',
          summary: 'Create an organization custom role',
          description: 'Needs the ADMIN role. The new role is VIEWER on every cluster and NO_ACCESS on every project; edit it to grant more.',
          tags,
          params: OrganizationParams,
          body: CustomRoleCreateRequest,
          response: { 201: CustomRoleResponse, ...nameTaken },
        },
      },
      async (req, reply) => {
        const view = await customRoles.create(req.principal, req.params.organizationId, {
          name: req.body.name,
          description: req.body.description ?? null,
        })
        return reply.code(201).send(wire(view))
      },
    )

    app.get(
      '/organization/:organizationId/customRole/:customRoleId',
      {
        schema: {
          operationId: 'getOrganizationCustomRole',
          summary: 'Get an organization custom role',
          tags,
          params: CustomRoleParams,
          response: { 200: CustomRoleResponse },
        },
      },
      async (req) => wire(await customRoles.get(req.principal, req.params.organizationId, req.params.customRoleId)),
    )

    app.put(
      '/organization/:organizationId/customRole/:customRoleId',
      {
        schema: {
          operationId: 'editOrganizationCustomRole',
          summary: 'Edit an organization custom role',
          description: 'Needs the ADMIN role. A full replacement: a cluster left out gets VIEWER, a project or environment type NO_ACCESS.',
          tags,
          params: CustomRoleParams,
          body: CustomRoleUpdateRequest,
          response: { 200: CustomRoleResponse, ...nameTaken },
        },
      },
      async (req) => {
        const { organizationId, customRoleId } = req.params
        return wire(await customRoles.update(req.principal, organizationId, customRoleId, req.body, customRoleColumns(req.body)))
      },
    )

    app.delete(
      '/organization/:organizationId/customRole/:customRoleId',
      {
        schema: {
          operationId: 'deleteOrganizationCustomRole',
          summary: 'Delete organization custom role',
          description: 'Needs the ADMIN role. 409 while a member, an invitation or an API token holds the role.',
          tags,
          params: CustomRoleParams,
          response: { 204: Type.Null({ description: 'deleted' }), ...conflictResponse('a member, an invitation or an API token holds the role') },
        },
      },
      async (req, reply) => {
        await customRoles.delete(req.principal, req.params.organizationId, req.params.customRoleId)
        return reply.code(204).send(null)
      },
    )
  }
}
