import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { type Static, Type } from 'typebox'
import { EnvironmentParams } from '#src/modules/environments/environments.schemas.ts'
import { FOLLOW_STREAMS_REFUSED, type FollowStreams, followerLifetime } from '#src/modules/services/logs/follow-streams.ts'
import { SERVICE_TYPES } from '#src/platform/deployment-states.ts'
import { DateTime, Enum, Nullable, Uuid } from '#src/platform/http/common-schemas.ts'
import { sendEventStream } from '#src/platform/http/event-stream.ts'
import type { LogLine } from './deployment-logs.repository.ts'
import type { DeploymentLogsService } from './deployment-logs.service.ts'

const EnvironmentLogs = Type.Object(
  {
    id: Type.String({ description: "Berth extension: the line's number, increasing; what Last-Event-ID takes when following" }),
    type: Type.String({ description: "the line's level: INFO, WARNING or ERROR" }),
    timestamp: DateTime,
    details: Type.Object({
      organization_id: Uuid,
      cluster_id: Uuid,
      execution_id: Type.String(),
      transmitter: Type.Object({
        id: Uuid,
        name: Type.String(),
        type: Enum(
          [...SERVICE_TYPES, 'ENVIRONMENT'],
          'DeploymentLogTransmitterType',
          "the service's kind (HELM, …), or ENVIRONMENT for the deployment as a whole",
        ),
      }),
      stage: Type.Object({ step: Type.String(), id: Nullable(Uuid), name: Nullable(Type.String()) }),
    }),
    error: Nullable(Type.Object({ tag: Type.String(), user_log_message: Type.String() })),
    message: Nullable(Type.Object({ safe_message: Type.String() })),
  },
  { title: 'EnvironmentLogs' },
)

const LogsQuery = Type.Object({
  version: Type.Optional(
    Type.String({ maxLength: 100, description: "the execution id of the deployment; absent: the environment's newest deployment" }),
  ),
})

const toEnvironmentLog = (line: LogLine) => ({
  id: line.id,
  type: line.level,
  timestamp: line.createdAt.toISOString(),
  details: {
    organization_id: line.organizationId,
    cluster_id: line.clusterId,
    execution_id: line.executionId,
    transmitter: { id: line.serviceId ?? line.environmentId, name: line.transmitterName, type: line.transmitterType },
    stage: { step: line.step, id: null, name: line.stageName },
  },
  error: line.level === 'ERROR' ? { tag: 'DEPLOYMENT_ERROR', user_log_message: line.message } : null,
  message: { safe_message: line.message },
})

/** Last-Event-ID as a line number: where a reconnecting follower left off. */
const lineNumber = (header: string | string[] | undefined) => (typeof header === 'string' && /^\d{1,18}$/.test(header) ? header : '0')

export function deploymentLogsRoutes(logs: DeploymentLogsService, streams?: FollowStreams): FastifyPluginAsyncTypebox {
  return async (app) => {
    // Events are written here, not by the serializer: they take the served words here too.
    const served = app.servedWords<Static<typeof EnvironmentLogs>>(EnvironmentLogs)
    const tags = ['Environment Logs']

    app.get(
      '/environment/:environmentId/logs',
      {
        schema: {
          operationId: 'listEnvironmentLogs',
          summary: 'List environment deployment logs v2',
          description:
            "The last 1,000 lines of a deployment's logs, oldest first: of the deployment `version` names, else of the environment's newest. " +
            'An empty list when the environment never deployed. Berth extension: each line has an increasing `id`; follow a running deployment with `…/logs/follow`.',
          tags,
          params: EnvironmentParams,
          querystring: LogsQuery,
          response: { 200: Type.Array(EnvironmentLogs, { title: 'EnvironmentLogsResponseList' }) },
        },
      },
      async (req) => (await logs.last(req.principal, req.params.environmentId, req.query.version)).map(toEnvironmentLog),
    )

    app.get(
      '/environment/:environmentId/logs/follow',
      {
        schema: {
          operationId: 'followEnvironmentLogs',
          summary: "Follow a deployment's logs (Berth extension)",
          description:
            "Server-sent events (`text/event-stream`): each event is one line in the shape of `listEnvironmentLogs` (`event: log`, `id`: the line's id), " +
            'from the first line, or after the line `Last-Event-ID` names. The stream ends with `event: end` once the deployment is finished and every line ' +
            'was sent, and is let go after 15 minutes (reconnect with Last-Event-ID).',
          tags,
          params: EnvironmentParams,
          querystring: LogsQuery,
          response: {
            200: { description: 'a text/event-stream of log lines', content: { 'text/event-stream': { schema: Type.String() } } },
            429: FOLLOW_STREAMS_REFUSED,
          },
        },
      },
      async (req, reply) => {
        // The stream's place under the follow stream limits (docs/service-logs.md), given back when its client leaves.
        const follower = followerLifetime(streams, req, reply)
        const lines = logs.follow(
          req.principal,
          req.params.environmentId,
          req.query.version,
          lineNumber(req.headers['last-event-id']),
          follower.signal,
          follower.admit,
        )
        // The first read checks access and the deployment: its errors answer in the error shape, before any event is sent.
        const first = await lines.next()
        async function* events() {
          let next = first
          while (!next.done) {
            // A comment when there is no line: the headers go out at once, and a quiet stream stays open.
            if (next.value.lines.length === 0) yield ': waiting for lines\n\n'
            for (const line of next.value.lines) yield `event: log\nid: ${line.id}\ndata: ${JSON.stringify(served(toEnvironmentLog(line)))}\n\n`
            next = await lines.next()
          }
          if (!follower.signal.aborted) yield 'event: end\ndata: {}\n\n'
          follower.release()
        }
        return sendEventStream(reply, events())
      },
    )
  }
}
