import { randomUUID } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import path from 'node:path'
import cors from '@fastify/cors'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify'
import { sql } from 'kysely'
import type { Config } from './config.ts'
import { kubernetesServiceOutput } from './executor-connections.ts'
import { alertingModule } from './modules/alerting/alerting.module.ts'
import { apiTokensRoutes } from './modules/api-tokens/api-tokens.routes.ts'
import { policyApiTokensRoutes } from './modules/api-tokens/policy-api-tokens.routes.ts'
import { createTokenCache } from './modules/api-tokens/token-cache.ts'
import { argoCdRoutes } from './modules/argocd/argocd.routes.ts'
import { auditRoutes } from './modules/audit/audit.routes.ts'
import { recordActors } from './modules/audit/audit-actors.ts'
import { localBackupsRoot } from './modules/backups/backup-objects.ts'
import { backupsRoutes } from './modules/backups/backups.routes.ts'
import { databaseStatusExtension } from './modules/backups/database-status.ts'
import { checksRoutes } from './modules/checks/checks.routes.ts'
import { helmChartsRoutes } from './modules/checks/helm-charts.routes.ts'
import { helmDefaultValuesRoutes } from './modules/checks/helm-default-values.routes.ts'
import { clonesRoutes } from './modules/clones/clones.routes.ts'
import { cloudCredentialsRoutes } from './modules/cloud-credentials/cloud-credentials.routes.ts'
import { clusterAccess } from './modules/clusters/cluster-access.ts'
import { clusterAdminRoutes } from './modules/clusters/cluster-admin.routes.ts'
import { clusterOperationsRoutes } from './modules/clusters/cluster-operations.routes.ts'
import { clusterRecordsRoutes } from './modules/clusters/cluster-records.routes.ts'
import { clustersRoutes } from './modules/clusters/clusters.routes.ts'
import { consoleRoutes } from './modules/console/console.routes.ts'
import { currentRoleRoutes } from './modules/current-role/current-role.routes.ts'
import { customDomainsRoutes } from './modules/custom-domains/custom-domains.routes.ts'
import { customRolesRoutes } from './modules/custom-roles/custom-roles.routes.ts'
import { databaseApplicationsRoutes } from './modules/database-applications/database-applications.routes.ts'
import { createDatabaseApplicationsService } from './modules/database-applications/database-applications.service.ts'
import { deploymentRestrictionsRoutes } from './modules/deployment-restrictions/deployment-restrictions.routes.ts'
import { deploymentRulesRoutes } from './modules/deployment-rules/deployment-rules.routes.ts'
import { withDeploymentRuleTables } from './modules/deployment-rules/deployment-rules.tables.ts'
import { createEnvironmentSchedules } from './modules/deployment-rules/environment-schedules.ts'
import { deploymentHistoryRoutes } from './modules/deployments/api/history/deployment-history.routes.ts'
import { createHistoryVersionCache } from './modules/deployments/api/history/history-versions.ts'
import { deploymentLogsRoutes } from './modules/deployments/api/logs/deployment-logs.routes.ts'
import { deploymentQueueRoutes } from './modules/deployments/api/triggers/deployment-queue.routes.ts'
import { environmentActionsRoutes } from './modules/deployments/api/triggers/environment-actions.routes.ts'
import { environmentStatusesRoutes } from './modules/deployments/api/triggers/environment-statuses.routes.ts'
import { environmentRollbackRoutes, serviceRollbackRoutes } from './modules/deployments/api/triggers/rollback.routes.ts'
import { selectedServicesRoutes } from './modules/deployments/api/triggers/selected-services.routes.ts'
import { type StatusExtension, serviceActionsRoutes } from './modules/deployments/api/triggers/service-actions.routes.ts'
import { HISTORY_CHANNEL } from './modules/deployments/queue/deployment-rows.ts'
import { createDeploymentRunsRepository } from './modules/deployments/runner/deployment-runs.repository.ts'
import { environmentLinksRoutes } from './modules/environment-links/environment-links.routes.ts'
import { environmentsRoutes } from './modules/environments/environments.routes.ts'
import { dockerServiceOutput, dockerServiceRuntime, removeDeletedEnvironments } from './modules/executors/docker/docker-engine.ts'
import { repositoryCredentials } from './modules/executors/git-credentials.ts'
import { chartDefaultValues } from './modules/executors/kubernetes/chart-default-values.ts'
import { serviceOutputByExecutor } from './modules/executors/service-output-by-executor.ts'
import { probeCertificate } from './modules/front-door/certificate-probe.ts'
import { caddyDir } from './modules/front-door/front-door-runtime.ts'
import { gitProvidersRoutes } from './modules/git-providers/git-providers.routes.ts'
import { gitRepositoriesRoutes } from './modules/git-providers/git-repositories.routes.ts'
import { gitRepositoryFilesRoutes } from './modules/git-repository-files/git-repository-files.routes.ts'
import { gitWebhookDeliveryRoutes, gitWebhookSecretRoutes } from './modules/git-webhooks/git-webhooks.routes.ts'
import { serviceGitWebhooksRoutes } from './modules/git-webhooks/service-git-webhooks.routes.ts'
import { createServiceGitWebhooksService } from './modules/git-webhooks/service-git-webhooks.ts'
import { invitationsRoutes } from './modules/invitations/invitations.routes.ts'
import { createJobCleanupService, jobCleanupRoutes } from './modules/job-cleanup/job-cleanup.ts'
import { membersRoutes } from './modules/members/members.routes.ts'
import { membershipsRoutes } from './modules/memberships/memberships.routes.ts'
import { registerMetrics } from './modules/metrics/metrics.routes.ts'
import { containerRegistriesRoutes } from './modules/organization-credentials/container-registries/container-registries.routes.ts'
import { gitTokensRoutes } from './modules/organization-credentials/git-tokens/git-tokens.routes.ts'
import { helmRepositoriesRoutes } from './modules/organization-credentials/helm-repositories/helm-repositories.routes.ts'
import { organizationGroupsRoutes } from './modules/organization-groups/organization-groups.routes.ts'
import { organizationViewsRoutes } from './modules/organization-views/organization-views.routes.ts'
import type { OrganizationRow } from './modules/organizations/organizations.repository.ts'
import { organizationsRoutes } from './modules/organizations/organizations.routes.ts'
import { previewsRoutes } from './modules/previews/previews.routes.ts'
import { projectsRoutes } from './modules/projects/projects.routes.ts'
import { createHelmKubernetesServices, helmKubernetesServicesRoutes } from './modules/service-views/helm-kubernetes-services.ts'
import { imageAutoDeployRoutes } from './modules/service-views/image-auto-deploy.routes.ts'
import { createIngressStatus, ingressStatusRoutes } from './modules/service-views/ingress-status.ts'
import { kindCommitsRoutes } from './modules/service-views/kind-commits.routes.ts'
import { kindNetworkRoutes } from './modules/service-views/kind-network.routes.ts'
import { serviceViewsRoutes } from './modules/service-views/service-views.routes.ts'
import { advancedSettingsRoutes } from './modules/services/advanced-settings/advanced-settings.routes.ts'
import { kindCrudRoutes } from './modules/services/kind-crud.routes.ts'
import type { KindDescriptor } from './modules/services/kind-descriptor.ts'
import type { ApplicationResponse } from './modules/services/kinds/application/application.schemas.ts'
import { createApplicationServices } from './modules/services/kinds/application/application.service.ts'
import type { ContainerServiceRecord } from './modules/services/kinds/container/container.types.ts'
import { liveContainerLinks } from './modules/services/kinds/container/container-links.ts'
import { databaseKeyPrefix } from './modules/services/kinds/database/database-credentials.ts'
import { DOCKER_KINDS, KIND_ROUTES, kindsWith, SERVICE_KINDS } from './modules/services/kinds/registry.ts'
import { createFollowStreams } from './modules/services/logs/follow-streams.ts'
import { createServiceLogsRepository } from './modules/services/logs/service-logs.repository.ts'
import { serviceLogsRoutes } from './modules/services/logs/service-logs.routes.ts'
import { createServiceLogsService } from './modules/services/logs/service-logs.service.ts'
import type { ServiceSnapshot } from './modules/services/service-kinds.ts'
import { servicesRoutes } from './modules/services/services.routes.ts'
import { deploymentStagesRoutes } from './modules/services/stages/deployment-stages.routes.ts'
import { terraformExportRoutes } from './modules/terraform-export/terraform-export.routes.ts'
import { usersRoutes } from './modules/users/users.routes.ts'
import { scopedVariablesRoutes } from './modules/variables/scoped-variables.routes.ts'
import { variablesRoutes } from './modules/variables/variables.routes.ts'
import { webhooksRoutes } from './modules/webhooks/webhooks.routes.ts'
import { type Authenticators, registerAuthentication } from './platform/auth/authenticate.ts'
import { createOidcVerifier } from './platform/auth/oidc-verifier.ts'
import { createAnnouncedCache } from './platform/cache/announced-cache.ts'
import type { Db } from './platform/db/database.ts'
import { isDatabaseUnavailable } from './platform/db/errors.ts'
import { listen } from './platform/db/notifications.ts'
import { registerBodyParsing } from './platform/http/body-parsing.ts'
import { ErrorResponse } from './platform/http/common-schemas.ts'
import { deferredCompilations, noteDeferredCompilations } from './platform/http/compile-on-first-use.ts'
import { registerEnumWords } from './platform/http/enum-words/enum-words.ts'
import { clientErrorHandler, frameworkErrors, registerErrorHandling } from './platform/http/error-handler.ts'
import type { CappedList } from './platform/http/lists.ts'
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

