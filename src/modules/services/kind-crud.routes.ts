import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { EnvironmentParams } from '#src/modules/environments/environments.schemas.ts'
import { conflictResponse } from '#src/platform/http/common-schemas.ts'
import { entityTag, ifMatchTags, ifNoneMatchHits } from '#src/platform/http/entity-tags.ts'
import { listBody } from '#src/platform/http/lists.ts'
import { responseWritten } from '#src/platform/http/response-written.ts'
import type { AnyKindDescriptor, KindCrudService } from './kind-descriptor.ts'
import type { KindRouteContext } from './kind-route-context.ts'
import { DeleteServiceQuery, kindParams, kindResponseList } from './kind-schemas.ts'
import { LIST_WRITE_TIMEOUT_MS, SERVICE_LIST_DESCRIPTION, ServiceListQuery } from './service-lists.ts'

const GET_DESCRIPTION = 'Answers 304 when If-None-Match names the current ETag.'

/**
 * A kind's routes: the list (a page at a time) and create of an environment's services of the
 * kind, the read (ETag, 304), full edit (If-Match) and delete of one, and the routes only the kind
 * has, in the order the document lists them.
 */
export function kindCrudRoutes(
  descriptor: AnyKindDescriptor,
  // biome-ignore lint/suspicious/noExplicitAny: every kind's records and writes go through here
  services: KindCrudService<any, any>,
  context: KindRouteContext,
): FastifyPluginAsyncTypebox {
  const { routes: wire, names, schemas, descriptions, ownRoutes } = descriptor
  const etagHeader = {
    ETag: Type.String({ description: `Berth extension: names this representation of ${names.etagNoun}; send it back in If-Match or If-None-Match` }),
  }
  const params = kindParams(wire.param)
  const toResponse = (record: { entityTag: string }) => descriptor.toResponse(record)
  const editWrite = (body: unknown) => (descriptor.editWrite ? descriptor.editWrite(body) : descriptor.createWrite(body, context))
  const collection = `/environment/:environmentId/${wire.segment}`
  const member = `/${wire.segment}/:${wire.param}`
  const idOf = (params: unknown) => (params as Record<string, string>)[wire.param]!

  return async (app) => {
    if (ownRoutes?.before) await app.register(ownRoutes.before(context, services))

    app.get(
      collection,
      {
        schema: {
          operationId: names.list ?? `list${wire.name}`,
          summary: names.listSummary ?? `List ${names.plural.toLowerCase()}`,
          description: SERVICE_LIST_DESCRIPTION,
          tags: [names.plural],
          params: EnvironmentParams,
          querystring: ServiceListQuery,
          response: { 200: kindResponseList(schemas.response, wire.name) },
        },
      },
      async (req, reply) => {
        const heldUntil = () => responseWritten(reply, LIST_WRITE_TIMEOUT_MS)
        return listBody(await services.list(req.principal, req.params.environmentId, { startId: req.query.startId, heldUntil }), toResponse)
      },
    )

    app.post(
      collection,
      {
        schema: {
          operationId: `create${wire.name}`,
          summary: `Create ${names.aNoun}`,
          description: descriptions.create,
          tags: [names.plural],
          params: EnvironmentParams,
          body: schemas.request,
          response: {
            201: { ...schemas.response, headers: etagHeader },
            ...conflictResponse('the name is taken in the environment, or the environment holds BERTH_SERVICES_PER_ENVIRONMENT services already'),
          },
        },
      },
      async (req, reply) => {
        const created = await services.create(req.principal, req.params.environmentId, descriptor.createWrite(req.body, context))
        return reply.code(201).header('etag', entityTag(created.entityTag)).send(toResponse(created))
      },
    )

    if (ownRoutes?.afterCreate) await app.register(ownRoutes.afterCreate(context, services))

    app.get(
      member,
      {
        schema: {
          operationId: `get${wire.name}`,
          summary: `Get ${wire.segment} by ID`,
          description: descriptions.get ?? GET_DESCRIPTION,
          tags: [wire.tags.main],
          params,
          response: { 200: { ...schemas.response, headers: etagHeader }, 304: { type: 'null', description: 'not modified' } },
        },
      },
      async (req, reply) => {
        const record = await services.get(req.principal, idOf(req.params))
        reply.header('etag', entityTag(record.entityTag))
        // A 304 has no body; Fastify would serialise null as 'null'.
        if (ifNoneMatchHits(req.headers['if-none-match'], record.entityTag)) return reply.code(304).send(undefined as never)
        return toResponse(record)
      },
    )

    app.put(
      member,
      {
        schema: {
          operationId: `edit${wire.name}`,
          summary: names.editSummary ?? `Edit ${wire.segment}`,
          description: descriptions.edit,
          tags: [wire.tags.main],
          params,
          body: schemas.editRequest ?? schemas.request,
          response: {
            200: { ...schemas.response, headers: etagHeader },
            ...conflictResponse('the name is taken in the environment'),
            412: Type.Ref('ErrorResponse', { description: 'If-Match names a version that is no longer current (`precondition_failed`)' }),
          },
        },
      },
      async (req, reply) => {
        const updated = await services.update(req.principal, idOf(req.params), editWrite(req.body), ifMatchTags(req.headers['if-match']))
        return reply.header('etag', entityTag(updated.entityTag)).send(toResponse(updated))
      },
    )

    app.delete(
      member,
      {
        schema: {
          operationId: `delete${wire.name}`,
          summary: names.deleteSummary ?? `Delete ${wire.segment}`,
          description: descriptions.delete ?? 'Needs the WRITE role.',
          tags: [wire.tags.main],
          params,
          querystring: descriptor.deleteQuery ?? DeleteServiceQuery,
        },
      },
      async (req, reply) => {
        await services.delete(req.principal, idOf(req.params), descriptor.deleteQuery ? descriptor.queryOverrides?.(req.query) : undefined)
        return reply.code(204).send()
      },
    )

    if (ownRoutes?.after) await app.register(ownRoutes.after(context, services))
  }
}
