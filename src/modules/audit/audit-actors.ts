import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { Principal } from '#src/platform/auth/principal.ts'
import { type AuditActor, actingAs } from '#src/platform/db/audit-actor.ts'

/** The header the console sends with every request, so that its changes read CONSOLE (docs/audit-log.md). */
export const CONSOLE_MARKER = 'x-berth-console'

/**
 * Where a request comes from, as the audit log says it: the console by its marker; Terraform by
 * its provider's user agent; the CLI by its own or by the Go client's it is built on; anything
 * else (the official TypeScript client, curl, scripts) is the API.
 */
export function originOf(headers: FastifyRequest['headers']): string {
  if (headers[CONSOLE_MARKER] !== undefined) return 'CONSOLE'
  const agent = String(headers['user-agent'] ?? '')
  if (/terraform/i.test(agent)) return 'IAC_PROVIDER'
  if (/qovery[-_ ]?cli|berth[-_ ]?cli|OpenAPI-Generator\/[^/]*\/go/i.test(agent)) return 'CLI'
  return 'API'
}

/** Who a principal is for the audit log: a token by its name, a member by id (the database finds the name). */
export function actorOf(principal: Principal, headers: FastifyRequest['headers']): AuditActor {
  const agent = headers['user-agent']
  return {
    ...(principal.kind === 'api_token' ? { id: principal.apiTokenId, name: principal.name } : { id: principal.userId }),
    origin: originOf(headers),
    ...(agent ? { user_agent: agent.slice(0, 512) } : {}),
  }
}

/**
 * Every request that may change something runs as its caller: the changes it writes are recorded
 * in the audit log, in their own transactions, by the database (migration 0050). A hook with a
 * callback, not async: the rest of the request runs inside `actingAs`.
 */
export function recordActors(app: FastifyInstance): void {
  app.addHook('preHandler', (request, _reply, done) => {
    if (request.method === 'GET' || request.method === 'HEAD' || request.method === 'OPTIONS' || !request.principal) return done()
    actingAs(actorOf(request.principal, request.headers), () => done())
  })
}
