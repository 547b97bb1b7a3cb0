import { setTimeout as sleep } from 'node:timers/promises'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { DateTime, Nullable, Uuid } from '#src/platform/http/common-schemas.ts'
import { sendEventStream } from '#src/platform/http/event-stream.ts'
import type { KindRoutes } from '../kind-routes.ts'
import { FOLLOW_STREAMS_REFUSED, type FollowStreams, followerLifetime } from './follow-streams.ts'
import { decodeCursor, SERVICE_LOG_LINES, type ServiceLogLine, type ServiceLogsService } from './service-logs.service.ts'

const Log = Type.Object(
  {
    id: Uuid,
    created_at: DateTime,
    message: Type.String(),
    pod_name: Type.Optional(Type.String({ description: "the instance's name in the engine (a container's name); absent for a job's runs" })),
    version: Type.Optional(Type.String({ description: 'the execution id of the deployment that started the instance' })),
    instance: Nullable(
      Type.String({
        description: 'Berth extension: which instance printed it (0, 1, …; run-1, … for a job run); null for a job run read from its deployment',
      }),
    ),
    stream: Nullable(
      Type.Union([Type.Literal('stdout'), Type.Literal('stderr')], {
        description:
          'Berth extension: where it printed it; null for a job run read from its deployment and on Kubernetes (their streams are kept merged)',
      }),
    ),
  },
  { title: 'Log' },
)

/** How long a follower may go without a line before it is sent a comment. */
const KEEP_ALIVE_MS = 10_000

const LogResponseList = Type.Object({ results: Type.Array(Log) }, { title: 'LogResponseList' })

const toLog = (line: ServiceLogLine) => ({
  id: line.id,
  created_at: line.at.toISOString(),
  message: line.message,
  ...(line.instanceName !== null ? { pod_name: line.instanceName } : {}),
  version: line.executionId,
  instance: line.instance,
  stream: line.stream,
})

const ABOUT =
  'Each line says which instance printed it (`pod_name`, `instance`), when, and on which stream; secret values of the deployment that started the instance read `***`. ' +
  "Read from the engine that runs the service (Docker); empty for services of the simulator, and of Kubernetes clusters for now. A job's lines are its runs' output as its deployments logged it. " +
  'Needs the READ role.'

/** The service logs of every kind: `GET /{kind}/{id}/log` (the reference's for applications and containers) and its follower. */
export function serviceLogsRoutes(kinds: readonly KindRoutes[], logs: ServiceLogsService, streams?: FollowStreams): FastifyPluginAsyncTypebox {
  return async (app) => {
    for (const kind of kinds) {
      const Params = Type.Object({ [kind.param]: Uuid })
      const idOf = (params: unknown) => (params as Record<string, string>)[kind.param]!
      const lower = kind.name.toLowerCase()
      const tags = [`${kind.name} Logs`]
      const reference = kind.type === 'APPLICATION' || kind.type === 'CONTAINER'

      app.get(
        `/${kind.segment}/:${kind.param}/log`,
        {
          schema: {
            operationId: `list${kind.name}Log`,
            summary: reference ? 'List logs' : `List logs (Berth extension)`,
            description: `The last ${SERVICE_LOG_LINES} lines the ${lower} printed, oldest first. ${ABOUT} Follow it live with \`…/log/follow\`.`,
            tags,
            params: Params,
            response: { 200: LogResponseList },
          },
        },
        async (req) => ({ results: (await logs.last(req.principal, kind.type, idOf(req.params))).map(toLog) }),
      )

      app.get(
        `/${kind.segment}/:${kind.param}/log/follow`,
        {
          schema: {
            operationId: `follow${kind.name}Log`,
            summary: `Follow ${lower} logs (Berth extension)`,
            description:
              `Server-sent events (\`text/event-stream\`): the last ${SERVICE_LOG_LINES} lines, then each line as it is printed, one event each in the shape of \`list${kind.name}Log\`'s items ` +
              '(`event: log`; `id`: where the follower is). After a dropped connection, reconnect with the last `id` received as the `Last-Event-ID` header: ' +
              'the stream goes on after that line, without a gap or a repeat. It ends with `event: end` once no instance runs and every line was sent. ' +
              ABOUT,
            tags,
            params: Params,
            response: {
              200: { description: 'a text/event-stream of log lines', content: { 'text/event-stream': { schema: Type.String() } } },
              429: FOLLOW_STREAMS_REFUSED,
            },
          },
        },
        async (req, reply) => {
          // The stream's place under the follow stream limits, given back when its client leaves.
          const follower = followerLifetime(streams, req, reply)
          const header = req.headers['last-event-id']
          const lines = logs.follow(
            req.principal,
            kind.type,
            idOf(req.params),
            decodeCursor(typeof header === 'string' ? header : undefined),
            follower.signal,
            follower.admit,
          )
          // The first step checks access: its errors answer in the error shape, before any event is sent.
          await lines.next()
          async function* events() {
            // A comment first: the headers go out at once, before the engine answers.
            yield ': following\n\n'
            let pending = lines.next()
            for (;;) {
              // An engine that fails mid-stream ends it without `event: end`: the client reconnects with Last-Event-ID.
              // A comment when the service is quiet a while: proxies do not take the stream for a dead one.
              const quiet = new AbortController()
              const next = await Promise.race([
                pending,
                sleep(KEEP_ALIVE_MS, 'quiet' as const, { signal: quiet.signal }).catch(() => 'quiet' as const),
              ]).catch((error: unknown) => {
                req.log.warn({ err: error }, 'a service log follower lost the engine')
                return 'failed' as const
              })
              if (next === 'failed') {
                follower.release()
                return
              }
              quiet.abort()
              if (next === 'quiet') {
                yield ': still following\n\n'
                continue
              }
              if (next.done) break
              pending = lines.next()
              if (next.value) yield `event: log\nid: ${next.value.cursor}\ndata: ${JSON.stringify(toLog(next.value.line))}\n\n`
            }
            if (!follower.signal.aborted) yield 'event: end\ndata: {}\n\n'
            follower.release()
          }
          return sendEventStream(reply, events())
        },
      )
    }
  }
}
