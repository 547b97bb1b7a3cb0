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
import { createClustersModule } from './modules/clusters/clusters.module.ts'
import { createCustomDomainsRepository } from './modules/custom-domains/custom-domains.repository.ts'
import { createCustomDomainsService } from './modules/custom-domains/custom-domains.service.ts'
import { validationDomainOf } from './modules/custom-domains/validation-domain.ts'
import { createCustomRolesRepository } from './modules/custom-roles/custom-roles.repository.ts'
import { createCustomRolesService } from './modules/custom-roles/custom-roles.service.ts'
import { createDeploymentRestrictionsRepository } from './modules/deployment-restrictions/deployment-restrictions.repository.ts'
import { createDeploymentRestrictionsService } from './modules/deployment-restrictions/deployment-restrictions.service.ts'
import { createProjectDeploymentRulesRepository } from './modules/deployment-rules/deployment-rules.repository.ts'
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
import { createCronSchedulesRepository } from './modules/deployments/queue/cron-schedules.repository.ts'
import { createEnvironmentQueue } from './modules/deployments/queue/environment-queue.ts'
import { createClustersRepository } from './modules/environments/clusters.repository.ts'
import { createEnvironmentsRepository } from './modules/environments/environments.repository.ts'
import { createEnvironmentsService } from './modules/environments/environments.service.ts'
import { repositoryCredentials } from './modules/executors/git-credentials.ts'
import type { ServiceRuntime } from './modules/executors/service-runtime.ts'
import type { FrontDoorLinks } from './modules/front-door/front-door-links.ts'
import { createLiveLinks } from './modules/front-door/live-links.ts'
import { gitApiUrlProblem } from './modules/git-providers/address-guard.ts'
import { createGitListingCaches, createGitProvidersModule } from './modules/git-providers/git-providers.module.ts'
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
import { environmentRuleFromProject } from './modules/previews/environment-rule.ts'
import { createPreviewsRepository } from './modules/previews/previews.repository.ts'
import { createPreviewsService } from './modules/previews/previews.service.ts'
import { createProjectsRepository } from './modules/projects/projects.repository.ts'
import { createProjectsService } from './modules/projects/projects.service.ts'
import { createImageAutoDeploy } from './modules/service-views/image-auto-deploy.ts'
import { kindTriggers } from './modules/service-views/kind-triggers.ts'
import { createServiceViewsService } from './modules/service-views/service-views.service.ts'
import { createAdvancedSettingsRepository } from './modules/services/advanced-settings/advanced-settings.repository.ts'
import { createAdvancedSettingsService } from './modules/services/advanced-settings/advanced-settings.service.ts'
import { commitOverrides } from './modules/services/commit-overrides.ts'
import { createKindCruds } from './modules/services/kind-crud.ts'
import type { KindRouteContext } from './modules/services/kind-route-context.ts'
import { KINDS, SERVICE_KINDS } from './modules/services/kinds/registry.ts'
import { lastOutputReader } from './modules/services/last-outputs.repository.ts'
import { createResourceCeilings, type ResourceCeilings } from './modules/services/resource-ceilings.ts'
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

/**
 * Wires every module's service over one database: the one place modules meet. Each phase below makes
 * the services of one area and hands each the services it uses; what a module reads or decides lives in it.
 */
export function createServices(db: Db, options: ServiceOptions) {
  const accounts = createAccountServices(db, options)
  const credentials = createCredentialServices(db, options, accounts)
  const core = createServiceCore(db, options, accounts, credentials)
  return { ...accounts, ...credentials, ...core, ...createServiceSideModules(db, options, accounts, credentials, core) }
}

export type Services = ReturnType<typeof createServices>

