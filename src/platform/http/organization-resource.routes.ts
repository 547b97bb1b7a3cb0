import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { type Static, type TSchema, Type } from 'typebox'
import type { Principal } from '#src/platform/auth/principal.ts'
import { OrganizationParams } from './common-schemas.ts'
import { type CappedList, listBody } from './lists.ts'

/** What the document says of one route: the reference's operation id and summary, and Berth's description. */
export interface OperationDocs {
  operationId: string
  summary: string
  description?: string
}

/** The service behind an organization resource: a capped list, and one row's read, create, full edit and delete. */
export interface OrganizationResourceService<Row, Input> {
  list(principal: Principal, organizationId: string): Promise<CappedList<Row>>
  get(principal: Principal, organizationId: string, id: string): Promise<Row>
  create(principal: Principal, organizationId: string, input: Input): Promise<Row>
  update(principal: Principal, organizationId: string, id: string, input: Input): Promise<Row>
  delete(principal: Principal, organizationId: string, id: string): Promise<void>
}

/** An organization resource (a git token, a helm repository, a container registry) as its routes show it. */
export interface OrganizationResourceDescriptor<Row, Input, Request extends TSchema> {
  /** The path segment after `/organization/{organizationId}/`, as `gitToken`. */
  segment: string
  /** The member's path parameter, as `gitTokenId`; `schemas.params` holds it beside `organizationId`. */
  param: string
  tags: string[]
  schemas: { params: TSchema; request: Request; response: TSchema; responseList: TSchema }
  docs: { list: OperationDocs; create: OperationDocs; get: OperationDocs; edit: OperationDocs; delete: OperationDocs }
  /** Why a delete is refused with 409 (what still uses the resource). */
  inUse: string
  toInput(body: Static<Request>): Input
  toResponse(row: Row): unknown
}

// The description key only when there is one, in its place: the document stays as it was written by hand.
const documented = ({ operationId, summary, description }: OperationDocs) => ({
  operationId,
  summary,
  ...(description === undefined ? {} : { description }),
})

/** An organization resource's list, create, get, full edit and delete, in the order the document lists them. */
export function organizationResourceRoutes<Row, Input, Request extends TSchema>(
  descriptor: OrganizationResourceDescriptor<Row, Input, Request>,
  service: OrganizationResourceService<Row, Input>,
): FastifyPluginAsyncTypebox {
  const { segment, param, tags, schemas, docs, toInput, toResponse } = descriptor
  const collection = `/organization/:organizationId/${segment}`
  const member = `${collection}/:${param}`
  // The member's params schema comes from the descriptor, so the type provider cannot name them.
  const idsOf = (params: unknown) => {
    const named = params as Record<string, string>
    return { organizationId: named.organizationId!, id: named[param]! }
  }
  const inputOf = (body: unknown) => toInput(body as Static<Request>)

  return async (app) => {
    app.get(
      collection,
      { schema: { ...documented(docs.list), tags, params: OrganizationParams, response: { 200: schemas.responseList } } },
      async (req) => listBody(await service.list(req.principal, req.params.organizationId), toResponse),
    )

    app.post(
      collection,
      {
        schema: { ...documented(docs.create), tags, params: OrganizationParams, body: schemas.request, response: { 201: schemas.response } },
      },
      async (req, reply) => {
        const created = await service.create(req.principal, req.params.organizationId, inputOf(req.body))
        return reply.code(201).send(toResponse(created))
      },
    )

    app.get(member, { schema: { ...documented(docs.get), tags, params: schemas.params, response: { 200: schemas.response } } }, async (req) => {
      const { organizationId, id } = idsOf(req.params)
      return toResponse(await service.get(req.principal, organizationId, id))
    })

    app.put(
      member,
      { schema: { ...documented(docs.edit), tags, params: schemas.params, body: schemas.request, response: { 200: schemas.response } } },
      async (req) => {
        const { organizationId, id } = idsOf(req.params)
        return toResponse(await service.update(req.principal, organizationId, id, inputOf(req.body)))
      },
    )

    app.delete(
      member,
      {
        schema: {
          ...documented(docs.delete),
          tags,
          params: schemas.params,
          response: { 204: Type.Null({ description: 'deleted' }), 409: Type.Ref('ErrorResponse', { description: descriptor.inUse }) },
        },
      },
      async (req, reply) => {
        const { organizationId, id } = idsOf(req.params)
        await service.delete(req.principal, organizationId, id)
        return reply.code(204).send(null)
      },
    )
  }
}
