import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { EnvironmentParams } from '#src/modules/environments/environments.schemas.ts'
import { groupIdsOfBody } from '#src/modules/services/service-groups.ts'
import { SIMULATED_LINK_DOMAIN } from '#src/modules/services/service-links.ts'
import { LIST_WRITE_TIMEOUT_MS, SERVICE_LIST_DESCRIPTION, ServiceListQuery } from '#src/modules/services/service-lists.ts'
import { conflictResponse, Uuid } from '#src/platform/http/common-schemas.ts'
import { entityTag, ifMatchTags, ifNoneMatchHits } from '#src/platform/http/entity-tags.ts'
import { listBody } from '#src/platform/http/lists.ts'
import { responseWritten } from '#src/platform/http/response-written.ts'
import type { ApplicationWrite } from './application.kind.ts'
import {
  type ApplicationEditRequest,
  ApplicationEditRequest as ApplicationEditRequestSchema,
  ApplicationParams,
  type ApplicationRequest,
  ApplicationRequest as ApplicationRequestSchema,
  ApplicationResponse,
  ApplicationResponseList,
  CommitListQuery,
  CommitResponseList,
  DeleteApplicationQuery,
} from './application.schemas.ts'
import type { ApplicationServices } from './application.service.ts'
import { applicationInput, toApplicationResponse, toCommitResponse } from './application.wire.ts'
import { applicationRequestErrors } from './application-request-rules.ts'

const ETAG_HEADER = {
  ETag: Type.String({ description: 'Berth extension: names this representation of the application; send it back in If-Match or If-None-Match' }),
}

const LinkResponseList = Type.Object(
  {
    results: Type.Array(
      Type.Object({
        service_id: Uuid,
        service_type: Type.String(),
        url: Type.String(),
        internal_port: Type.Integer(),
        external_port: Type.Integer(),
        is_qovery_domain: Type.Boolean(),
        is_default: Type.Boolean(),
      }),
    ),
  },
  { title: 'LinkResponseList' },
)

const applicationWrite = (body: ApplicationRequest | ApplicationEditRequest): ApplicationWrite => ({
  input: applicationInput(body),
  ruleErrors: applicationRequestErrors(body),
  groups: groupIdsOfBody(body),
})

const LIMITS =
  'A configuration over BERTH_SERVICE_CONFIG_MAX_BYTES (256 KiB of JSON by default) is a 400; an environment holds at most ' +
  'BERTH_SERVICES_PER_ENVIRONMENT services (200 by default), a 409 past it.'