/** Organizations and who acts in them: users, API tokens, members, roles, groups; and their clusters. */
function createAccountServices(db: Db, options: ServiceOptions) {
  const { listLimit, secrets } = options
  const { allowPrivateUrls } = options.outbound
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
  const { actorName } = users
  const apiTokensRepo = createApiTokensRepository(db)
  const tokenUsage = createTokenUsageTracker(apiTokensRepo, options.tokenUsageFlushMs, (error) =>
    options.onBackgroundError(error, 'could not record API token usage; will retry'),
  )
  const apiTokens = createApiTokensService({ repo: apiTokensRepo, organizations, usage: tokenUsage, cache: options.tokenCache, listLimit })
  const members = createMembersService({ repo: createMembersRepository(db), organizations, users, apiTokens, listLimit })
  // Issue 48: the organization's on-premise credentials, which clusters name (docs/cloud-credentials.md).
  const cloudCredentials = createCloudCredentialsService({ db: withCloudCredentialsTables(db), organizations })
  return {
    organizations,
    users,
    tokenUsage,
    apiTokens,
    members,
    invitations: createInvitationsService({ repo: createInvitationsRepository(db), organizations, actorName, listLimit }),
    customRoles: createCustomRolesService({ repo: createCustomRolesRepository(db), organizations, listLimit }),
    organizationGroups: createOrganizationGroupsService({ repo: createOrganizationGroupsRepository(db), organizations, listLimit }),
    // Issue 48: an invitation accepted by its user, and ownership transfers.
    memberships: createMembershipsService({
      repo: createMembershipsRepository(db),
      users,
      members,
      organizations,
    }),
    cloudCredentials,
    ...createClustersModule(db, {
      organizations,
      secrets,
      actorName,
      onPremiseCredentialsExist: cloudCredentials.exists,
      defaultExecutor: options.defaultExecutor,
      kubectlPath: options.kubectlPath,
      timeoutMs: options.git.timeoutMs,
      allowPrivateUrls,
      appsDomain: options.frontDoor?.appsDomain,
      frontDoorLogFile: options.frontDoorLogFile,
      listLimit,
    }),
    // Issue 45: outbound webhooks on deployments, and the audit log the database's triggers write.
    webhooks: createWebhooksService({ repo: createWebhooksRepository(db), organizations, secrets, allowPrivateUrls, listLimit }),
    audit: createAuditService({
      repo: createAuditRepository(db),
      organizations,
      retentionDays: options.auditRetentionDays ?? 365,
      listLimit: listLimit ?? 1000,
    }),
  }
}

type AccountServices = ReturnType<typeof createAccountServices>

/** The organization's credentials (git tokens, helm repositories, container registries) and what is read with them. */
function createCredentialServices(db: Db, options: ServiceOptions, { organizations }: AccountServices) {
  const { listLimit, git, secrets } = options
  const { allowPrivateUrls } = options.outbound
  const gitListings = createGitListingCaches(git)
  const gitTokens = createGitTokensService({
    db,
    organizations,
    secrets,
    gitApiUrlProblem: allowPrivateUrls ? undefined : gitApiUrlProblem,
    onGitTokenChanged: gitListings.dropGitToken,
    listLimit,
  })
  // Registry URLs follow git tokens' address rules, under the same setting (BERTH_GIT_*).
  const registryHttp = createRegistryHttpApi({ allowPrivateUrls, timeoutMs: git.timeoutMs })
  return {
    gitTokens,
    ...createGitProvidersModule({
      organizations,
      listGitTokens: gitTokens.listGitTokens,
      openGitToken: gitTokens.openGitToken,
      caches: gitListings,
      allowPrivateUrls,
      timeoutMs: git.timeoutMs,
    }),
    // Issue 48: directories, variables and tfvars of a repository, read from a real clone.
    gitRepositoryFiles: createGitRepositoryFilesService({
      requireAccess: organizations.requireAccess,
      hasGitToken: gitTokens.hasGitToken,
      credentials: repositoryCredentials(db, secrets),
      allowPrivateUrls,
    }),
    helmRepositories: createHelmRepositoriesService({ db, organizations, secrets, listLimit }),
    containerRegistries: createContainerRegistriesService({ db, organizations, secrets, http: registryHttp, allowPrivateUrls, listLimit }),
    /** Closes the connections kept open to container registries. */
    closeContainerRegistries: () => registryHttp.close(),
    // Issue 48: what helm repositories offer (docs/checks.md).
    chartIndex: createChartIndex({ allowPrivateUrls, timeoutMs: git.timeoutMs, registries: registryHttp }),
  }
}

