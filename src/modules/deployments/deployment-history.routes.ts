import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import { EnvironmentParams } from '#src/modules/environments/environments.schemas.ts'
import { HelmParams } from '#src/modules/helm-services/helm-services.schemas.ts'
import { entityTag, ifNoneMatchHits } from '#src/platform/http/entity-tags.ts'
import { EnvironmentHistoryPage, HistoryQuery, ServiceHistoryPage } from './deployments.schemas.ts'
import type { DeploymentsService, HistoryPage } from './deployments.service.ts'
import { bodyTag, historyPageJson, historyPageQuery } from './deployments.wire.ts'
import { createHistoryPageCache, type RenderedPage } from './history-page-cache.ts'

const DESCRIPTION =
  'Newest first. `startId` is the execution id of the last entry you have: the page holds the entries after it, so paging ' +
  'while deployments are added never repeats or skips one. `pageSize` is 1 to 100 (default 20); an unknown `startId` is a 400. ' +
  'Berth extensions: `next_start_id`, `has_more`, the filters `status`, `trigger_action`, `origin`, `from`, `to`, and an ETag ' +
  '(If-None-Match answers 304 while the page is unchanged).'

const ETAG_HEADER = { ETag: Type.String({ description: 'Berth extension: names this page; send it back in If-None-Match' }) }
const NOT_MODIFIED = { type: 'null', description: 'not modified' } as const

/** A page rendered as JSON (the stored entries joined) with its ETag. */
function render(page: HistoryPage): RenderedPage {
  const body = Buffer.from(historyPageJson(page))
  return { body, tag: bodyTag(body) }
}

/** Sends a page, or 304 when the client's copy is current. */
function sendPage(request: FastifyRequest, reply: FastifyReply, { body, tag }: RenderedPage) {
  reply.header('etag', entityTag(tag))
  if (ifNoneMatchHits(request.headers['if-none-match'], tag)) return reply.code(304).send(undefined as never)
  return reply.type('application/json; charset=utf-8').send(body)
}

export function deploymentHistoryRoutes(deployments: DeploymentsService, options: { pageCacheBytes: number }): FastifyPluginAsyncTypebox {
  // Pollers and busy consoles ask for the same pages over and over; the history's version says when one changed.
  const pages = createHistoryPageCache({ maxBytes: options.pageCacheBytes })

  return async (app) => {
    app.get(
      '/environment/:environmentId/deploymentHistoryV2',
      {
        schema: {
          operationId: 'listEnvironmentDeploymentHistoryV2',
          summary: 'List environment deployments',
          description: DESCRIPTION,
          tags: ['Environment Deployment History'],
          params: EnvironmentParams,
          querystring: HistoryQuery,
          response: { 200: { ...EnvironmentHistoryPage, headers: ETAG_HEADER }, 304: NOT_MODIFIED },
        },
      },
      async (req, reply) => {
        const query = historyPageQuery(req.query)
        const { version, load } = await deployments.environmentHistory(req.principal, req.params.environmentId, query)
        const key = JSON.stringify([req.params.environmentId, query])
        let page = pages.get(key, version)
        if (!page) {
          page = render(await load())
          pages.set(key, version, page)
        }
        return sendPage(req, reply, page)
      },
    )

    app.get(
      '/helm/:helmId/deploymentHistoryV2',
      {
        schema: {
          operationId: 'listHelmDeploymentHistoryV2',
          summary: 'List helm deployments',
          description: DESCRIPTION,
          tags: ['Helm Deployment History'],
          params: HelmParams,
          querystring: HistoryQuery,
          response: { 200: { ...ServiceHistoryPage, headers: ETAG_HEADER }, 304: NOT_MODIFIED },
        },
      },
      async (req, reply) =>
        sendPage(req, reply, render(await deployments.helmHistory(req.principal, req.params.helmId, historyPageQuery(req.query)))),
    )
  }
}
