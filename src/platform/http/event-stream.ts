import { Readable } from 'node:stream'
import type { FastifyReply } from 'fastify'

/** Answers with `events`, each already written in the server-sent events format, as they come. */
export function sendEventStream(reply: FastifyReply, events: AsyncIterable<string>) {
  return reply
    .type('text/event-stream; charset=utf-8')
    .header('cache-control', 'no-store')
    .send(Readable.from(events) as never)
}
