import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { type TObject, type TProperties, Type } from 'typebox'
import type { KindRoutes } from '#src/modules/services/kind-routes.ts'
import { Status } from '#src/platform/deployment-status.schemas.ts'
import { emptyBodyAsObject } from '#src/platform/http/body-parsing.ts'
import { conflictResponse, Uuid } from '#src/platform/http/common-schemas.ts'
import { DRY_RUN_PROPERTIES, DryRunQuery, HistoryQuery, ServiceHistoryPage } from '../../deployments.schemas.ts'
import { HISTORY_DESCRIPTION, HISTORY_ETAG_HEADER, NOT_MODIFIED, sendHistoryPage } from '../history/deployment-history.routes.ts'
import type { DeploymentHistoryService } from '../history/deployment-history.service.ts'
import { historyPageQuery } from '../history/history-pages.ts'
import type { DeploymentTriggers } from './deployment-triggers.service.ts'
import { toStatusResponse } from './triggers.wire.ts'

const QUEUES = 'Needs the DEPLOY role. The deployment is queued behind those of the environment already queued or running, and runs when they end.'

/**
 * Fields another module adds to one kind's status answer (Berth extensions): a database's last
 * good backup, say. `read` runs once the status itself was allowed.
 */
export interface StatusExtension {
  properties: TProperties
  read(serviceId: string): Promise<Record<string, unknown>>
}

/** Deploy, redeploy, stop (and uninstall), status and history of one kind's services: written once for every kind. */
export function serviceActionsRoutes(
  kind: KindRoutes,
  triggers: DeploymentTriggers,
  history: DeploymentHistoryService,
  statusExtension?: StatusExtension,
): FastifyPluginAsyncTypebox {
  const Params = Type.Object({ [kind.param]: Uuid })
  const path = (action: string) => `/${kind.segment}/:${kind.param}/${action}`
  const lower = kind.name.toLowerCase()
  // The kind's own query parameters, and `dry_run`.
  const deployQuery = kind.actionQuery ? Type.Object({ ...(kind.actionQuery as TObject).properties, ...DRY_RUN_PROPERTIES }) : DryRunQuery
  return async (app) => {
    const idOf = (params: unknown) => (params as Record<string, string>)[kind.param]!

    app.post(
      path('deploy'),
      {
        preValidation: emptyBodyAsObject,
        schema: {
          operationId: `deploy${kind.name}`,
          summary: `Deploy ${lower}`,
          description: `${kind.deploy.description} ${QUEUES}`,
          tags: [kind.tags.actions],
          params: Params,
          querystring: deployQuery,
          body: kind.deploy.body,
          response: { 202: Status },
        },
      },
      async (req, reply) => {
        const { dry_run: dryRun, ...query } = req.query as { dry_run?: boolean }
        const overrides = { ...kind.deploy.overrides(req.body), ...kind.queryOverrides?.(query) }
        const queued = await triggers.deployService(req.principal, kind.type, idOf(req.params), overrides, dryRun === true)
        return reply.code(202).send(toStatusResponse(queued))
      },
    )

    app.post(
      path('redeploy'),
      {
        schema: {
          operationId: `redeploy${kind.name}`,
          summary: `Redeploy ${lower}`,
          description: `Restarts the ${lower} service (trigger RESTART). ${QUEUES}`,
          tags: [kind.tags.actions],
          params: Params,
          ...(kind.actionQuery ? { querystring: kind.actionQuery } : {}),
          response: { 202: Status },
        },
      },
      async (req, reply) =>
        reply
          .code(202)
          .send(toStatusResponse(await triggers.redeployService(req.principal, kind.type, idOf(req.params), kind.queryOverrides?.(req.query)))),
    )

    if (kind.reboot) {
      app.post(
        path('restart-service'),
        {
          schema: {
            operationId: `reboot${kind.name}`,
            summary: `Reboot ${lower}`,
            description: `Restarts the ${lower} service's instances (trigger RESTART, as a redeploy). ${QUEUES}`,
            tags: [kind.tags.actions],
            params: Params,
            response: { 202: Status },
          },
        },
        async (req, reply) => reply.code(202).send(toStatusResponse(await triggers.redeployService(req.principal, kind.type, idOf(req.params)))),
      )
    }

    app.post(
      path('stop'),
      {
        schema: {
          operationId: `stop${kind.name}`,
          summary: `Stop ${lower}`,
          description: QUEUES,
          tags: [kind.tags.actions],
          params: Params,
          response: { 202: Status, ...conflictResponse(`the ${lower} service is already stopped and nothing queued includes it`) },
        },
      },
      async (req, reply) => reply.code(202).send(toStatusResponse(await triggers.stopService(req.principal, kind.type, idOf(req.params)))),
    )

    if (kind.uninstall) {
      app.post(
        path('uninstall'),
        {
          preValidation: emptyBodyAsObject,
          schema: {
            operationId: `uninstall${kind.name}`,
            summary: `Uninstall ${lower}`,
            description: `Deletes what the ${lower} service installed and keeps its configuration (trigger UNINSTALL). ${QUEUES} 204 when nothing is installed and nothing queued would install it.`,
            tags: [kind.tags.actions],
            params: Params,
            ...(kind.uninstallQuery ? { querystring: kind.uninstallQuery } : {}),
            body: Type.Object({}),
            response: { 202: Status, 204: { type: 'null', description: 'no deployment was triggered: nothing is installed' } },
          },
        },
        async (req, reply) => {
          const queued = await triggers.uninstallService(req.principal, kind.type, idOf(req.params), kind.queryOverrides?.(req.query))
          if (queued === 'nothing') return reply.code(204).send(undefined as never)
          return reply.code(202).send(toStatusResponse(queued))
        },
      )
    }

    app.get(
      path('status'),
      {
        schema: {
          operationId: `get${kind.name}Status`,
          summary: `Get ${lower} status`,
          description: "`state` is the service's state in its newest deployment; READY before any.",
          tags: [kind.tags.main],
          params: Params,
          response: { 200: statusExtension ? Type.Object({ ...Status.properties, ...statusExtension.properties }) : Status },
        },
      },
      async (req) => {
        const status = toStatusResponse(await triggers.getServiceStatus(req.principal, kind.type, idOf(req.params)))
        return statusExtension ? { ...status, ...(await statusExtension.read(idOf(req.params))) } : status
      },
    )

    app.get(
      path('deploymentHistoryV2'),
      {
        schema: {
          operationId: `list${kind.name}DeploymentHistoryV2`,
          summary: `List ${lower} deployments`,
          description: HISTORY_DESCRIPTION,
          tags: [kind.tags.history],
          params: Params,
          querystring: HistoryQuery,
          response: { 200: { ...ServiceHistoryPage, headers: HISTORY_ETAG_HEADER }, 304: NOT_MODIFIED },
        },
      },
      async (req, reply) =>
        sendHistoryPage(req, reply, await history.servicePage(req.principal, idOf(req.params), kind.type, historyPageQuery(req.query))),
    )
  }
}
