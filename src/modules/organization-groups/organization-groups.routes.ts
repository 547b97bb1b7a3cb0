import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { type TSchema, Type } from 'typebox'
import { conflictResponse, OrganizationParams } from '#src/platform/http/common-schemas.ts'
import { listBody } from '#src/platform/http/lists.ts'
import type { GroupColumns, GroupKind, GroupRow } from './organization-groups.repository.ts'
import {
  AnnotationsGroupList,
  AnnotationsGroupParams,
  AnnotationsGroupRequest,
  AnnotationsGroupResponse,
  AssociatedItemsList,
  LabelsGroupList,
  LabelsGroupParams,
  LabelsGroupRequest,
  LabelsGroupResponse,
} from './organization-groups.schemas.ts'
import type { OrganizationGroupsService } from './organization-groups.service.ts'
import {
  annotationsGroupColumns,
  labelsGroupColumns,
  toAnnotationsGroupResponse,
  toAssociatedItem,
  toLabelsGroupResponse,
} from './organization-groups.wire.ts'

/** One kind of group on the wire: its path, operation ids (the reference's, typo included) and shapes. */
interface GroupRoutes {
  kind: GroupKind
  segment: string
  param: 'labelsGroupId' | 'annotationsGroupId'
  tag: string
  operations: { list: string; create: string; get: string; edit: string; delete: string; associatedItems: string }
  params: TSchema
  request: TSchema
  response: TSchema
  list: TSchema
  associatedItems: TSchema
  columns: (body: never) => GroupColumns
  wire: (row: GroupRow) => unknown
}

const KINDS: GroupRoutes[] = [
  {
    kind: 'LABELS',
    segment: 'labelsGroups',
    param: 'labelsGroupId',
    tag: 'Organization Labels Group',
    operations: {
      list: 'listOrganizationLabelsGroup',
      create: 'createOrganizationLabelsGroup',
      get: 'getOrganizationLabelssGroup',
      edit: 'editOrganizationLabelsGroup',
      delete: 'deleteOrganizationLabelsGroup',
      associatedItems: 'getOrganizationLabelsGroupAssociatedItems',
    },
    params: LabelsGroupParams,
    request: LabelsGroupRequest,
    response: LabelsGroupResponse,
    list: LabelsGroupList,
    associatedItems: AssociatedItemsList('OrganizationLabelsGroupAssociatedItemsResponseList'),
    columns: labelsGroupColumns,
    wire: toLabelsGroupResponse,
  },
  {
    kind: 'ANNOTATIONS',
    segment: 'annotationsGroups',
    param: 'annotationsGroupId',
    tag: 'Organization Annotations Group',
    operations: {
      list: 'listOrganizationAnnotationsGroup',
      create: 'createOrganizationAnnotationsGroup',
      get: 'getOrganizationAnnotationsGroup',
      edit: 'editOrganizationAnnotationsGroup',
      delete: 'deleteOrganizationAnnotationsGroup',
      associatedItems: 'getOrganizationAnnotationsGroupAssociatedItems',
    },
    params: AnnotationsGroupParams,
    request: AnnotationsGroupRequest,
    response: AnnotationsGroupResponse,
    list: AnnotationsGroupList,
    associatedItems: AssociatedItemsList('OrganizationAnnotationsGroupAssociatedItemsResponseList'),
    columns: annotationsGroupColumns,
    wire: toAnnotationsGroupResponse,
  },
]

type Params = { organizationId: string } & Record<string, string>

export function organizationGroupsRoutes(groups: OrganizationGroupsService): FastifyPluginAsyncTypebox {
  return async (app) => {
    for (const group of KINDS) {
      const { kind, operations, wire } = group
      const collection = `/organization/:organizationId/${group.segment}`
      const one = `${collection}/:${group.param}`
      const tags = [group.tag]
      const idOf = (params: unknown) => (params as Params)[group.param] as string
      const columns = (body: unknown) => group.columns(body as never)

      app.get(
        collection,
        {
          schema: {
            operationId: operations.list,
            summary: `List the organization's ${group.segment}`,
            tags,
            params: OrganizationParams,
            response: { 200: group.list },
          },
        },
        async (req) => {
          const list = await groups.list(req.principal, req.params.organizationId, kind)
          return listBody(list, (row) => ({ ...(wire(row) as object), associated_items_count: row.associatedItemsCount }))
        },
      )

      app.post(
        collection,
        {
          schema: {
            operationId: operations.create,
            summary: `Create one of the organization's ${group.segment}`,
            description: 'Needs the WRITE role.',
            tags,
            params: OrganizationParams,
            body: group.request,
            response: { 201: group.response },
          },
        },
        async (req, reply) => reply.code(201).send(wire(await groups.create(req.principal, req.params.organizationId, kind, columns(req.body)))),
      )

      app.get(
        one,
        {
          schema: {
            operationId: operations.get,
            summary: `Get one of the organization's ${group.segment}`,
            tags,
            params: group.params,
            response: { 200: group.response },
          },
        },
        async (req) => wire(await groups.get(req.principal, (req.params as Params).organizationId, kind, idOf(req.params))),
      )

      app.put(
        one,
        {
          schema: {
            operationId: operations.edit,
            summary: `Edit one of the organization's ${group.segment}`,
            description: 'Needs the WRITE role. A full replacement.',
            tags,
            params: group.params,
            body: group.request,
            response: { 200: group.response },
          },
        },
        async (req) => wire(await groups.update(req.principal, (req.params as Params).organizationId, kind, idOf(req.params), columns(req.body))),
      )

      app.delete(
        one,
        {
          schema: {
            operationId: operations.delete,
            summary: `Delete one of the organization's ${group.segment}`,
            description: 'Needs the WRITE role. Refused with 409 while services use the group.',
            tags,
            params: group.params,
            response: { 204: Type.Null({ description: 'deleted' }), ...conflictResponse('services use the group') },
          },
        },
        async (req, reply) => {
          await groups.delete(req.principal, (req.params as Params).organizationId, kind, idOf(req.params))
          return reply.code(204).send(null)
        },
      )

      app.get(
        `${one}/associatedItems`,
        {
          schema: {
            operationId: operations.associatedItems,
            summary: `The services one of the organization's ${group.segment} is attached to`,
            tags,
            params: group.params,
            response: { 200: group.associatedItems },
          },
        },
        async (req) => ({
          results: (await groups.associatedItems(req.principal, (req.params as Params).organizationId, kind, idOf(req.params))).map(toAssociatedItem),
        }),
      )
    }
  }
}