/** Where PostgreSQL announces changes to API tokens (migration 0005) and to organizations (0007). */
const API_TOKENS_CHANNEL = 'berth_api_tokens'
const ORGANIZATIONS_CHANNEL = 'berth_organizations'
/** Environments whose history version a process remembers at most (a few hundred bytes each). */
const HISTORY_VERSIONS_KEPT = 20_000

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

  // API tokens, the organizations each may act in, organizations' ancestries and environments'
  // history versions are remembered only while this process hears of their changes (migrations
  // 0005, 0007 and 0011).
  const cacheLimits = { ttlMs: config.auth.tokenCacheTtlMs, maxEntries: config.auth.tokenCacheMaxEntries }
  const tokenCache = createTokenCache(cacheLimits)
  const organizationListCache = createAnnouncedCache<CappedList<OrganizationRow>>(cacheLimits)
  const organizationAncestryCache = createAnnouncedCache<string[]>(cacheLimits)
  const historyVersions = createHistoryVersionCache({
    // A version is worth remembering only for the pages kept at it.
    ttlMs: config.http.historyCacheBytes > 0 ? config.http.historyVersionTtlMs : 0,
    maxEntries: HISTORY_VERSIONS_KEPT,
  })
  const channels = [
    ...(config.auth.tokenCacheTtlMs > 0 ? [API_TOKENS_CHANNEL, ORGANIZATIONS_CHANNEL] : []),
    ...(config.http.historyCacheBytes > 0 && config.http.historyVersionTtlMs > 0 ? [HISTORY_CHANNEL] : []),
  ]
  const changes =
    channels.length > 0
      ? listen(db, channels, {
          onNotify(channel, payload) {
            if (channel === API_TOKENS_CHANNEL) tokenCache.forget(payload)
            else if (channel === ORGANIZATIONS_CHANNEL) {
              organizationListCache.forgetAll()
              organizationAncestryCache.forgetAll()
            } else if (channel === HISTORY_CHANNEL) historyVersions.forget(payload)
          },
          // This process's own changes to a history are read through from before their commit.
          onLocalChange: (channel, payload) => (channel === HISTORY_CHANNEL ? historyVersions.hold(payload) : () => {}),
          onListening: (listening) => {
            tokenCache.setListening(listening)
            organizationListCache.setListening(listening)
            organizationAncestryCache.setListening(listening)
            historyVersions.setListening(listening)
          },
          onError: (error) =>
            app.log.warn(
              { err: error },
              'lost the notifications of API token, organization and history changes; not remembering them until they are back',
            ),
        })
      : undefined
  app.addHook('onClose', async () => changes?.close())
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
  const { organizations, apiTokens, tokenUsage, projects, environments, gitTokens, gitProviders, helmRepositories } = services
  tokenUsage.start()
  app.addHook('onClose', async () => tokenUsage.stop())
  // Previews without activity for BERTH_PREVIEW_IDLE_TTL_MS, or whose source went, are deleted (docs/previews.md).
  const previewSweep = setInterval(() => {
    services.previews
      .sweepIdle(config.previews.idleTtlMs)
      // An outage is reported once, by what watches the database; the sweep just tries again.
      .catch((error: unknown) => {
        const unavailable = typeof error === 'object' && error !== null && isDatabaseUnavailable(error)
        if (!unavailable) app.log.warn({ err: error }, 'could not sweep idle previews; will retry')
      })
  }, config.previews.sweepIntervalMs)
  previewSweep.unref()
  app.addHook('onClose', async () => clearInterval(previewSweep))
  // Deployment rules' auto-stop schedules (docs/deployment-rules.md): every server looks; each event is acted on once.
  if (config.environmentSchedules.tickMs > 0) {
    const schedules = createEnvironmentSchedules({
      db: withDeploymentRuleTables(db),
      trigger: (environment, action, triggeredBy) =>
        services.deployments.runScheduled(environment, action === 'STOP' ? 'STOP' : 'DEPLOY', triggeredBy),
      log: app.log,
    })
    let ticking = false
    const scheduleTick = setInterval(() => {
      if (ticking) return
      ticking = true
      schedules
        .tick()
        .catch((error: unknown) => {
          const unavailable = typeof error === 'object' && error !== null && isDatabaseUnavailable(error)
          if (!unavailable) app.log.warn({ err: error }, 'could not look at environments’ auto-stop schedules; will retry')
        })
        .finally(() => {
          ticking = false
        })
    }, config.environmentSchedules.tickMs)
    scheduleTick.unref()
    app.addHook('onClose', async () => clearInterval(scheduleTick))
  }
  app.addHook('onClose', async () => services.closeGitProviders())
  app.addHook('onClose', async () => services.chartIndex.close())
  app.addHook('onClose', async () => services.closeContainerRegistries())
  // Every process serving the API polls the Argo CD instances; a lock keeps one poll per instance at a time (docs/argocd.md).
  services.argocd.poller.start()
  app.addHook('onClose', async () => services.argocd.close())

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

  await app.register(async (api) => {
    registerAuthentication(api, authenticators)
    rateLimits.limitCredentials(api)
    recordActors(api)
    await api.register(organizationsRoutes(organizations, rateLimits.mintAdmission))
    await api.register(currentRoleRoutes((principal, organizationId) => organizations.requireAccess(principal, organizationId, 'READ')))
    await api.register(membersRoutes(services.members))
    await api.register(usersRoutes(services.users))
    await api.register(apiTokensRoutes(apiTokens, rateLimits.mintAdmission))
    await api.register(policyApiTokensRoutes(apiTokens, organizations, rateLimits.mintAdmission))
    await api.register(projectsRoutes(projects))
    await api.register(environmentsRoutes(environments, services.deployments.deleteEnvironment))
    await api.register(gitTokensRoutes(gitTokens))
    await api.register(gitRepositoriesRoutes(services.gitRepositories))
    await api.register(gitProvidersRoutes(gitProviders))
    await api.register(helmRepositoriesRoutes(helmRepositories))
    for (const kind of SERVICE_KINDS) {
      // The container registries' routes stand before the containers' in /openapi.json, as they always have.
      if (kind.kind.type === 'CONTAINER') await api.register(containerRegistriesRoutes(services.containerRegistries))
      await api.register(kindCrudRoutes(kind, services.kindServices(kind), services.kindRouteContext))
    }
    await api.register(advancedSettingsRoutes(services.advancedSettings, kindsWith('advancedSettings')))
    await api.register(customDomainsRoutes(services.customDomains, kindsWith('customDomains')))
    await api.register(servicesRoutes(services.services, KIND_ROUTES))
    await api.register(deploymentStagesRoutes(services.deploymentStages))
    await api.register(
      variablesRoutes(
        services.variables,
        kindsWith('variables').map((descriptor) => descriptor.kind.type),
      ),
    )
    await api.register(scopedVariablesRoutes(services.variables, kindsWith('scopedVariables')))
    await api.register(environmentActionsRoutes(services.deployments))
    await api.register(selectedServicesRoutes(services.deployments, KIND_ROUTES))
    await api.register(environmentStatusesRoutes(services.deployments, KIND_ROUTES))
    await api.register(deploymentQueueRoutes(services.deployments))
    await api.register(deploymentLogsRoutes(services.deploymentLogs, followStreams))
    const statusExtensions: Partial<Record<string, StatusExtension>> = { DATABASE: databaseStatusExtension(services.backups.backups) }
    for (const kind of KIND_ROUTES) {
      await api.register(serviceActionsRoutes(kind, services.deployments, services.deploymentHistory, statusExtensions[kind.type]))
    }
    await api.register(environmentRollbackRoutes(services.deployments))
    for (const kind of KIND_ROUTES) await api.register(serviceRollbackRoutes(kind, services.deployments))
    await api.register(serviceLogsRoutes(KIND_ROUTES, serviceLogs, followStreams))
    await api.register(deploymentHistoryRoutes(services.deploymentHistory))
    await api.register(gitWebhookSecretRoutes(services.gitWebhooks))
    await api.register(deploymentRestrictionsRoutes(services.deploymentRestrictions, kindsWith('restrictions')))
    await api.register(clonesRoutes(services.clones, KIND_ROUTES))
    await api.register(previewsRoutes(services.previews, services.deploymentRules))
    await api.register(invitationsRoutes(services.invitations))
    await api.register(organizationGroupsRoutes(services.organizationGroups))
    await api.register(customRolesRoutes(services.customRoles))
    await api.register(clustersRoutes(services.clusters))
    await api.register(clusterRecordsRoutes(services.clusterRecords))
    await api.register(backupsRoutes(services.backups.backups, services.backups.destinations))
    await api.register(webhooksRoutes(services.webhooks))
    await api.register(auditRoutes(services.audit))
    await api.register(argoCdRoutes(services.argocd.service))
    await api.register(serviceViewsRoutes(services.serviceViews, KIND_ROUTES))
    await api.register(kindCommitsRoutes(services.kindRouteContext))
    await api.register(deploymentRulesRoutes(services.projectDeploymentRules))
    await api.register(clusterOperationsRoutes(services.clusterOperations))
    await api.register(cloudCredentialsRoutes(services.cloudCredentials))
    await api.register(clusterAdminRoutes(services.clusterAdmin))
    await api.register(checksRoutes(services.checks))
    // exportEnvironmentConfigurationIntoTerraform: the environment as the API answers it, in the provider's terms.
    await api.register(
      terraformExportRoutes({
        requireEnvironment: environments.requireEnvironment,
        listStages: services.listStages,
        listServices: services.listServicesOf,
        serviceAnswer: async (principal, service) => {
          const descriptor = SERVICE_KINDS.find((kind) => kind.kind.type === service.kind) as unknown as KindDescriptor<
            { entityTag: string },
            unknown
          >
          return descriptor.toResponse(await services.kindServices(descriptor).get(principal, service.id)) as Record<string, unknown>
        },
        listVariables: (principal, scope, parentId) => services.variables.list(principal, scope as never, parentId),
      }),
    )
    // listEnvironmentServicesLinks: each kind's links as its own listing answers them.
    const containerKind = SERVICE_KINDS.find((descriptor) => descriptor.kind.type === 'CONTAINER') as unknown as KindDescriptor<
      ContainerServiceRecord,
      unknown
    >
    const containers = services.kindServices(containerKind)
    await api.register(
      environmentLinksRoutes({
        listServices: async (principal, environmentId) => (await services.services.list(principal, environmentId)).rows,
        linksOf: {
          APPLICATION: createApplicationServices(services.kindRouteContext).links,
          CONTAINER: async (principal, serviceId) =>
            liveContainerLinks(services.kindRouteContext.withLiveLinks, await containers.get(principal, serviceId)),
          HELM: (principal, serviceId) => services.customDomains.helmLinks(principal, serviceId),
        },
      }),
    )
    await api.register(
      helmChartsRoutes({ requireChartRepository: services.helmRepositories.requireChartRepository, charts: services.chartIndex.charts }),
    )
    // createHelmDefaultValues: the chart's values.yaml through helm, from its helm repository or git (docs/kubernetes.md).
    await api.register(
      helmDefaultValuesRoutes({
        requireEnvironment: environments.requireEnvironment,
        requireChartRepository: services.helmRepositories.requireChartRepository,
        defaultValues: (organizationId, source) =>
          chartDefaultValues(
            {
              helmPath: config.runner.helmPath,
              allowPrivateUrls: config.outbound.allowPrivateUrls,
              gitCredentials: repositoryCredentials(db, secrets),
              timeoutMs: config.git.timeoutMs,
            },
            organizationId,
            source,
          ),
      }),
    )
    // getHelmKubernetesServices: the release's Services from the cluster's API server (docs/kubernetes.md).
    await api.register(
      helmKubernetesServicesRoutes(
        createHelmKubernetesServices({
          core: services.services,
          kubernetesCluster: clusterAccess(db, secrets).kubernetesCluster,
          kubectl: services.clusterEngines.kubectl,
        }),
      ),
    )
    // getIngressDeploymentStatus: the front door's route, or the service's own state where the route is deployed with it (docs/front-door.md).
    await api.register(
      ingressStatusRoutes(
        createIngressStatus({ context: services.kindRouteContext, addresses: serviceRuntime?.addresses, frontDoor: frontDoor !== undefined }),
      ),
    )
    await api.register(organizationViewsRoutes(services.organizationViews))
    await api.register(membershipsRoutes(services.memberships))
    await api.register(gitRepositoryFilesRoutes(services.gitRepositoryFiles))
    await api.register(imageAutoDeployRoutes(services.imageAutoDeploy))
    await api.register(kindNetworkRoutes(services.advancedSettings))
    // listDatabaseApplication, removeApplicationFromDatabase: applications linked through the database's built-ins (docs/databases.md).
    const applicationKind = SERVICE_KINDS.find((descriptor) => descriptor.kind.type === 'APPLICATION') as unknown as KindDescriptor<
      { entityTag: string },
      unknown
    >
    await api.register(
      databaseApplicationsRoutes({
        service: createDatabaseApplicationsService({
          requireService: services.services.requireService,
          builtInLinks: services.variables.builtInLinks,
          deleteLinks: services.variables.deleteLinks,
          keyPrefixOf: (database) => databaseKeyPrefix(database.id, (database.configuration as { type: string }).type),
        }),
        applicationAnswer: async (principal, id) =>
          applicationKind.toResponse(await services.kindServices(applicationKind).get(principal, id)) as ApplicationResponse,
      }),
    )
    // getServiceGitWebhookStatus, syncServiceGitWebhook: Berth's webhook at the provider of a service's repository (docs/git-push.md).
    await api.register(
      serviceGitWebhooksRoutes(
        createServiceGitWebhooksService({
          requireService: async (principal, id, needed) => (await services.services.requireService(principal, id, needed)).service,
          listHooks: services.gitCommits.listHooks,
          putHook: services.gitCommits.putHook,
          hookEvents: services.gitCommits.hookEvents,
          openSecret: services.gitWebhooks.openSecret,
          publicUrl: config.webhooks.publicUrl,
        }),
      ),
    )
    // cleanFailedJob, cleanFailedJobs: the failed runs the executor kept for inspection, removed (docs/jobs.md).
    await api.register(
      jobCleanupRoutes(
        createJobCleanupService({
          requireService: services.services.requireService,
          requireEnvironment: async (principal, id, needed) => (await environments.requireEnvironment(principal, id, needed)).environment,
          listServices: services.listServicesOf,
          cleanFailedRuns: serviceRuntime?.cleanFailedRuns,
        }),
      ),
    )
    await api.register(alertingModule({ config, db, secrets, organizations, log: app.log }))
  })
  // Git providers' deliveries carry a signature, not an API credential.
  await app.register(gitWebhookDeliveryRoutes(services.gitWebhooks))

  return app
}
