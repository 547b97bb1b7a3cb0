import type { Config } from './config.ts'
import { createApiTokensRepository } from './modules/api-tokens/api-tokens.repository.ts'
import { createApiTokensService } from './modules/api-tokens/api-tokens.service.ts'
import type { TokenCache } from './modules/api-tokens/token-cache.ts'
import { createTokenUsageTracker } from './modules/api-tokens/token-usage.ts'
import { createArgoCdModule } from './modules/argocd/argocd.module.ts'
import { createAuditRepository } from './modules/audit/audit.repository.ts'
import { createAuditService } from './modules/audit/audit.service.ts'
import { createBackupsModule } from './modules/backups/backups.module.ts'
import { createChartIndex } from './modules/checks/chart-index.ts'
import { createChecksService } from './modules/checks/checks.service.ts'
import { createClonesRepository } from './modules/clones/clones.repository.ts'
import { createClonesService } from './modules/clones/clones.service.ts'
import { createCloudCredentialsService } from './modules/cloud-credentials/cloud-credentials.service.ts'
import { withCloudCredentialsTables } from './modules/cloud-credentials/cloud-credentials.tables.ts'
import { createClusterAdminService } from './modules/clusters/cluster-admin.service.ts'
import { clusterEngines } from './modules/clusters/cluster-engines.ts'
import { clusterEvents } from './modules/clusters/cluster-events.ts'
import { withClusterLockTables } from './modules/clusters/cluster-locks.tables.ts'
import { clusterLogs } from './modules/clusters/cluster-logs.ts'
import { createClusterOperationsService } from './modules/clusters/cluster-operations.service.ts'
import { createClusterRecordsService } from './modules/clusters/cluster-records.service.ts'
import { createClustersService } from './modules/clusters/clusters.service.ts'
import { createCustomDomainsRepository } from './modules/custom-domains/custom-domains.repository.ts'
import { createCustomDomainsService } from './modules/custom-domains/custom-domains.service.ts'
import { createCustomRolesRepository } from './modules/custom-roles/custom-roles.repository.ts'
import { createCustomRolesService } from './modules/custom-roles/custom-roles.service.ts'
import { createDeploymentRestrictionsRepository } from './modules/deployment-restrictions/deployment-restrictions.repository.ts'
import { createDeploymentRestrictionsService } from './modules/deployment-restrictions/deployment-restrictions.service.ts'
import { createProjectDeploymentRulesRepository } from './modules/deployment-rules/deployment-rules.repository.ts'
import type { RuleMode } from './modules/deployment-rules/deployment-rules.schemas.ts'
import { createProjectDeploymentRulesService } from './modules/deployment-rules/deployment-rules.service.ts'
import { withDeploymentRuleTables } from './modules/deployment-rules/deployment-rules.tables.ts'
import { createDeploymentHistoryRepository } from './modules/deployments/api/history/deployment-history.repository.ts'
import { createDeploymentHistoryService } from './modules/deployments/api/history/deployment-history.service.ts'
import type { HistoryVersionCache } from './modules/deployments/api/history/history-versions.ts'
import { createDeploymentLogsRepository } from './modules/deployments/api/logs/deployment-logs.repository.ts'
import { createDeploymentLogsService } from './modules/deployments/api/logs/deployment-logs.service.ts'
import { createDeploymentStatuses } from './modules/deployments/api/triggers/deployment-statuses.ts'
import { createDeploymentTriggersService } from './modules/deployments/api/triggers/deployment-triggers.service.ts'
import { createRestorableSnapshotsRepository } from './modules/deployments/api/triggers/restorable-snapshots.repository.ts'
import { toStatusResponse } from './modules/deployments/api/triggers/triggers.wire.ts'
import { createCronSchedulesRepository } from './modules/deployments/queue/cron-schedules.repository.ts'
import { createEnvironmentQueue } from './modules/deployments/queue/environment-queue.ts'
import { createClustersRepository } from './modules/environments/clusters.repository.ts'
import { createEnvironmentsRepository } from './modules/environments/environments.repository.ts'
import { createEnvironmentsService } from './modules/environments/environments.service.ts'
import { repositoryCredentials } from './modules/executors/git-credentials.ts'
import { defaultPortHost } from './modules/executors/public-hosts.ts'
import type { ServiceRuntime } from './modules/executors/service-runtime.ts'
import type { FrontDoorLinks } from './modules/front-door/front-door-links.ts'
import { createLiveLinks } from './modules/front-door/live-links.ts'
import { gitApiUrlProblem } from './modules/git-providers/address-guard.ts'
import { createBranchCache } from './modules/git-providers/branch-cache.ts'
import { createGitCommitsService } from './modules/git-providers/git-commits.service.ts'
import type { GitBranch, GitCommit } from './modules/git-providers/git-provider-adapter.ts'
import { createGitProvidersService } from './modules/git-providers/git-providers.service.ts'
import { createGitRepositoriesService } from './modules/git-providers/git-repositories.service.ts'
import type { GitRepositoryItem } from './modules/git-providers/git-repositories.ts'
import { createProviderHttp } from './modules/git-providers/provider-http.ts'
import { createGitRepositoryFilesService } from './modules/git-repository-files/git-repository-files.service.ts'
import { createGitWebhooksRepository } from './modules/git-webhooks/git-webhooks.repository.ts'
import { createGitWebhooksService } from './modules/git-webhooks/git-webhooks.service.ts'
import { createInvitationsRepository } from './modules/invitations/invitations.repository.ts'
import { createInvitationsService } from './modules/invitations/invitations.service.ts'
import { createMembersRepository } from './modules/members/members.repository.ts'
import { createMembersService } from './modules/members/members.service.ts'
import { createMembershipsRepository } from './modules/memberships/memberships.repository.ts'
import { createMembershipsService } from './modules/memberships/memberships.service.ts'
import { createContainerRegistriesService } from './modules/organization-credentials/container-registries/container-registries.service.ts'
import { createRegistryHttpApi } from './modules/organization-credentials/container-registries/registry-http-api.ts'
import { createGitTokensService } from './modules/organization-credentials/git-tokens/git-tokens.service.ts'
import { createHelmRepositoriesService } from './modules/organization-credentials/helm-repositories/helm-repositories.service.ts'
import { createOrganizationGroupsRepository } from './modules/organization-groups/organization-groups.repository.ts'
import { createOrganizationGroupsService } from './modules/organization-groups/organization-groups.service.ts'
import { createOrganizationViewsRepository } from './modules/organization-views/organization-views.repository.ts'
import { createOrganizationViewsService } from './modules/organization-views/organization-views.service.ts'
import { createOrganizationsRepository } from './modules/organizations/organizations.repository.ts'
import {
  createOrganizationsService,
  type OrganizationAncestryCache,
  type OrganizationListCache,
} from './modules/organizations/organizations.service.ts'
import { createDeploymentRulesRepository } from './modules/previews/deployment-rules.repository.ts'
import { createDeploymentRulesService } from './modules/previews/deployment-rules.service.ts'
import { createPreviewsRepository } from './modules/previews/previews.repository.ts'
import { createPreviewsService } from './modules/previews/previews.service.ts'
import { createProjectsRepository } from './modules/projects/projects.repository.ts'
import { createProjectsService } from './modules/projects/projects.service.ts'
import { createImageAutoDeploy } from './modules/service-views/image-auto-deploy.ts'
import { createServiceViewsService } from './modules/service-views/service-views.service.ts'
import { createAdvancedSettingsRepository } from './modules/services/advanced-settings/advanced-settings.repository.ts'
import { createAdvancedSettingsService } from './modules/services/advanced-settings/advanced-settings.service.ts'
import { createKindCrud } from './modules/services/kind-crud.ts'
import type { KindCrudService, KindDescriptor } from './modules/services/kind-descriptor.ts'
import type { KindRouteContext } from './modules/services/kind-route-context.ts'
import { KIND_ROUTES, KINDS, SERVICE_KINDS } from './modules/services/kinds/registry.ts'
import { lastOutputReader } from './modules/services/last-outputs.repository.ts'
import { createResourceCeilings, type ResourceCeilings } from './modules/services/resource-ceilings.ts'
import type { ServiceRecord } from './modules/services/service-kinds.ts'
import { createServicesRepository } from './modules/services/services.repository.ts'
import { createServicesService, type ServiceLimits } from './modules/services/services.service.ts'
import { createDeploymentStagesRepository } from './modules/services/stages/deployment-stages.repository.ts'
import { createDeploymentStagesService } from './modules/services/stages/deployment-stages.service.ts'
import { createUsersRepository } from './modules/users/users.repository.ts'
import { createUsersService } from './modules/users/users.service.ts'
import { DEFAULT_VARIABLE_LIMITS, type VariableLimits } from './modules/variables/variable-rules.ts'
import { createVariablesRepository } from './modules/variables/variables.repository.ts'
import { createVariablesService } from './modules/variables/variables.service.ts'
import { createWebhooksRepository } from './modules/webhooks/webhooks.repository.ts'
import { createWebhooksService } from './modules/webhooks/webhooks.service.ts'
import type { Principal } from './platform/auth/principal.ts'
import type { Db } from './platform/db/database.ts'
import type { SecretBox } from './platform/secrets/secret-box.ts'

