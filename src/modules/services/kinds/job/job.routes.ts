import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { EnvironmentParams } from '#src/modules/environments/environments.schemas.ts'
import { groupIdsOfBody } from '#src/modules/services/service-groups.ts'
import { LIST_WRITE_TIMEOUT_MS, SERVICE_LIST_DESCRIPTION, ServiceListQuery } from '#src/modules/services/service-lists.ts'
import { conflictResponse } from '#src/platform/http/common-schemas.ts'
import { entityTag, ifMatchTags, ifNoneMatchHits } from '#src/platform/http/entity-tags.ts'
import { validationFailed } from '#src/platform/http/errors.ts'
import { listBody } from '#src/platform/http/lists.ts'
import { responseWritten } from '#src/platform/http/response-written.ts'
import type { JobWrite } from './job.kind.ts'
import { DeleteJobQuery, JobParams, JobRequest, JobResponse, JobResponseList } from './job.schemas.ts'
import type { JobServices } from './job.service.ts'
import { jobInput, toJobResponse } from './job.wire.ts'
import { jobRequestErrors } from './job-request-rules.ts'

const ETAG_HEADER = {
  ETag: Type.String({ description: 'Berth extension: names this representation of the job service; send it back in If-Match or If-None-Match' }),
}

/**
 * The validated body as the service's input, with what it breaks of the rules the schema cannot
 * say. A source or a schedule that names nothing to run leaves no input to build: a 400 at once.
 */
function jobWrite(body: JobRequest): JobWrite {
  const ruleErrors = jobRequestErrors(body)
  const { source, schedule } = body
  const hasSource = source.image != null || source.docker != null
  const hasSchedule = schedule.cronjob != null || schedule.on_start != null || schedule.on_stop != null || schedule.on_delete != null
  if (!hasSource || !hasSchedule) throw validationFailed(ruleErrors)
  return { input: jobInput(body), ruleErrors, groups: groupIdsOfBody(body) }
}

export function jobServicesRoutes(jobs: JobServices): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/environment/:environmentId/job',
      {
        schema: {
          operationId: 'listJobs',
          summary: 'List jobs',
          description: SERVICE_LIST_DESCRIPTION,
          tags: ['Jobs'],
          params: EnvironmentParams,
          querystring: ServiceListQuery,
          response: { 200: JobResponseList },
        },
      },
      async (req, reply) => {
        const heldUntil = () => responseWritten(reply, LIST_WRITE_TIMEOUT_MS)
        return listBody(await jobs.list(req.principal, req.params.environmentId, { startId: req.query.startId, heldUntil }), toJobResponse)
      },
    )

    app.post(
      '/environment/:environmentId/job',
      {
        schema: {
          operationId: 'createJob',
          summary: 'Create a job',
          description:
            'Needs the WRITE role. A cron job is scheduled once deployed (README, "Jobs"). Berth limits: a configuration over ' +
            'BERTH_SERVICE_CONFIG_MAX_BYTES (256 KiB of JSON by default) is a 400; an environment holds at most ' +
            'BERTH_SERVICES_PER_ENVIRONMENT services (200 by default), a 409 past it.',
          tags: ['Jobs'],
          params: EnvironmentParams,
          body: JobRequest,
          response: {
            201: { ...JobResponse, headers: ETAG_HEADER },
            ...conflictResponse('the name is taken in the environment, or the environment holds BERTH_SERVICES_PER_ENVIRONMENT services already'),
          },
        },
      },
      async (req, reply) => {
        const created = await jobs.create(req.principal, req.params.environmentId, jobWrite(req.body))
        return reply.code(201).header('etag', entityTag(created.entityTag)).send(toJobResponse(created))
      },
    )

    app.get(
      '/job/:jobId',
      {
        schema: {
          operationId: 'getJob',
          summary: 'Get job by ID',
          description: 'Answers 304 when If-None-Match names the current ETag.',
          tags: ['Job Main Calls'],
          params: JobParams,
          response: { 200: { ...JobResponse, headers: ETAG_HEADER }, 304: { type: 'null', description: 'not modified' } },
        },
      },
      async (req, reply) => {
        const job = await jobs.get(req.principal, req.params.jobId)
        reply.header('etag', entityTag(job.entityTag))
        // A 304 has no body; Fastify would serialise null as 'null'.
        if (ifNoneMatchHits(req.headers['if-none-match'], job.entityTag)) return reply.code(304).send(undefined as never)
        return toJobResponse(job)
      },
    )

    app.put(
      '/job/:jobId',
      {
        schema: {
          operationId: 'editJob',
          summary: 'Edit job',
          description:
            'A full replacement. Needs the WRITE role. A deployed cron job whose schedule changes fires by the new one at once. ' +
            'Berth extension: with `If-Match: <ETag>` the edit applies only if nobody changed the service since, else 412. ' +
            'A configuration over BERTH_SERVICE_CONFIG_MAX_BYTES (256 KiB of JSON by default) is a 400.',
          tags: ['Job Main Calls'],
          params: JobParams,
          body: JobRequest,
          response: {
            200: { ...JobResponse, headers: ETAG_HEADER },
            ...conflictResponse('the name is taken in the environment'),
            412: Type.Ref('ErrorResponse', { description: 'If-Match names a version that is no longer current (`precondition_failed`)' }),
          },
        },
      },
      async (req, reply) => {
        const updated = await jobs.update(req.principal, req.params.jobId, jobWrite(req.body), ifMatchTags(req.headers['if-match']))
        return reply.header('etag', entityTag(updated.entityTag)).send(toJobResponse(updated))
      },
    )

    app.delete(
      '/job/:jobId',
      {
        schema: {
          operationId: 'deleteJob',
          summary: 'Delete job',
          description: 'Needs the WRITE role.',
          tags: ['Job Main Calls'],
          params: JobParams,
          querystring: DeleteJobQuery,
        },
      },
      async (req, reply) => {
        await jobs.delete(req.principal, req.params.jobId)
        return reply.code(204).send()
      },
    )
  }
}
