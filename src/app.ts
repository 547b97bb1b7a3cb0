import { randomUUID } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify'
import type { Config } from './config.ts'
import { createApiTokensRepository } from './modules/api-tokens/api-tokens.repository.ts'
import { apiTokensRoutes } from './modules/api-tokens/api-tokens.routes.ts'
import { createApiTokensService } from './modules/api-tokens/api-tokens.service.ts'
import { createTokenUsageTracker } from './modules/api-tokens/token-usage.ts'
import { createOrganizationsRepository } from './modules/organizations/organizations.repository.ts'
import { organizationsRoutes } from './modules/organizations/organizations.routes.ts'
import { createOrganizationsService } from './modules/organizations/organizations.service.ts'
import { registerAuthentication } from './platform/auth/authenticate.ts'
import type { Db } from './platform/db/database.ts'
import { ErrorResponse } from './platform/http/common-schemas.ts'
import { registerErrorHandling } from './platform/http/error-handler.ts'
import { registerOpenApi } from './platform/http/openapi.ts'
import { registerValidation } from './platform/http/validation.ts'

export interface AppDeps {
  config: Config
  db: Db
  /** A pino logger; the app makes its own from the config when absent. */
  logger?: FastifyBaseLogger
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/

/** Keeps a caller's request id when it is harmless to log and echo; otherwise makes one. */
function requestId(req: IncomingMessage): string {
  const given = req.headers['x-request-id']
  return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID()
}

export const LOG_REDACTIONS = ['req.headers.authorization', 'req.headers.cookie', 'headers.authorization', 'token', '*.token']

/** Builds the whole API as a Fastify instance, without listening. */
export async function buildApp({ config, db, logger }: AppDeps): Promise<FastifyInstance> {
  const app = Fastify({
    ...(logger ? { loggerInstance: logger } : { logger: { level: config.log.level, redact: { paths: LOG_REDACTIONS, censor: '[redacted]' } } }),
    genReqId: requestId,
    bodyLimit: config.http.bodyLimit,
    routerOptions: { ignoreTrailingSlash: true, ignoreDuplicateSlashes: true, maxParamLength: 200 },
    // Clients leave the load balancer's connections open; do not keep shutdown waiting on them.
    forceCloseConnections: 'idle',
  }).withTypeProvider<TypeBoxTypeProvider>()

  registerValidation(app)
  registerErrorHandling(app)
  app.addSchema(ErrorResponse)
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id)
  })

  // Bodies are JSON only: without this, Fastify's built-in text/plain parser lets a text body reach validation (400, not 415).
  app.removeContentTypeParser('text/plain')
  // An empty body with a JSON content type is no body at all: some clients send the header on every call.
  const parseJson = app.getDefaultJsonParser('error', 'error')
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string
    if (text.trim() === '') return done(null, undefined)
    return parseJson(request, text, done)
  })

  const organizationsRepo = createOrganizationsRepository(db)
  const organizations = createOrganizationsService({ repo: organizationsRepo })
  const apiTokensRepo = createApiTokensRepository(db)
  const usage = createTokenUsageTracker(apiTokensRepo, config.auth.tokenUsageFlushMs, (error) =>
    app.log.warn({ err: error }, 'could not record API token usage; will retry'),
  )
  const apiTokens = createApiTokensService({ repo: apiTokensRepo, organizations, usage })
  usage.start()
  app.addHook('onClose', async () => usage.stop())

  await registerOpenApi(app)

  app.get('/healthz', { config: { public: true }, schema: { hide: true } }, async () => ({ status: 'ok' }))

  await app.register(async (api) => {
    registerAuthentication(api, { token: (token) => apiTokens.authenticate(token) })
    await api.register(organizationsRoutes(organizations))
    await api.register(apiTokensRoutes(apiTokens))
  })

  return app
}