type CredentialServices = ReturnType<typeof createCredentialServices>

/** Projects, environments, the services core with what each service holds, and the deployment triggers. */
function createServiceCore(db: Db, options: ServiceOptions, accounts: AccountServices, credentials: CredentialServices) {
  const { listLimit, secrets } = options
  const { organizations, users } = accounts
  const projects = createProjectsService({
    repo: createProjectsRepository(db),
    organizations,
    onDeleted: (projectId) => options.historyVersions?.forgetProject(projectId),
    onEnvironmentsDeleted: (environmentIds) => options.onEnvironmentsDeleted?.(environmentIds),
    listLimit,
  })
  const clustersRepo = createClustersRepository(db)
  // Issue 48: projects' deployment rules give new environments their mode, cluster and auto-stop schedule.
  const projectDeploymentRules = createProjectDeploymentRulesService({
    repo: createProjectDeploymentRulesRepository(withDeploymentRuleTables(db)),
    projects,
    isClusterOf: clustersRepo.isClusterOf,
  })
  const environments = createEnvironmentsService({
    listLimit,
    repo: createEnvironmentsRepository(db),
    clusters: clustersRepo,
    organizations,
    projects,
    onDeleted: (environmentId) => options.historyVersions?.forget(environmentId),
    deploymentRuleFor: environmentRuleFromProject(projectDeploymentRules, createDeploymentRulesRepository(db)),
  })
  const servicesRepo = createServicesRepository(db)
  const stagesRepo = createDeploymentStagesRepository(db)
  const services = createServicesService({
    repo: servicesRepo,
    stages: stagesRepo,
    kinds: KINDS,
    lookups: {
      findGitToken: credentials.gitTokens.findGitToken,
      findHelmRepository: credentials.helmRepositories.findHelmRepository,
      findContainerRegistry: credentials.containerRegistries.findContainerRegistry,
      findGroups: accounts.organizationGroups.findGroups,
    },
    organizations,
    environments,
    listLimit,
    listMaxBytes: options.listMaxBytes,
    limits: options.serviceLimits,
    secrets,
    checkCeilings: createResourceCeilings(db, options.resourceCeilings),
  })
  const { requireService } = services
  const advancedSettings = createAdvancedSettingsService({ repo: createAdvancedSettingsRepository(db), kinds: KINDS, requireService })
  const historyRepo = createDeploymentHistoryRepository(db)
  const variables = createVariablesService({
    repo: createVariablesRepository(db),
    secrets,
    limits: options.variableLimits ?? DEFAULT_VARIABLE_LIMITS,
    organizations,
    projects,
    environments,
    requireService,
  })
  const deployments = createDeploymentTriggersService({
    lockRefusal: accounts.clusterOperations.lockRefusal,
    queues: createEnvironmentQueue(db),
    history: historyRepo,
    restorable: createRestorableSnapshotsRepository(db),
    statuses: createDeploymentStatuses(historyRepo, KINDS, options.serviceRuntime?.liveStates),
    kinds: KINDS,
    environments,
    // A project goes by deleting its environments, which the triggers do (deleteProject).
    projects,
    organizations,
    requireService,
    listServices: servicesRepo.listByEnvironment,
    listServiceSummaries: servicesRepo.listSummaries,
    listStages: stagesRepo.list,
    variables,
    advancedSettings,
    users,
    onQueued: () => options.onDeploymentQueued?.(),
    listLimit,
    deploymentLookups: {
      gitCommit: credentials.gitCommits.getCommit,
      deployedOverrides: async (serviceId) => (await historyRepo.deployedOverrides([serviceId])).get(serviceId),
    },
  })
  return {
    projects,
    projectDeploymentRules,
    environments,
    services,
    advancedSettings,
    variables,
    deployments,
    deploymentHistory: createDeploymentHistoryService({
      history: historyRepo,
      organizations,
      requireService,
      pageCacheBytes: options.historyCacheBytes ?? 0,
      versions: options.historyVersions,
    }),
    deploymentLogs: createDeploymentLogsService({ repo: createDeploymentLogsRepository(db), environments }),
    deploymentRules: createDeploymentRulesService({ repo: createDeploymentRulesRepository(db), environments }),
    deploymentStages: createDeploymentStagesService({
      repo: stagesRepo,
      environments,
      organizations,
      requireService,
      maxStages: options.serviceLimits?.perEnvironment,
    }),
    /** An environment's deployment stages with their services, in order (the Terraform export's). */
    listStages: stagesRepo.list,
    /** An environment's services with their configurations, for callers that checked READ. */
    listServicesOf: servicesRepo.listByEnvironment,
  }
}

