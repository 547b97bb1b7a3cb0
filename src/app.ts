import { randomUUID } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify'
import type { Config } from './config.ts'
import { apiTokensRoutes } from './modules/api-tokens/api-tokens.routes.ts'
import { environmentsRoutes } from './modules/environments/environments.routes.ts'
import { gitTokensRoutes } from './modules/git-tokens/git-tokens.routes.ts'
import { helmRepositoriesRoutes } from './modules/helm-repositories/helm-repositories.routes.ts'
import { helmServicesRoutes } from './modules/helm-services/helm-services.routes.ts'
import { organizationsRoutes } from './modules/organizations/organizations.routes.ts'
import { projectsRoutes } from './modules/projects/projects.routes.ts'
import { registerAuthentication } from './platform/auth/authenticate.ts'
import type { Db } from './platform/db/database.ts'
import { registerBodyParsing } from './platform/http/body-parsing.ts'
import { ErrorResponse } from './platform/http/common-schemas.ts'
import { frameworkErrors, registerErrorHandling } from './platform/http/error-handler.ts'
import { registerOpenApi } from './platform/http/openapi.ts'
import { registerValidation } from './platform/http/validation.ts'
import { createLogger } from './platform/logger.ts'
import type { SecretBox } from './platform/secrets/secret-box.ts'
import { createServices } from './services.ts'

export interface AppDeps {
  config: Config
  db: Db
  /** Seals secrets at rest; made from the resolved secret key (secret-key-file.ts). */
  secrets: SecretBox
  /** A pino logger; the app makes its own from the config when absent. */
  logger?: FastifyBaseLogger
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/

/** Keeps a caller's request id when it is harmless to log and echo; otherwise makes one. */
function requestId(req: IncomingMessage): string {
  const given = req.headers['x-request-id']
  return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID()
}

/** Builds the whole API as a Fastify instance, without listening. */
export async function buildApp({ config, db, secrets, logger }: AppDeps): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: logger ?? createLogger(config.log.level),
    genReqId: requestId,
    frameworkErrors,
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

  registerBodyParsing(app)

  const { organizations, apiTokens, tokenUsage, projects, environments, gitTokens, helmRepositories, helmServices } = createServices(db, {
    tokenUsageFlushMs: config.auth.tokenUsageFlushMs,
    onBackgroundError: (error, what) => app.log.warn({ err: error }, what),
    secrets,
  })
  tokenUsage.start()
  app.addHook('onClose', async () => tokenUsage.stop())

  await registerOpenApi(app)

  app.get('/healthz', { config: { public: true }, schema: { hide: true } }, async () => ({ status: 'ok' }))

  await app.register(async (api) => {
    registerAuthentication(api, { token: (token) => apiTokens.authenticate(token) })
    await api.register(organizationsRoutes(organizations))
    await api.register(apiTokensRoutes(apiTokens))
    await api.register(projectsRoutes(projects))
    await api.register(environmentsRoutes(environments))
    await api.register(gitTokensRoutes(gitTokens))
    await api.register(helmRepositoriesRoutes(helmRepositories))
    await api.register(helmServicesRoutes(helmServices))
  })

  return app
}
