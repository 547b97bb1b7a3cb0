import type { FastifyBaseLogger, FastifyInstance } from 'fastify'
import type { Config } from './config.ts'
import { alertingModule } from './modules/alerting/alerting.module.ts'
import { apiTokensRoutes } from './modules/api-tokens/api-tokens.routes.ts'
import { policyApiTokensRoutes } from './modules/api-tokens/policy-api-tokens.routes.ts'
import { argoCdRoutes } from './modules/argocd/argocd.routes.ts'
import { auditRoutes } from './modules/audit/audit.routes.ts'
import { recordActors } from './modules/audit/audit-actors.ts'
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
import { currentRoleRoutes } from './modules/current-role/current-role.routes.ts'
import { customDomainsRoutes } from './modules/custom-domains/custom-domains.routes.ts'
import { customRolesRoutes } from './modules/custom-roles/custom-roles.routes.ts'
import { databaseApplicationsRoutes } from './modules/database-applications/database-applications.routes.ts'
import { createDatabaseApplicationsService } from './modules/database-applications/database-applications.service.ts'
import { deploymentRestrictionsRoutes } from './modules/deployment-restrictions/deployment-restrictions.routes.ts'
import { deploymentRulesRoutes } from './modules/deployment-rules/deployment-rules.routes.ts'
import { deploymentHistoryRoutes } from './modules/deployments/api/history/deployment-history.routes.ts'
import { deploymentLogsRoutes } from './modules/deployments/api/logs/deployment-logs.routes.ts'
import { projectAndEnvironmentDeletesRoutes } from './modules/deployments/api/triggers/deletes.routes.ts'
import { deploymentQueueRoutes } from './modules/deployments/api/triggers/deployment-queue.routes.ts'
import { environmentActionsRoutes } from './modules/deployments/api/triggers/environment-actions.routes.ts'
import { environmentStatusesRoutes } from './modules/deployments/api/triggers/environment-statuses.routes.ts'
import { environmentRollbackRoutes, serviceRollbackRoutes } from './modules/deployments/api/triggers/rollback.routes.ts'
import { selectedServicesRoutes } from './modules/deployments/api/triggers/selected-services.routes.ts'
import { type StatusExtension, serviceActionsRoutes } from './modules/deployments/api/triggers/service-actions.routes.ts'
import { environmentLinksRoutes } from './modules/environment-links/environment-links.routes.ts'
import { environmentsRoutes } from './modules/environments/environments.routes.ts'
import { repositoryCredentials } from './modules/executors/git-credentials.ts'
import { chartDefaultValues } from './modules/executors/kubernetes/chart-default-values.ts'
import type { ServiceRuntime } from './modules/executors/service-runtime.ts'
import { gitProvidersRoutes } from './modules/git-providers/git-providers.routes.ts'
import { gitRepositoriesRoutes } from './modules/git-providers/git-repositories.routes.ts'
import { gitRepositoryFilesRoutes } from './modules/git-repository-files/git-repository-files.routes.ts'
import { gitWebhookSecretRoutes } from './modules/git-webhooks/git-webhooks.routes.ts'
import { serviceGitWebhooksRoutes } from './modules/git-webhooks/service-git-webhooks.routes.ts'
import { createServiceGitWebhooksService } from './modules/git-webhooks/service-git-webhooks.ts'
import { invitationsRoutes } from './modules/invitations/invitations.routes.ts'
import { createJobCleanupService, jobCleanupRoutes } from './modules/job-cleanup/job-cleanup.ts'
import { membersRoutes } from './modules/members/members.routes.ts'
import { membershipsRoutes } from './modules/memberships/memberships.routes.ts'
import { containerRegistriesRoutes } from './modules/organization-credentials/container-registries/container-registries.routes.ts'
import { gitTokensRoutes } from './modules/organization-credentials/git-tokens/git-tokens.routes.ts'
import { helmRepositoriesRoutes } from './modules/organization-credentials/helm-repositories/helm-repositories.routes.ts'
import { organizationGroupsRoutes } from './modules/organization-groups/organization-groups.routes.ts'
import { organizationViewsRoutes } from './modules/organization-views/organization-views.routes.ts'
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
import { KIND_ROUTES, kindsWith, SERVICE_KINDS } from './modules/services/kinds/registry.ts'
import type { FollowStreams } from './modules/services/logs/follow-streams.ts'
import { serviceLogsRoutes } from './modules/services/logs/service-logs.routes.ts'
import type { ServiceLogsService } from './modules/services/logs/service-logs.service.ts'
import { servicesRoutes } from './modules/services/services.routes.ts'
import { deploymentStagesRoutes } from './modules/services/stages/deployment-stages.routes.ts'
import { terraformExportRoutes } from './modules/terraform-export/terraform-export.routes.ts'
import { usersRoutes } from './modules/users/users.routes.ts'
import { scopedVariablesRoutes } from './modules/variables/scoped-variables.routes.ts'
import { variablesRoutes } from './modules/variables/variables.routes.ts'
import { webhooksRoutes } from './modules/webhooks/webhooks.routes.ts'
import { type Authenticators, registerAuthentication } from './platform/auth/authenticate.ts'
import type { Db } from './platform/db/database.ts'
import type { registerRateLimits } from './platform/http/rate-limits.ts'
import type { SecretBox } from './platform/secrets/secret-box.ts'
import type { Services } from './services.ts'

// The API's routes behind authentication, in the order /openapi.json lists them: each module's
// routes registered with the service object it answers from (app.ts builds the app around them).

/** What the API's routes are made from: the app's services and what buildApp set up beside them. */
export interface ApiRouteDeps {
  config: Config
  db: Db
  secrets: SecretBox
  log: FastifyBaseLogger
  services: Services
  authenticators: Authenticators
  rateLimits: Awaited<ReturnType<typeof registerRateLimits>>
  followStreams: FollowStreams
  serviceLogs: ServiceLogsService
  serviceRuntime: ServiceRuntime | undefined
  /** The front door when this process runs one (AppDeps). */
  frontDoor: { sync(reason: string): Promise<void> } | undefined
}

/** The authenticated API, as one plugin. */
export function apiRoutes(deps: ApiRouteDeps) {
  const { config, db, secrets, services, authenticators, rateLimits, followStreams, serviceLogs, serviceRuntime, frontDoor } = deps
  const { organizations, apiTokens, projects, environments, gitTokens, gitProviders, helmRepositories } = services
  return async (api: FastifyInstance) => {
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
    await api.register(environmentsRoutes(environments))
    await api.register(projectAndEnvironmentDeletesRoutes(services.deployments))
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
        environments,
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
        environments,
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
          environments,
          listServices: services.listServicesOf,
          cleanFailedRuns: serviceRuntime?.cleanFailedRuns,
        }),
      ),
    )
    await api.register(alertingModule({ config, db, secrets, organizations, log: deps.log }))
  }
}
