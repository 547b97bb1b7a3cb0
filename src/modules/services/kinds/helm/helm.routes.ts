import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { EnvironmentParams } from '#src/modules/environments/environments.schemas.ts'
import { LIST_WRITE_TIMEOUT_MS, SERVICE_LIST_DESCRIPTION, ServiceListQuery } from '#src/modules/services/service-lists.ts'
import { conflictResponse } from '#src/platform/http/common-schemas.ts'
import { entityTag, ifMatchTags, ifNoneMatchHits } from '#src/platform/http/entity-tags.ts'
import { validationFailed } from '#src/platform/http/errors.ts'
import { listBody } from '#src/platform/http/lists.ts'
import { responseWritten } from '#src/platform/http/response-written.ts'
import type { HelmWrite } from './helm.kind.ts'
import { DeleteHelmQuery, HelmParams, HelmRequest, HelmResponse, HelmResponseList } from './helm.schemas.ts'
import type { HelmServices } from './helm.service.ts'
import { helmInput, toHelmResponse } from './helm.wire.ts'
import { helmRequestErrors } from './helm-request-rules.ts'

const ETAG_HEADER = {
  ETag: Type.String({ description: 'Berth extension: names this representation of the helm service; send it back in If-Match or If-None-Match' }),
}

/**
 * The validated body as the service's input, with what it breaks of the rules the schema cannot
 * say. A source that names no chart at all leaves no input to build: that is a 400 at once.
 */
function helmWrite(body: HelmRequest): HelmWrite {
  const ruleErrors = helmRequestErrors(body)
  if (!body.source.git_repository && !body.source.helm_repository) throw validationFailed(ruleErrors)
  return { input: helmInput(body), ruleErrors }
}

export function helmServicesRoutes(helms: HelmServices): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/environment/:environmentId/helm',
      {
        schema: {
          operationId: 'listHelms',
          summary: 'List helms',
          description: SERVICE_LIST_DESCRIPTION,
          tags: ['Helms'],
          params: EnvironmentParams,
          querystring: ServiceListQuery,
          response: { 200: HelmResponseList },
        },
      },
      async (req, reply) => {
        const heldUntil = () => responseWritten(reply, LIST_WRITE_TIMEOUT_MS)
        return listBody(await helms.list(req.principal, req.params.environmentId, { startId: req.query.startId, heldUntil }), toHelmResponse)
      },
    )

    app.post(
      '/environment/:environmentId/helm',
      {
        schema: {
          operationId: 'createHelm',
          summary: 'Create a helm',
          description:
            'Needs the WRITE role; `allow_cluster_wide_resources: true` needs ADMIN. Berth limits: a configuration over ' +
            'BERTH_SERVICE_CONFIG_MAX_BYTES (256 KiB of JSON by default) is a 400; an environment holds at most ' +
            'BERTH_SERVICES_PER_ENVIRONMENT services (200 by default), a 409 past it.',
          tags: ['Helms'],
          params: EnvironmentParams,
          body: HelmRequest,
          response: {
            201: { ...HelmResponse, headers: ETAG_HEADER },
            ...conflictResponse('the name is taken in the environment, or the environment holds BERTH_SERVICES_PER_ENVIRONMENT services already'),
          },
        },
      },
      async (req, reply) => {
        const created = await helms.create(req.principal, req.params.environmentId, helmWrite(req.body))
        return reply.code(201).header('etag', entityTag(created.entityTag)).send(toHelmResponse(created))
      },
    )

    app.get(
      '/helm/:helmId',
      {
        schema: {
          operationId: 'getHelm',
          summary: 'Get helm by ID',
          description: 'Answers 304 when If-None-Match names the current ETag.',
          tags: ['Helm Main Calls'],
          params: HelmParams,
          response: { 200: { ...HelmResponse, headers: ETAG_HEADER }, 304: { type: 'null', description: 'not modified' } },
        },
      },
      async (req, reply) => {
        const helm = await helms.get(req.principal, req.params.helmId)
        reply.header('etag', entityTag(helm.entityTag))
        // A 304 has no body; Fastify would serialise null as 'null'.
        if (ifNoneMatchHits(req.headers['if-none-match'], helm.entityTag)) return reply.code(304).send(undefined as never)
        return toHelmResponse(helm)
      },
    )

    app.put(
      '/helm/:helmId',
      {
        schema: {
          operationId: 'editHelm',
          summary: 'Edit helm',
          description:
            'A full replacement. Needs the WRITE role; `allow_cluster_wide_resources: true` needs ADMIN. ' +
            'Berth extension: with `If-Match: <ETag>` the edit applies only if nobody changed the service since, else 412. ' +
            'A configuration over BERTH_SERVICE_CONFIG_MAX_BYTES (256 KiB of JSON by default) is a 400.',
          tags: ['Helm Main Calls'],
          params: HelmParams,
          body: HelmRequest,
          response: {
            200: { ...HelmResponse, headers: ETAG_HEADER },
            ...conflictResponse('the name is taken in the environment'),
            412: Type.Ref('ErrorResponse', { description: 'If-Match names a version that is no longer current (`precondition_failed`)' }),
          },
        },
      },
      async (req, reply) => {
        const updated = await helms.update(req.principal, req.params.helmId, helmWrite(req.body), ifMatchTags(req.headers['if-match']))
        return reply.header('etag', entityTag(updated.entityTag)).send(toHelmResponse(updated))
      },
    )

    app.delete(
      '/helm/:helmId',
      {
        schema: {
          operationId: 'deleteHelm',
          summary: 'Delete helm',
          description: 'Needs the WRITE role.',
          tags: ['Helm Main Calls'],
          params: HelmParams,
          querystring: DeleteHelmQuery,
        },
      },
      async (req, reply) => {
        await helms.delete(req.principal, req.params.helmId)
        return reply.code(204).send()
      },
    )
  }
}