export interface ServiceOptions {
  /** How often API token usage is written back; the tracker only flushes once started. */
  tokenUsageFlushMs: number
  onBackgroundError: (error: unknown, what: string) => void
  /** Seals git tokens and repository credentials at rest. */
  secrets: SecretBox
  /** Calls to git providers (BERTH_GIT_*). */
  git: Config['git']
  /** Which addresses Berth may call out to (BERTH_ALLOW_PRIVATE_URLS). */
  outbound: Config['outbound']
  /** Recently authenticated API tokens; absent: none are remembered. */
  tokenCache?: TokenCache
  /** The organizations each API token may act in, recently listed; absent: none are remembered. */
  organizationListCache?: OrganizationListCache
  /** Each organization's ancestors, for API tokens acting outside their own organization; absent: read at every check. */
  organizationAncestryCache?: OrganizationAncestryCache
  /** Told when a deployment was queued: a runner in this process may start it at once. */
  onDeploymentQueued?: () => void
  /** Bytes of rendered environment history pages kept per process. */
  historyCacheBytes?: number
  /** What one project, environment or service may hold of variables. */
  variableLimits?: VariableLimits
  /** Environments' organizations and history versions, remembered while changes are announced; absent: read at every request. */
  historyVersions?: HistoryVersionCache
  /** The most items a list answers with (BERTH_LIST_LIMIT). */
  listLimit?: number
  /** The most bytes of stored service configurations a list of services answers with (BERTH_LIST_MAX_BYTES). */
  listMaxBytes?: number
  /** What a service and an environment may hold (BERTH_SERVICE_CONFIG_MAX_BYTES, BERTH_SERVICES_PER_ENVIRONMENT). */
  serviceLimits?: ServiceLimits
  /** BERTH_ORGANIZATION_MAX_MEMORY_MB and BERTH_ORGANIZATION_MAX_CPU; absent: their defaults. */
  resourceCeilings?: ResourceCeilings
  /** The DNS look-ups of custom domain checks (BERTH_DOMAIN_CHECK_*); the defaults when absent. */
  domainCheck?: Config['domainCheck']
  /** What a real engine says of running services (links, statuses); absent: the records alone (the simulator). */
  serviceRuntime?: ServiceRuntime
  /** The front door (docs/front-door.md), when it runs: where its names are, and how to load its routes again. */
  frontDoor?: FrontDoorLinks
  /** Berth's own Caddy's log, when it runs one (get-cluster-logs reads its end for Docker clusters). */
  frontDoorLogFile?: string
  /**
   * Told of environments deleted with their project or organization (no deployment deletes their
   * services): what runs them in an engine is removed there.
   */
  onEnvironmentsDeleted?: (environmentIds: string[]) => void
  /** Preview environments' limits (BERTH_PREVIEWS_PER_ENVIRONMENT); the defaults when absent. */
  previews?: Pick<Config['previews'], 'perEnvironment'>
  /** Where previews say what they made, refused and deleted; absent: nowhere. */
  log?: { info(details: object, message: string): void; warn(details: object, message: string): void }
  /** BERTH_EXECUTOR: what the default clusters deploy with, and so what they say. */
  defaultExecutor?: 'SIMULATED' | 'DOCKER'
  /** Where databases' backups without a destination go (issue 44); absent: `.berth/backups`. */
  backupsDir?: string
  /** BERTH_AUDIT_RETENTION_DAYS (issue 45); absent: 365. */
  auditRetentionDays?: number
  /** The Argo CD integration's settings (BERTH_ARGOCD_*); the defaults when absent. */
  argocd?: Config['argocd']
  /** BERTH_KUBECTL_PATH: how clusters' API servers are asked (issue 48); absent: `kubectl`. */
  kubectlPath?: string
}