export function applicationServicesRoutes(applications: ApplicationServices): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/environment/:environmentId/application',
      {
        schema: {
          operationId: 'listApplication',
          summary: 'List applications',
          description: SERVICE_LIST_DESCRIPTION,
          tags: ['Applications'],
          params: EnvironmentParams,
          querystring: ServiceListQuery,
          response: { 200: ApplicationResponseList },
        },
      },
      async (req, reply) => {
        const heldUntil = () => responseWritten(reply, LIST_WRITE_TIMEOUT_MS)
        return listBody(
          await applications.list(req.principal, req.params.environmentId, { startId: req.query.startId, heldUntil }),
          toApplicationResponse,
        )
      },
    )

    app.post(
      '/environment/:environmentId/application',
      {
        schema: {
          operationId: 'createApplication',
          summary: 'Create an application',
          description: `Needs the WRITE role. The git repository is checked against the organization's git tokens as a helm chart's is. ${LIMITS}`,
          tags: ['Applications'],
          params: EnvironmentParams,
          body: ApplicationRequestSchema,
          response: {
            201: { ...ApplicationResponse, headers: ETAG_HEADER },
            ...conflictResponse('the name is taken in the environment, or the environment holds BERTH_SERVICES_PER_ENVIRONMENT services already'),
          },
        },
      },
      async (req, reply) => {
        const created = await applications.create(req.principal, req.params.environmentId, applicationWrite(req.body))
        return reply.code(201).header('etag', entityTag(created.entityTag)).send(toApplicationResponse(created))
      },
    )

    app.get(
      '/application/:applicationId',
      {
        schema: {
          operationId: 'getApplication',
          summary: 'Get application by ID',
          description:
            'Answers 304 when If-None-Match names the current ETag. `git_repository.deployed_commit_*` describe the commit its last successful deploy or redeploy built.',
          tags: ['Application Main Calls'],
          params: ApplicationParams,
          response: { 200: { ...ApplicationResponse, headers: ETAG_HEADER }, 304: { type: 'null', description: 'not modified' } },
        },
      },
      async (req, reply) => {
        const application = await applications.get(req.principal, req.params.applicationId)
        reply.header('etag', entityTag(application.entityTag))
        if (ifNoneMatchHits(req.headers['if-none-match'], application.entityTag)) return reply.code(304).send(undefined as never)
        return toApplicationResponse(application)
      },
    )

    app.put(
      '/application/:applicationId',
      {
        schema: {
          operationId: 'editApplication',
          summary: 'Edit application',
          description:
            'A full replacement: what the body leaves out takes its default, except `name` and `git_repository`, which stay as they are when absent. ' +
            'A port or storage keeps its id when the body names it by id (else by the port name or mount point). Needs the WRITE role. ' +
            'Berth extension: with `If-Match: <ETag>` the edit applies only if nobody changed the application since, else 412. ' +
            'A configuration over BERTH_SERVICE_CONFIG_MAX_BYTES (256 KiB of JSON by default) is a 400.',
          tags: ['Application Main Calls'],
          params: ApplicationParams,
          body: ApplicationEditRequestSchema,
          response: {
            200: { ...ApplicationResponse, headers: ETAG_HEADER },
            ...conflictResponse('the name is taken in the environment'),
            412: Type.Ref('ErrorResponse', { description: 'If-Match names a version that is no longer current (`precondition_failed`)' }),
          },
        },
      },
      async (req, reply) => {
        const updated = await applications.update(
          req.principal,
          req.params.applicationId,
          applicationWrite(req.body),
          ifMatchTags(req.headers['if-match']),
        )
        return reply.header('etag', entityTag(updated.entityTag)).send(toApplicationResponse(updated))
      },
    )

    app.delete(
      '/application/:applicationId',
      {
        schema: {
          operationId: 'deleteApplication',
          summary: 'Delete application',
          description: 'Needs the WRITE role.',
          tags: ['Application Main Calls'],
          params: ApplicationParams,
          querystring: DeleteApplicationQuery,
        },
      },
      async (req, reply) => {
        await applications.delete(req.principal, req.params.applicationId)
        return reply.code(204).send()
      },
    )

    app.get(
      '/application/:applicationId/commit',
      {
        schema: {
          operationId: 'listApplicationCommit',
          summary: 'List last commits',
          description:
            "The newest 100 commits of the application's branch (the default branch without one), or from `gitCommitId`, newest first, as its git provider " +
            "lists them, read with the repository's git token; `tag` is a tag among the provider's first 100 that points at the commit, else empty. " +
            'Provider errors as for branch listing (README, "Git providers"); an unknown `gitCommitId` is a 400. Kept for BERTH_GIT_CACHE_TTL_MS.',
          tags: ['Application Main Calls'],
          params: ApplicationParams,
          querystring: CommitListQuery,
          response: { 200: CommitResponseList },
        },
      },
      async (req) => ({
        results: (await applications.commits(req.principal, req.params.applicationId, req.query.gitCommitId)).map(toCommitResponse),
      }),
    )

    app.get(
      '/application/:applicationId/link',
      {
        schema: {
          operationId: 'listApplicationLinks',
          summary: 'List all URLs of the application',
          description:
            `The addresses its publicly accessible ports are reached at, derived from the application's id and ports, ` +
            `under ${SIMULATED_LINK_DOMAIN}: https://z<first 8 hex of the id>.${SIMULATED_LINK_DOMAIN} for the default port, ` +
            `https://p<internal port>-z<first 8 hex of the id>.${SIMULATED_LINK_DOMAIN} for each public port (README, "Applications"), ` +
            'then, when its environment deploys to Docker, `http://<host>:<host port>` (`tcp://`, `udp://`) per public port of each running instance (README, "Deploying with Docker"); ' +
            'then `https://<domain>` for each custom domain, on the default port (`is_qovery_domain: false`).',
          tags: ['Application Main Calls'],
          params: ApplicationParams,
          response: { 200: LinkResponseList },
        },
      },
      async (req) => ({ results: await applications.links(req.principal, req.params.applicationId) }),
    )
  }
}
