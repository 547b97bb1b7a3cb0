import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import { EnvironmentParams } from '#src/modules/environments/environments.schemas.ts'
import { entityTag, ifNoneMatchHits } from '#src/platform/http/entity-tags.ts'
import { EnvironmentHistoryPage, HistoryQuery } from '../../deployments.schemas.ts'
import type { DeploymentHistoryService } from './deployment-history.service.ts'
import type { RenderedPage } from './history-page-cache.ts'
import { historyPageQuery } from './history-pages.ts'
import { DeploymentHistoryEnvironmentPage, v1Page } from './history-v1.ts'

export const HISTORY_DESCRIPTION =
  'Newest first. `startId` is the execution id of the last entry you have: the page holds the entries after it, so paging ' +
  'while deployments are added never repeats or skips one. `pageSize` is 1 to 100 (default 20); an unknown `startId` is a 400. ' +
  'Berth extensions: `next_start_id`, `has_more`, the filters `status`, `trigger_action`, `origin`, `from`, `to`, and an ETag ' +
  '(If-None-Match answers 304 while the page is unchanged).'

export const HISTORY_ETAG_HEADER = { ETag: Type.String({ description: 'Berth extension: names this page; send it back in If-None-Match' }) }
export const NOT_MODIFIED = { type: 'null', description: 'not modified' } as const

/** Sends a page, or 304 when the client's copy is current. */
export function sendHistoryPage(request: FastifyRequest, reply: FastifyReply, { body, tag }: RenderedPage) {
  reply.header('etag', entityTag(tag))
  if (ifNoneMatchHits(request.headers['if-none-match'], tag)) return reply.code(304).send(undefined as never)
  return reply.type('application/json; charset=utf-8').send(body)
}

export function deploymentHistoryRoutes(history: DeploymentHistoryService): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/environment/:environmentId/deploymentHistoryV2',
      {
        schema: {
          operationId: 'listEnvironmentDeploymentHistoryV2',
          summary: 'List environment deployments',
          description: HISTORY_DESCRIPTION,
          tags: ['Environment Deployment History'],
          params: EnvironmentParams,
          querystring: HistoryQuery,
          response: { 200: { ...EnvironmentHistoryPage, headers: HISTORY_ETAG_HEADER }, 304: NOT_MODIFIED },
        },
      },
      async (req, reply) =>
        sendHistoryPage(req, reply, await history.environmentPage(req.principal, req.params.environmentId, historyPageQuery(req.query))),
    )

    app.get(
      '/environment/:environmentId/deploymentHistory',
      {
        schema: {
          operationId: 'listEnvironmentDeploymentHistory',
          summary: 'List environment deployments',
          description:
            'The v1 history (what `qovery environment deployment list` reads): the entries of listEnvironmentDeploymentHistoryV2, 20 a page, newest first, each with its services grouped by kind. `startId` is the id of the last entry you have.',
          tags: ['Environment Deployment History'],
          params: EnvironmentParams,
          querystring: Type.Pick(HistoryQuery, ['startId']),
          response: { 200: DeploymentHistoryEnvironmentPage },
        },
      },
      async (req) => {
        const v2 = await history.environmentPage(
          req.principal,
          req.params.environmentId,
          historyPageQuery({ pageSize: 20, startId: req.query.startId }),
        )
        return v1Page(v2.body)
      },
    )
  }
}
