import { randomUUID } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import path from 'node:path'
import cors from '@fastify/cors'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify'
import { sql } from 'kysely'
import { apiRoutes } from './api-routes.ts'
import { runBackgroundWork } from './app-background.ts'
import { announcedCaches } from './app-caches.ts'
import type { Config } from './config.ts'
import { kubernetesServiceOutput } from './executor-connections.ts'
import { localBackupsRoot } from './modules/backups/backup-objects.ts'
import { consoleRoutes } from './modules/console/console.routes.ts'
import { createDeploymentRunsRepository } from './modules/deployments/runner/deployment-runs.repository.ts'
import { dockerServiceOutput, dockerServiceRuntime, removeDeletedEnvironments } from './modules/executors/docker/docker-engine.ts'
import { serviceOutputByExecutor } from './modules/executors/service-output-by-executor.ts'
import { probeCertificate } from './modules/front-door/certificate-probe.ts'
import { caddyDir } from './modules/front-door/front-door-runtime.ts'
import { gitWebhookDeliveryRoutes } from './modules/git-webhooks/git-webhooks.routes.ts'
import { registerMetrics } from './modules/metrics/metrics.routes.ts'
import { DOCKER_KINDS } from './modules/services/kinds/registry.ts'
import { createFollowStreams } from './modules/services/logs/follow-streams.ts'
import { createServiceLogsRepository } from './modules/services/logs/service-logs.repository.ts'
import { createServiceLogsService } from './modules/services/logs/service-logs.service.ts'
import type { ServiceSnapshot } from './modules/services/service-kinds.ts'
import type { Authenticators } from './platform/auth/authenticate.ts'
import { createOidcVerifier } from './platform/auth/oidc-verifier.ts'
import type { Db } from './platform/db/database.ts'
import { registerBodyParsing } from './platform/http/body-parsing.ts'
import { ErrorResponse } from './platform/http/common-schemas.ts'
import { deferredCompilations, noteDeferredCompilations } from './platform/http/compile-on-first-use.ts'
import { registerEnumWords } from './platform/http/enum-words/enum-words.ts'
import { clientErrorHandler, frameworkErrors, registerErrorHandling } from './platform/http/error-handler.ts'
import { registerOpenApi } from './platform/http/openapi.ts'
import { registerRateLimits } from './platform/http/rate-limits.ts'
import { registerSecurityHeaders } from './platform/http/security-headers.ts'
import { sharedSerializers } from './platform/http/shared-serializers.ts'
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
  /** Told when a deployment was queued, so that a runner of this process starts it at once. */
  onDeploymentQueued?: () => void
  /** The front door (docs/front-door.md) when this process runs one: links answer its names, custom domains' changes reload its routes. */
  frontDoor?: { sync(reason: string): Promise<void> }
  /** Tests only: a Bearer key-fetch cooldown below the 1 s that BERTH_OIDC_COOLDOWN_MS allows, so key reloads need no waiting. */
  oidcCooldownMs?: number
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/

/** Keeps a caller's request id when it is harmless to log and echo; otherwise makes one. */
function requestId(req: IncomingMessage): string {
  const given = req.headers['x-request-id']
  return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID()
}

/** Believes X-Forwarded-For up to `hops` proxies away, as Fastify does for a number (its types only take a function). */
const trustHops = (hops: number) => (_address: string, hop: number) => hop < hops