/** Wires every module's service over one database: the one place modules meet. */
export function createServices(db: Db, options: ServiceOptions) {
  const { listLimit } = options
  const organizations = createOrganizationsService({
    listLimit,
    repo: createOrganizationsRepository(db),
    listCache: options.organizationListCache,
    ancestryCache: options.organizationAncestryCache,
    // Its tokens and environments went with it; other processes hear of it at commit (migrations 0005 and 0011).
    onDeleted: (organizationId, environmentIds) => {
      options.tokenCache?.forgetMatching((row) => row.organizationId === organizationId)
      options.historyVersions?.forgetOrganization(organizationId)
      options.onEnvironmentsDeleted?.(environmentIds)
    },
  })
  const users = createUsersService({ repo: createUsersRepository(db) })
  const apiTokensRepo = createApiTokensRepository(db)
  const tokenUsage = createTokenUsageTracker(apiTokensRepo, options.tokenUsageFlushMs, (error) =>
    options.onBackgroundError(error, 'could not record API token usage; will retry'),
  )
  const apiTokens = createApiTokensService({ repo: apiTokensRepo, organizations, usage: tokenUsage, cache: options.tokenCache, listLimit })
  const members = createMembersService({ repo: createMembersRepository(db), organizations, users, apiTokens, listLimit })
  const actorName = async (principal: Principal) =>
    principal.kind === 'api_token' ? `API token ${principal.name}` : users.displayName(principal.userId)
  // Issue 20: invitations (no email is sent) and the labels and annotations groups services attach.
  const invitations = createInvitationsService({ repo: createInvitationsRepository(db), organizations, actorName, listLimit })
  const customRoles = createCustomRolesService({ repo: createCustomRolesRepository(db), organizations, listLimit })
  const organizationGroups = createOrganizationGroupsService({ repo: createOrganizationGroupsRepository(db), organizations, listLimit })
  // A delete's environments are gone at once for this process; others hear of it at commit (migration 0011).
  const projects = createProjectsService({
    repo: createProjectsRepository(db),
    organizations,
    onDeleted: (projectId) => options.historyVersions?.forgetProject(projectId),
    onEnvironmentsDeleted: (environmentIds) => options.onEnvironmentsDeleted?.(environmentIds),
    // Issue 42: through its environments' deletes (the deployment triggers, made below).
    deleteEnvironment: (principal, environmentId) => deployments.deleteEnvironment(principal, environmentId),
    listLimit,
  })
  // Issue 48: projects' deployment rules give new environments their mode, cluster and auto-stop schedule (the environment's rule).
  const projectDeploymentRules = createProjectDeploymentRulesService({
    repo: createProjectDeploymentRulesRepository(withDeploymentRuleTables(db)),
    requireProject: projects.requireProject,
    isClusterOf: async (organizationId, clusterId) => (await createClustersRepository(db).findById(organizationId, clusterId)) !== undefined,
  })
  const environmentRulesRepo = createDeploymentRulesRepository(db)
  const environments = createEnvironmentsService({
    listLimit,
    repo: createEnvironmentsRepository(db),
    clusters: createClustersRepository(db),
    organizations,
    projects,
    onDeleted: (environmentId) => options.historyVersions?.forget(environmentId),
    deploymentRuleFor: async (organizationId, projectId, name) => {
      const rule = await projectDeploymentRules.ruleFor(organizationId, projectId, name)
      if (!rule) return undefined
      const { autoStop, timezone, startTime, stopTime, weekdays } = rule
      return {
        mode: rule.mode as RuleMode,
        clusterId: rule.clusterId,
        apply: async (environment) => {
          await environmentRulesRepo.put(
            environment.id,
            { onDemandPreview: false, autoStop, timezone, startTime, stopTime, weekdays },
            environment.autoPreview,
          )
        },
      }
    },
  })
  const { git, outbound } = options
  const branchCache = createBranchCache<GitBranch[]>({ ttlMs: git.cacheTtlMs, maxEntries: git.cacheMaxEntries })
  // Commits services build (applications): look-ups of full commit ids and listings, dropped with their token as listings are.
  const commitCache = createBranchCache<GitCommit | GitCommit[]>({ ttlMs: git.cacheTtlMs, maxEntries: git.cacheMaxEntries })
  const repositoryCache = createBranchCache<GitRepositoryItem[]>({ ttlMs: git.cacheTtlMs, maxEntries: git.cacheMaxEntries })
  const gitTokens = createGitTokensService({
    db,
    organizations,
    secrets: options.secrets,
    gitApiUrlProblem: outbound.allowPrivateUrls ? undefined : gitApiUrlProblem,
    onGitTokenChanged: (gitTokenId) => {
      branchCache.dropGitToken(gitTokenId)
      commitCache.dropGitToken(gitTokenId)
      repositoryCache.dropGitToken(gitTokenId)
    },
    listLimit,
  })
  const gitProviderHttp = createProviderHttp(outbound)
  const gitProviders = createGitProvidersService({
    requireOrganizationRole: organizations.requireRole,
    listGitTokens: gitTokens.listGitTokens,
    openGitToken: gitTokens.openGitToken,
    cache: branchCache,
    http: gitProviderHttp,
    timeoutMs: git.timeoutMs,
  })
  const gitRepositories = createGitRepositoriesService({
    requireOrganizationRole: organizations.requireRole,
    listGitTokens: gitTokens.listGitTokens,
    openGitToken: gitTokens.openGitToken,
    cache: repositoryCache,
    http: gitProviderHttp,
    timeoutMs: git.timeoutMs,
  })
  const gitCommits = createGitCommitsService({
    listGitTokens: gitTokens.listGitTokens,
    openGitToken: gitTokens.openGitToken,
    cache: commitCache,
    http: gitProviderHttp,
    timeoutMs: git.timeoutMs,
  })
  const helmRepositories = createHelmRepositoriesService({
    db,
    organizations,
    secrets: options.secrets,
    listLimit,
  })
  // Registry URLs follow git tokens' address rules, under the same setting (BERTH_GIT_*).
  const registryHttp = createRegistryHttpApi({ allowPrivateUrls: outbound.allowPrivateUrls, timeoutMs: git.timeoutMs })
  const containerRegistries = createContainerRegistriesService({
    db,
    organizations,
    secrets: options.secrets,
    http: registryHttp,
    allowPrivateUrls: outbound.allowPrivateUrls,
    listLimit,
  })
  // Issue 48: what helm repositories offer, and the checks before a deploy (docs/checks.md).
  const chartIndex = createChartIndex({ allowPrivateUrls: outbound.allowPrivateUrls, timeoutMs: git.timeoutMs, registries: registryHttp })
  const checks = createChecksService({
    requireEnvironment: environments.requireEnvironment,
    hasGitToken: gitTokens.hasGitToken,
    credentials: repositoryCredentials(db, options.secrets),
    chartRepository: helmRepositories.chartRepositoryOf,
    charts: chartIndex,
    imageTags: async (principal, organizationId, registryId, imageName) =>
      (await containerRegistries.listVersions(principal, organizationId, registryId, { imageName }))[0]?.versions ?? [],
    allowPrivateUrls: outbound.allowPrivateUrls,
    // A shallow fetch takes longer than a provider's API call.
    timeoutMs: Math.max(git.timeoutMs, 30_000),
  })
  const servicesRepo = createServicesRepository(db)
  const stagesRepo = createDeploymentStagesRepository(db)
  const services = createServicesService({
    // Late-bound: the triggers need the services core first.
    deleteInstalled: (principal, service, overrides) => deployments.deleteInstalledService(principal, service, overrides),
    repo: servicesRepo,
    stages: stagesRepo,
    kinds: KINDS,
    lookups: {
      findGitToken: gitTokens.findGitToken,
      findHelmRepository: helmRepositories.findHelmRepository,
      findContainerRegistry: containerRegistries.findContainerRegistry,
      findGroups: organizationGroups.findGroups,
    },
    requireScopedRole: organizations.requireScoped,
    requireEnvironment: environments.requireEnvironment,
    listLimit,
    listMaxBytes: options.listMaxBytes,
    limits: options.serviceLimits,
    secrets: options.secrets,
    checkCeilings: createResourceCeilings(db, options.resourceCeilings),
  })
  const advancedSettings = createAdvancedSettingsService({
    repo: createAdvancedSettingsRepository(db),
    kinds: KINDS,
    requireService: services.requireService,
  })
  const customDomains = createCustomDomainsService({
    repo: createCustomDomainsRepository(db),
    requireService: services.requireService,
    // Addresses of the server's own network count as configured under the setting that lets git providers live there.
    dnsCheck: { timeoutMs: 3_000, servers: [], ...options.domainCheck, allowPrivateAddresses: outbound.allowPrivateUrls },
    onRoutesChanged: options.frontDoor ? (reason) => options.frontDoor!.sync(reason) : undefined,
    appsDomain: options.frontDoor?.appsDomain,
    ownHostNames: options.domainCheck?.ownHostNames,
    findService: servicesRepo.findById,
    certificateOf: options.frontDoor?.certificateOf,
    validationDomainOf: (service) => {
      // With a front door, a domain of a container or an application points at the service's name there (docs/front-door.md).
      if (options.frontDoor && (service.kind === 'CONTAINER' || service.kind === 'APPLICATION'))
        return defaultPortHost(service.id, options.frontDoor.appsDomain)
      const domains = SERVICE_KINDS.find((descriptor) => descriptor.kind.type === service.kind)?.features.customDomains
      if (!domains) throw new Error(`${service.kind.toLowerCase()} services have no custom domains`)
      return domains.validationDomain(service)
    },
  })
  const deploymentStages = createDeploymentStagesService({
    repo: stagesRepo,
    requireEnvironment: environments.requireEnvironment,
    requireScopedRole: organizations.requireScoped,
    requireService: services.requireService,
    maxStages: options.serviceLimits?.perEnvironment,
  })
  const historyRepo = createDeploymentHistoryRepository(db)
  const deploymentHistory = createDeploymentHistoryService({
    history: historyRepo,
    requireScopedRole: organizations.requireScoped,
    requireService: services.requireService,
    pageCacheBytes: options.historyCacheBytes ?? 0,
    versions: options.historyVersions,
  })
  const variablesRepo = createVariablesRepository(db)
  const variables = createVariablesService({
    repo: variablesRepo,
    secrets: options.secrets,
    limits: options.variableLimits ?? DEFAULT_VARIABLE_LIMITS,
    requireScopedRole: organizations.requireScoped,
    requireProject: projects.requireProject,
    requireEnvironment: environments.requireEnvironment,
    requireService: services.requireService,
  })
  // Issue 48: clusters' locks, environments and readiness, asked of their engines.
  const engines = clusterEngines({
    secrets: options.secrets,
    defaultExecutor: options.defaultExecutor ?? 'SIMULATED',
    kubectlPath: options.kubectlPath ?? 'kubectl',
    timeoutMs: options.git.timeoutMs,
  })
  // Issue 48: the organization's on-premise credentials, which clusters name (docs/cloud-credentials.md).
  const cloudCredentials = createCloudCredentialsService({ db: withCloudCredentialsTables(db), organizations })
  const clusterLogBook = clusterLogs(withClusterLockTables(db))
  const clusterOperations = createClusterOperationsService({
    log: clusterLogBook.record,
    db: withClusterLockTables(db),
    organizations,
    actorName,
    engineOf: engines.engineOf,
    engineReady: engines.engineReady,
    engineEvents: clusterEvents(engines).list,
  })
  const deployments = createDeploymentTriggersService({
    lockRefusal: clusterOperations.lockRefusal,
    queues: createEnvironmentQueue(db),
    history: historyRepo,
    restorable: createRestorableSnapshotsRepository(db),
    statuses: createDeploymentStatuses(historyRepo, KINDS, options.serviceRuntime?.liveStates),
    kinds: KINDS,
    requireEnvironment: environments.requireEnvironment,
    requireService: services.requireService,
    requireScopedRole: organizations.requireScoped,
    listEnvironments: environments.list,
    listServices: (organizationId, environmentId) => servicesRepo.listByEnvironment(organizationId, environmentId),
    listServiceSummaries: servicesRepo.listSummaries,
    listStages: (environmentId) => stagesRepo.list(environmentId),
    resolveVariables: variables.resolveForDeployment,
    advancedSettings: advancedSettings.forDeployment,
    actorName: async (principal) => (principal.kind === 'api_token' ? `API token ${principal.name}` : users.displayName(principal.userId)),
    deleteEmptyEnvironment: environments.delete,
    deleteEnvironmentRecord: environments.deleteUnchecked,
    onQueued: () => options.onDeploymentQueued?.(),
    listLimit,
    deploymentLookups: {
      gitCommit: gitCommits.getCommit,
      deployedOverrides: async (serviceId) => (await historyRepo.deployedOverrides([serviceId])).get(serviceId),
    },
  })
  const withLiveLinks = createLiveLinks({ db, customDomains, serviceRuntime: options.serviceRuntime, frontDoor: options.frontDoor })
  // Deployment restrictions (issue 20): which pushes deploy a service, by the paths they changed.
  const deploymentRestrictions = createDeploymentRestrictionsService({
    repo: createDeploymentRestrictionsRepository(db),
    requireService: services.requireService,
  })
  // What a deploy of a pushed commit asks of a service (a push's and a pull request preview's): the
  // kind's deploy request with `git_commit_id`, and what the kind adds for a push (an IAC service's terraform_action).
  const commitOverrides = (service: ServiceRecord, commit: string) => ({
    ...(KIND_ROUTES.find((kind) => kind.type === service.kind)?.deploy.overrides({ git_commit_id: commit }) ?? {}),
    ...KINDS.get(service.kind)?.pushOverrides?.(service.configuration),
  })
  const clones = createClonesService({
    repo: createClonesRepository(db, stagesRepo),
    core: services,
    environments,
    projects,
    listServices: (organizationId, environmentId) => servicesRepo.listByEnvironment(organizationId, environmentId),
    findService: servicesRepo.findById,
    listStages: stagesRepo.list,
    findStageOf: stagesRepo.findByService,
    findEnvironment: createEnvironmentsRepository(db).findById,
    findCluster: createClustersRepository(db).findById,
  })
  // Issue 36: preview environments, made by pull requests' deliveries and previewContainerEnvironments.
  const previews = createPreviewsService({
    repo: createPreviewsRepository(db),
    kinds: KINDS,
    listServices: (organizationId, environmentId) => servicesRepo.listByEnvironment(organizationId, environmentId),
    findEnvironment: createEnvironmentsRepository(db).findById,
    clonePreview: clones.clonePreview,
    commitOverrides,
    triggers: deployments,
    requireEnvironment: environments.requireEnvironment,
    requireOrganizationRole: organizations.requireRole,
    actorName,
    log: options.log ?? { info: () => undefined, warn: () => undefined },
    maxPerEnvironment: options.previews?.perEnvironment ?? 10,
  })
  // Git pushes deploy (issue 19): a deploy of the pushed commit is what each kind's deploy request makes of `git_commit_id`.
  const gitWebhooks = createGitWebhooksService({
    repo: createGitWebhooksRepository(db),
    secrets: options.secrets,
    requireOrganizationRole: organizations.requireRole,
    listPushTargets: servicesRepo.listPushTargets,
    commitOverrides,
    deployedBy: deploymentRestrictions.deployedBy,
    triggers: deployments,
    pullRequest: previews.pullRequest,
  })
  const cronSchedules = createCronSchedulesRepository(db)
  const kindCruds = new Map(
    SERVICE_KINDS.map((descriptor) => [
      descriptor.kind.type,
      createKindCrud(services, descriptor, {
        deployedOverrides: historyRepo.deployedOverrides,
        reschedule: async (serviceId, configuration) => {
          if (descriptor.kind.schedule) await cronSchedules.reschedule(serviceId, descriptor.kind.schedule, configuration)
        },
      }),
    ]),
  )
  const kindRouteContext: KindRouteContext = {
    core: services,
    triggers: {
      restart: async (principal, type, serviceId) => toStatusResponse(await deployments.redeployService(principal, type, serviceId)),
      environmentStatuses: async (principal, environmentId) =>
        (await deployments.getEnvironmentStatuses(principal, environmentId)).services.map(({ service, status }) => ({
          serviceId: service.id,
          kind: service.kind,
          status: toStatusResponse(status),
        })),
    },
    secrets: options.secrets,
    requireEnvironment: environments.requireEnvironment,
    commits: gitCommits,
    containerRegistries,
    withLiveLinks,
    lastOutput: lastOutputReader(db),
  }
  return {
    invitations,
    organizationGroups,
    customRoles,
    deploymentRestrictions,
    organizations,
    users,
    gitWebhooks,
    /** Commits and webhooks of the repositories services build from, at their providers. */
    gitCommits,
    members,
    apiTokens,
    tokenUsage,
    projects,
    environments,
    gitTokens,
    gitProviders,
    gitRepositories,
    /** Closes the connections kept open to git providers. */
    closeGitProviders: () => gitProviderHttp.close(),
    helmRepositories,
    containerRegistries,
    /** Closes the connections kept open to container registries. */
    closeContainerRegistries: () => registryHttp.close(),
    services,
    /** The create, read, edit and delete of the services of a kind. */
    kindServices: <Rec, Write>(descriptor: KindDescriptor<Rec & { entityTag: string }, Write>) =>
      kindCruds.get(descriptor.kind.type) as KindCrudService<Rec & { entityTag: string }, Write>,
    /** What the routes only one kind has use of other modules. */
    kindRouteContext,
    customDomains,
    deploymentStages,
    variables,
    deploymentHistory,
    deployments,
    deploymentLogs: createDeploymentLogsService({ repo: createDeploymentLogsRepository(db), requireEnvironment: environments.requireEnvironment }),
    advancedSettings,
    clones,
    previews,
    deploymentRules: createDeploymentRulesService({ repo: createDeploymentRulesRepository(db), requireEnvironment: environments.requireEnvironment }),
    projectDeploymentRules,
    clusterOperations,
    clusterEngines: engines,
    checks,
    chartIndex,
    /** An environment's deployment stages with their services, in order (the Terraform export's). */
    listStages: (environmentId: string) => stagesRepo.list(environmentId),
    /** An environment's services with their configurations, for callers that checked READ. */
    listServicesOf: (organizationId: string, environmentId: string) => servicesRepo.listByEnvironment(organizationId, environmentId),
    clusters: createClustersService({
      repo: createClustersRepository(db),
      organizations,
      secrets: options.secrets,
      allowPrivateAddresses: outbound.allowPrivateUrls,
      listLimit,
      defaultExecutor: options.defaultExecutor,
      log: clusterLogBook.record,
    }),
    clusterRecords: createClusterRecordsService({
      repo: createClustersRepository(db),
      organizations,
      onPremiseCredentialsExist: cloudCredentials.exists,
      log: clusterLogBook.record,
    }),
    clusterAdmin: createClusterAdminService({
      db: withClusterLockTables(db),
      operations: clusterOperations,
      logs: clusterLogBook,
      engines,
      secrets: options.secrets,
      actorName,
      appsDomain: options.frontDoor?.appsDomain,
      frontDoorLogFile: options.frontDoorLogFile,
    }),
    cloudCredentials,
    // Issue 44: databases' backups, restores, schedules and destinations.
    backups: createBackupsModule(db, {
      organizations,
      requireService: services.requireService,
      actorName,
      secrets: options.secrets,
      allowPrivateUrls: outbound.allowPrivateUrls,
      localRoot: options.backupsDir ?? '.berth/backups',
      defaultExecutor: options.defaultExecutor ?? 'SIMULATED',
      listLimit,
    }),
    // Issue 45: outbound webhooks on deployments.
    webhooks: createWebhooksService({
      repo: createWebhooksRepository(db),
      organizations,
      secrets: options.secrets,
      allowPrivateUrls: outbound.allowPrivateUrls,
      listLimit,
    }),
    // Issue 45: the audit log, written by the database's triggers.
    audit: createAuditService({
      repo: createAuditRepository(db),
      organizations,
      retentionDays: options.auditRetentionDays ?? 365,
      listLimit: listLimit ?? 1000,
    }),
    // Issue 47: the Argo CD integration (docs/argocd.md).
    argocd: createArgoCdModule(db, {
      organizations,
      secrets: options.secrets,
      allowPrivateUrls: outbound.allowPrivateUrls,
      timeoutMs: options.argocd?.timeoutMs ?? 10_000,
      pollIntervalMs: options.argocd?.pollIntervalMs ?? 30_000,
      history: { findService: servicesRepo.findById, deployPushed: deployments.deployPushed },
      log: options.log ?? { info: () => undefined, warn: () => undefined },
    }),
    // Issue 48: the reference's per-kind statuses, histories and logs, from what the deployments keep.
    serviceViews: createServiceViewsService({
      deployments,
      history: deploymentHistory,
      logs: createDeploymentLogsService({ repo: createDeploymentLogsRepository(db), requireEnvironment: environments.requireEnvironment }),
      findRun: historyRepo.findRun,
      requireEnvironment: environments.requireEnvironment,
    }),
    // Issue 48: the organization's own views across its projects, environments and services.
    organizationViews: createOrganizationViewsService({
      repo: createOrganizationViewsRepository(db),
      organizations,
      requireProject: projects.requireProject,
      requireGitToken: gitTokens.get,
      requireHelmRepository: helmRepositories.get,
      projectEnvironmentStatuses: deployments.getProjectEnvironmentsStatus,
      listLimit,
    }),
    // Issue 48: an invitation accepted by its user, and ownership transfers.
    memberships: createMembershipsService({
      repo: createMembershipsRepository(db),
      users,
      members,
      requireAdmin: (principal, organizationId) => organizations.requireRole(principal, organizationId, 'ADMIN'),
      requireReader: (principal, organizationId) => organizations.requireAccess(principal, organizationId, 'READ'),
      customRoleName: organizations.customRoleName,
    }),
    // Issue 48: directories, variables and tfvars of a repository, read from a real clone.
    gitRepositoryFiles: createGitRepositoryFilesService({
      requireAccess: organizations.requireAccess,
      hasGitToken: gitTokens.hasGitToken,
      credentials: repositoryCredentials(db, options.secrets),
      allowPrivateUrls: outbound.allowPrivateUrls,
    }),
    // Issue 48: a new tag of an image deployed to the containers and jobs that auto-deploy it.
    imageAutoDeploy: createImageAutoDeploy({ db, deployments, requireAccess: organizations.requireAccess, visibility: organizations.visibility }),
  }
}

export type Services = ReturnType<typeof createServices>