type ServiceCore = ReturnType<typeof createServiceCore>

/** What builds on the services and their triggers: domains, pushes, previews, clones, kinds' own routes, views, backups, Argo CD. */
function createServiceSideModules(db: Db, options: ServiceOptions, accounts: AccountServices, credentials: CredentialServices, core: ServiceCore) {
  const { listLimit, secrets } = options
  const { allowPrivateUrls } = options.outbound
  const { organizations } = accounts
  const { environments, services, deployments } = core
  const { requireService } = services
  // Reads of the services', stages' and history's tables that their modules' services do not offer.
  const servicesRepo = createServicesRepository(db)
  const stagesRepo = createDeploymentStagesRepository(db)
  const historyRepo = createDeploymentHistoryRepository(db)
  const log = options.log ?? { info: () => undefined, warn: () => undefined }
  const customDomains = createCustomDomainsService({
    repo: createCustomDomainsRepository(db),
    requireService,
    // Addresses of the server's own network count as configured under the setting that lets git providers live there.
    dnsCheck: { timeoutMs: 3_000, servers: [], ...options.domainCheck, allowPrivateAddresses: allowPrivateUrls },
    onRoutesChanged: options.frontDoor ? (reason) => options.frontDoor!.sync(reason) : undefined,
    appsDomain: options.frontDoor?.appsDomain,
    ownHostNames: options.domainCheck?.ownHostNames,
    findService: servicesRepo.findById,
    certificateOf: options.frontDoor?.certificateOf,
    validationDomainOf: validationDomainOf(SERVICE_KINDS, options.frontDoor?.appsDomain),
  })
  // Deployment restrictions (issue 20): which pushes deploy a service, by the paths they changed.
  const deploymentRestrictions = createDeploymentRestrictionsService({ repo: createDeploymentRestrictionsRepository(db), requireService })
  const clones = createClonesService({
    repo: createClonesRepository(db, stagesRepo),
    core: services,
    environments,
    projects: core.projects,
    listServices: servicesRepo.listByEnvironment,
    findService: servicesRepo.findById,
    listStages: core.listStages,
    findStageOf: stagesRepo.findByService,
    findEnvironment: createEnvironmentsRepository(db).findById,
    findCluster: createClustersRepository(db).findById,
  })
  // Issue 36: preview environments, made by pull requests' deliveries and previewContainerEnvironments.
  const previews = createPreviewsService({
    repo: createPreviewsRepository(db),
    kinds: KINDS,
    listServices: servicesRepo.listByEnvironment,
    findEnvironment: createEnvironmentsRepository(db).findById,
    clonePreview: clones.clonePreview,
    commitOverrides,
    triggers: deployments,
    environments,
    organizations,
    actorName: accounts.users.actorName,
    log,
    maxPerEnvironment: options.previews?.perEnvironment ?? 10,
  })
  return {
    customDomains,
    deploymentRestrictions,
    clones,
    previews,
    // Git pushes deploy (issue 19): a deploy of the pushed commit is what each kind's deploy request makes of `git_commit_id`.
    gitWebhooks: createGitWebhooksService({
      repo: createGitWebhooksRepository(db),
      secrets,
      organizations,
      listPushTargets: servicesRepo.listPushTargets,
      commitOverrides,
      deployedBy: deploymentRestrictions.deployedBy,
      triggers: deployments,
      pullRequest: previews.pullRequest,
    }),
    // Issue 48: what a deploy would meet (docs/checks.md).
    checks: createChecksService({
      environments,
      hasGitToken: credentials.gitTokens.hasGitToken,
      credentials: repositoryCredentials(db, secrets),
      chartRepository: credentials.helmRepositories.chartRepositoryOf,
      charts: credentials.chartIndex,
      containerRegistries: credentials.containerRegistries,
      allowPrivateUrls,
      // A shallow fetch takes longer than a provider's API call.
      timeoutMs: Math.max(options.git.timeoutMs, 30_000),
    }),
    /** The create, read, edit and delete of the services of a kind. */
    kindServices: createKindCruds(services, SERVICE_KINDS, {
      deployedOverrides: historyRepo.deployedOverrides,
      deleteInstalled: deployments.deleteInstalledService,
      reschedule: createCronSchedulesRepository(db).reschedule,
    }),
    /** What the routes only one kind has use of other modules. */
    kindRouteContext: {
      core: services,
      triggers: kindTriggers(deployments),
      secrets,
      environments,
      commits: credentials.gitCommits,
      containerRegistries: credentials.containerRegistries,
      withLiveLinks: createLiveLinks({ db, customDomains, serviceRuntime: options.serviceRuntime, frontDoor: options.frontDoor }),
      lastOutput: lastOutputReader(db),
    } satisfies KindRouteContext,
    // Issue 48: the reference's per-kind statuses, histories and logs, from what the deployments keep.
    serviceViews: createServiceViewsService({
      deployments,
      history: core.deploymentHistory,
      logs: core.deploymentLogs,
      findRun: historyRepo.findRun,
      environments,
    }),
    // Issue 48: the organization's own views across its projects, environments and services.
    organizationViews: createOrganizationViewsService({
      repo: createOrganizationViewsRepository(db),
      organizations,
      projects: core.projects,
      requireGitToken: credentials.gitTokens.get,
      requireHelmRepository: credentials.helmRepositories.get,
      projectEnvironmentStatuses: deployments.getProjectEnvironmentsStatus,
      listLimit,
    }),
    // Issue 48: a new tag of an image deployed to the containers and jobs that auto-deploy it.
    imageAutoDeploy: createImageAutoDeploy({ db, deployments, requireAccess: organizations.requireAccess, visibility: organizations.visibility }),
    // Issue 44: databases' backups, restores, schedules and destinations.
    backups: createBackupsModule(db, {
      organizations,
      requireService,
      actorName: accounts.users.actorName,
      secrets,
      allowPrivateUrls,
      localRoot: options.backupsDir ?? '.berth/backups',
      defaultExecutor: options.defaultExecutor ?? 'SIMULATED',
      listLimit,
    }),
    // Issue 47: the Argo CD integration (docs/argocd.md).
    argocd: createArgoCdModule(db, {
      organizations,
      secrets,
      allowPrivateUrls,
      timeoutMs: options.argocd?.timeoutMs ?? 10_000,
      pollIntervalMs: options.argocd?.pollIntervalMs ?? 30_000,
      history: { findService: servicesRepo.findById, deployPushed: deployments.deployPushed },
      log,
    }),
  }
}