/** Builds the whole API as a Fastify instance, without listening. */
export async function buildApp({ config, db, secrets, logger, oidcCooldownMs, onDeploymentQueued, frontDoor }: AppDeps): Promise<FastifyInstance> {
  const deferred = deferredCompilations()
  const app = Fastify({
    loggerInstance: logger ?? createLogger(config.log.level),
    genReqId: requestId,
    trustProxy: typeof config.http.trustProxy === 'number' ? trustHops(config.http.trustProxy) : config.http.trustProxy,
    frameworkErrors,
    clientErrorHandler,
    bodyLimit: config.http.bodyLimit,
    routerOptions: { ignoreTrailingSlash: true, ignoreDuplicateSlashes: true, maxParamLength: 200 },
    // Clients leave the load balancer's connections open; do not keep shutdown waiting on them.
    forceCloseConnections: 'idle',
    schemaController: { compilersFactory: { buildSerializer: sharedSerializers(deferred) } },
  }).withTypeProvider<TypeBoxTypeProvider>()

  noteDeferredCompilations(app, deferred)
  registerValidation(app, deferred)
  // Before any route: every route's enums take either document's words (docs/enum-words.md).
  registerEnumWords(app, config.http.enumWords)
  registerErrorHandling(app)
  app.addSchema(ErrorResponse)
  // Hooks that do not wait on anything take Fastify's callback: no promise per request.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id)
    done()
  })

  registerBodyParsing(app)
  registerSecurityHeaders(app)
  // Browsers on other origins are refused unless BERTH_CORS_ORIGINS names them.
  if (config.http.corsOrigins.length > 0) {
    await app.register(cors, {
      origin: [...config.http.corsOrigins],
      methods: ['GET', 'POST', 'PUT', 'DELETE'],
      allowedHeaders: ['authorization', 'content-type', 'if-match', 'if-none-match', 'x-request-id'],
      exposedHeaders: [
        'etag',
        'retry-after',
        'x-request-id',
        'ratelimit',
        'ratelimit-policy',
        'ratelimit-limit',
        'ratelimit-remaining',
        'ratelimit-reset',
      ],
      maxAge: 600,
    })
  }
  const rateLimits = await registerRateLimits(app, config.http.rateLimits)

  const { tokenCache, organizationListCache, organizationAncestryCache, historyVersions } = announcedCaches(app, config, db, app.log)
  const serviceRuntime =
    config.runner.executor === 'docker'
      ? await dockerServiceRuntime({
          publishHost: config.runner.dockerPublishHost,
          publicHost: config.runner.dockerPublicHost,
          timeoutMs: config.runner.dockerStatusTimeoutMs,
          executorOf: createDeploymentRunsRepository(db).executorOf,
        })
      : undefined
  const services = createServices(db, {
    tokenCache,
    organizationListCache,
    organizationAncestryCache,
    tokenUsageFlushMs: config.auth.tokenUsageFlushMs,
    onBackgroundError: (error, what) => app.log.warn({ err: error }, what),
    secrets,
    git: config.git,
    outbound: config.outbound,
    onDeploymentQueued,
    historyCacheBytes: config.http.historyCacheBytes,
    historyVersions,
    listLimit: config.http.listLimit,
    variableLimits: config.variables,
    listMaxBytes: config.http.listMaxBytes,
    serviceLimits: config.services,
    resourceCeilings: config.services,
    domainCheck: config.domainCheck,
    defaultExecutor: config.runner.executor === 'docker' ? 'DOCKER' : 'SIMULATED',
    backupsDir: localBackupsRoot(config.database.dataDir),
    auditRetentionDays: config.audit.retentionDays,
    kubectlPath: config.runner.kubectlPath,
    previews: config.previews,
    argocd: config.argocd,
    log: app.log,
    onEnvironmentsDeleted:
      config.runner.executor === 'docker'
        ? (environmentIds) =>
            void removeDeletedEnvironments(environmentIds).catch((error: unknown) =>
              app.log.warn({ err: error, environmentIds }, 'could not remove from the Docker engine what deleted environments ran'),
            )
        : undefined,
    frontDoorLogFile: frontDoor && !config.proxy.adminUrl ? path.join(caddyDir(config.database.dataDir), 'caddy.log') : undefined,
    frontDoor: frontDoor
      ? {
          appsDomain: config.proxy.appsDomain,
          httpsPort: config.proxy.httpsPort,
          sync: frontDoor.sync,
          // The front door listens on this machine (Berth's Caddy) or on the host of the operator's admin API.
          certificateOf: (name) =>
            probeCertificate(
              config.proxy.adminUrl ? new URL(config.proxy.adminUrl).hostname : (config.proxy.listenHost ?? '127.0.0.1'),
              config.proxy.httpsPort,
              name,
            ),
        }
      : undefined,
    serviceRuntime,
  })
  // Log follow streams, counted per credential, per organization and in all (issue 42).
  const followStreams = createFollowStreams(config.http.followStreams)
  const serviceLogs = createServiceLogsService({
    repo: createServiceLogsRepository(db),
    secrets,
    configurationSecrets: (snapshot, box) => DOCKER_KINDS[snapshot.kind]?.secretValues?.(snapshot as ServiceSnapshot, box) ?? [],
    requireService: services.services.requireService,
    // Each environment's lines come from the engine its cluster deploys with.
    // GITOPS_APP services' lines come through their Argo CD (docs/argocd.md).
    output: services.argocd.serviceOutput(
      serviceOutputByExecutor(createDeploymentRunsRepository(db).executorOf, config.runner.executor === 'docker' ? 'DOCKER' : 'SIMULATED', {
        DOCKER: config.runner.executor === 'docker' ? await dockerServiceOutput(createDeploymentRunsRepository(db).executorOf) : undefined,
        KUBERNETES: kubernetesServiceOutput(db, secrets, { kubectlPath: config.runner.kubectlPath }),
      }),
    ),
  })
  const { apiTokens, tokenUsage } = services
  tokenUsage.start()
  app.addHook('onClose', async () => tokenUsage.stop())
  runBackgroundWork(app, config, db, services)

  // Bearer JWTs are accepted once an OpenID Connect issuer is configured; its subjects are users.
  const oidc =
    config.auth.oidc &&
    createOidcVerifier({
      ...config.auth.oidc,
      cooldownMs: oidcCooldownMs ?? config.auth.oidc.cooldownMs,
      onIssuerError: (error, what) => app.log.warn({ err: error }, what),
    })
  const authenticators: Authenticators = {
    token: (token) => apiTokens.authenticate(token),
    ...(oidc ? { bearer: async (jwt: string) => services.users.signIn(await oidc.verify(jwt)) } : {}),
  }

  await registerOpenApi(app)

  // Liveness: the process answers. Readiness: it can reach the database too (503 in the error shape when not).
  app.get('/healthz', { config: { public: true, unlimited: true }, schema: { hide: true } }, async () => ({ status: 'ok' }))
  app.get('/readyz', { config: { public: true, unlimited: true }, schema: { hide: true } }, async () => {
    await sql`select 1`.execute(db)
    return { status: 'ready' }
  })
  await app.register(consoleRoutes())
  // Prometheus' text format of Berth and its containers (docs/metrics.md): loopback or BERTH_METRICS_TOKEN.
  await registerMetrics(app, { db, settings: config.metrics, docker: config.runner.executor === 'docker', log: app.log })

  await app.register(
    apiRoutes({ config, db, secrets, log: app.log, services, authenticators, rateLimits, followStreams, serviceLogs, serviceRuntime, frontDoor }),
  )
  // Git providers' deliveries carry a signature, not an API credential.
  await app.register(gitWebhookDeliveryRoutes(services.gitWebhooks))

  return app
}
