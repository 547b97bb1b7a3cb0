import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { toStatusResponse } from '#src/modules/deployments/api/triggers/triggers.wire.ts'
import { EnvironmentParams } from '#src/modules/environments/environments.schemas.ts'
import type { KindRoutes } from '#src/modules/services/kind-routes.ts'
import { Status } from '#src/platform/deployment-status.schemas.ts'
import { Uuid } from '#src/platform/http/common-schemas.ts'
import {
  ApplicationHistoryPage,
  DeploymentStatusQuery,
  EnvDeploymentStatus,
  EnvironmentLogList,
  HistoryV1Query,
  KIND_HISTORY_PAGES,
} from './service-views.schemas.ts'
import type { ServiceViewsService } from './service-views.service.ts'
import { toEnvironmentLog, toHistoryV1 } from './service-views.wire.ts'

const StatusList = Type.Object({ results: Type.Array(Status) }, { title: 'ReferenceObjectStatusResponseList' })

/** The reference's per-kind statuses and v1 histories, the v1 environment log, and a deployment's status by its request id. */
export function serviceViewsRoutes(views: ServiceViewsService, kinds: readonly KindRoutes[]): FastifyPluginAsyncTypebox {
  return async (app) => {
    for (const kind of kinds.filter((candidate) => candidate.statusList)) {
      app.get(
        `/environment/:environmentId/${kind.segment}/status`,
        {
          schema: {
            operationId: `getEnvironment${kind.name}Status`,
            summary: `List all environment ${kind.name.toLowerCase()} statuses`,
            description: `The status of each of the environment's ${kind.name.toLowerCase()} services.`,
            tags: [`${kind.name}s`],
            params: EnvironmentParams,
            response: { 200: StatusList },
          },
        },
        async (req) => ({ results: (await views.environmentKindStatuses(req.principal, req.params.environmentId, kind.type)).map(toStatusResponse) }),
      )
    }

    for (const kind of kinds) {
      const page = kind.type === 'APPLICATION' ? ApplicationHistoryPage : KIND_HISTORY_PAGES[kind.type as keyof typeof KIND_HISTORY_PAGES]
      if (!page) continue
      const Params = Type.Object({ [kind.param]: Uuid })
      app.get(
        `/${kind.segment}/:${kind.param}/deploymentHistory`,
        {
          schema: {
            operationId: `list${kind.name}DeploymentHistory`,
            summary: `List ${kind.name.toLowerCase()} deploys`,
            description:
              'The v1 history: 20 deployments of the service a page, newest first, from its entries in the V2 history. `id` is the execution id, ' +
              'which `startId` takes to read the next page.',
            tags: [kind.tags.history],
            params: Params,
            querystring: HistoryV1Query,
            response: { 200: page },
          },
        },
        async (req) => {
          const found = await views.serviceHistory(req.principal, (req.params as Record<string, string>)[kind.param]!, kind.type, req.query.startId)
          // Each kind's page has its own schema; the entries carry what the kind's V2 details hold.
          const results = found.results.map((entry) => toHistoryV1(entry, kind.type)) as never[]
          return { page: found.page, page_size: found.page_size, results }
        },
      )
    }

    app.get(
      '/environment/:environmentId/log',
      {
        schema: {
          operationId: 'listEnvironmentLog',
          summary: 'List environment deployment logs',
          description:
            "The last 1,000 lines of the environment's newest deployment, oldest first (listEnvironmentLogs tells them in detail). " +
            "Berth numbers its lines: `id` is a UUID made from the execution id and the line's number, the same at every read.",
          tags: ['Environment Logs'],
          params: EnvironmentParams,
          response: { 200: EnvironmentLogList },
        },
      },
      async (req) => ({ results: (await views.environmentLog(req.principal, req.params.environmentId)).map(toEnvironmentLog) }),
    )

    app.get(
      '/environment/deploymentStatus',
      {
        schema: {
          operationId: 'getDeploymentStatusByDeploymentRequestId',
          summary: 'Get Deployment Status By DeploymentRequestId',
          description:
            "The state of the deployment request (a status's `deployment_request_id`, the execution id) and its environment. " +
            'An id of an environment the caller may not read is a 404, as an unknown one.',
          tags: ['Environment Deployment History'],
          querystring: DeploymentStatusQuery,
          response: { 200: EnvDeploymentStatus },
        },
      },
      async (req) => {
        const run = await views.deploymentRequest(req.principal, req.query.deploymentRequestId)
        return { deployment_request_id: run.id, environment_id: run.environmentId, status: run.status }
      },
    )

    app.post(
      '/environment/:environmentId/uninstall',
      {
        schema: {
          operationId: 'uninstallEnvironment',
          summary: 'Uninstall environment',
          description:
            'Queues one deployment that uninstalls every service of the environment (trigger UNINSTALL): what runs is removed, the services ' +
            "stay, and a deploy installs them again. Needs the DEPLOY role; it runs behind the environment's deployments already queued or running.",
          tags: ['Environment Actions'],
          params: EnvironmentParams,
          response: { 202: Type.Object({}, { title: 'UninstallEnvironmentResponse' }) },
        },
      },
      async (req, reply) => {
        await views.uninstallEnvironment(req.principal, req.params.environmentId)
        return reply.code(202).send({})
      },
    )
  }
}
