import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createTestApp, type TestApp } from './helpers/app.ts'

interface Operation {
  operationId?: string
  security?: Record<string, string[]>[]
  parameters?: { name: string; in: string; required?: boolean }[]
  responses: Record<string, { description?: string; content?: { 'application/json'?: { schema?: { $ref?: string } } } }>
}

interface Document {
  openapi: string
  info: { title: string; version: string }
  paths: Record<string, Record<string, Operation>>
  components: { securitySchemes: Record<string, Record<string, unknown>>; schemas: Record<string, unknown> }
}

const EXPECTED_OPERATIONS: Record<string, Record<string, string>> = {
  '/organization': { get: 'listOrganization', post: 'createOrganization' },
  '/organization/{organizationId}': { get: 'getOrganization', put: 'editOrganization', delete: 'deleteOrganization' },
  '/organization/{organizationId}/currentRole': { get: 'getOrganizationCurrentRole' },
  '/organization/{organizationId}/apiToken': { get: 'listOrganizationApiTokens', post: 'createOrganizationApiToken' },
  '/organization/{organizationId}/apiToken/{apiTokenId}': { delete: 'deleteOrganizationApiToken' },
  '/organization/{organizationId}/cluster': { get: 'listOrganizationCluster', post: 'createCluster' },
  '/organization/{organizationId}/cluster/status': { get: 'getOrganizationClusterStatus' },
  '/organization/{organizationId}/cluster/{clusterId}': { get: 'getCluster', put: 'editCluster', delete: 'deleteCluster' },
  '/organization/{organizationId}/cluster/{clusterId}/status': { get: 'getClusterStatus' },
  '/organization/{organizationId}/cluster/{clusterId}/kubeconfig': { get: 'getClusterKubeconfig', put: 'editClusterKubeconfig' },
  '/organization/{organizationId}/cluster/{clusterId}/advancedSettings': { get: 'getClusterAdvancedSettings', put: 'editClusterAdvancedSettings' },
  '/organization/{organizationId}/cluster/{clusterId}/routingTable': { get: 'getRoutingTable', put: 'editRoutingTable' },
  '/organization/{organizationId}/cluster/{clusterId}/cloudProviderInfo': {
    get: 'getOrganizationCloudProviderInfo',
    post: 'specifyClusterCloudProviderInfo',
  },
  '/organization/{organizationId}/cluster/{clusterId}/deploy': { post: 'deployCluster' },
  '/organization/{organizationId}/cluster/{clusterId}/stop': { post: 'StopCluster' },
  '/organization/{organizationId}/member': { get: 'getOrganizationMembers', put: 'editOrganizationMemberRole', delete: 'deleteMember' },
  '/organization/{organizationId}/member/{userId}': { put: 'putOrganizationMember', delete: 'deleteOrganizationMember' },
  '/account': { get: 'getAccountInformation', put: 'editAccountInformation' },
  '/organization/{organizationId}/account/gitAuthProvider': { get: 'getOrganizationGitProviderAccount' },
  '/organization/{organizationId}/account/github/repository': { get: 'getOrganizationGithubRepositories' },
  '/organization/{organizationId}/account/gitlab/repository': { get: 'getOrganizationGitlabRepositories' },
  '/organization/{organizationId}/account/bitbucket/repository': { get: 'getOrganizationBitbucketRepositories' },
  '/organization/{organizationId}/account/github/repository/branch': { get: 'getOrganizationGithubRepositoryBranches' },
  '/organization/{organizationId}/account/gitlab/repository/branch': { get: 'getOrganizationGitlabRepositoryBranches' },
  '/organization/{organizationId}/account/bitbucket/repository/branch': { get: 'getOrganizationBitbucketRepositoryBranches' },
  '/organization/{organizationId}/gitToken': { get: 'listOrganizationGitTokens', post: 'createGitToken' },
  '/organization/{organizationId}/webhook': { get: 'listOrganizationWebHooks', post: 'createOrganizationWebhook' },
  '/organization/{organizationId}/webhook/{webhookId}': {
    get: 'getOrganizationWebhook',
    put: 'editOrganizationWebhook',
    delete: 'deleteOrganizationWebhook',
  },
  '/organization/{organizationId}/webhook/{webhookId}/event': { get: 'listWebhookEvent' },
  '/organization/{organizationId}/webhook/{webhookId}/test': { post: 'testOrganizationWebhook' },
  '/organization/{organizationId}/events': { get: 'getOrganizationEvents' },
  '/organization/{organizationId}/targets': { get: 'getOrganizationEventTargets' },
  '/organization/{organizationId}/gitToken/{gitTokenId}': { get: 'getOrganizationGitToken', put: 'editGitToken', delete: 'deleteGitToken' },
  '/organization/{organizationId}/helmRepository': { get: 'listHelmRepository', post: 'createHelmRepository' },
  '/organization/{organizationId}/helmRepository/{helmRepositoryId}': {
    get: 'getHelmRepository',
    put: 'editHelmRepository',
    delete: 'deleteHelmRepository',
  },
  '/organization/{organizationId}/project': { get: 'listProject', post: 'createProject' },
  '/project/{projectId}': { get: 'getProject', put: 'editProject', delete: 'deleteProject' },
  '/project/{projectId}/environment': { get: 'listEnvironment', post: 'createEnvironment' },
  '/project/{projectId}/environment/status': { get: 'getProjectEnvironmentsStatus' },
  '/environment/{environmentId}': { get: 'getEnvironment', put: 'editEnvironment', delete: 'deleteEnvironment' },
  '/environment/{environmentId}/helm': { get: 'listHelms', post: 'createHelm' },
  '/helm/{helmId}': { get: 'getHelm', put: 'editHelm', delete: 'deleteHelm' },
  '/environment/{environmentId}/deploy': { post: 'deployEnvironment' },
  '/environment/{environmentId}/redeploy': { post: 'redeployEnvironment' },
  '/environment/{environmentId}/stop': { post: 'stopEnvironment' },
  '/environment/{environmentId}/cancelDeployment': { post: 'cancelEnvironmentDeployment' },
  '/environment/{environmentId}/status': { get: 'getEnvironmentStatus' },
  '/environment/{environmentId}/deploymentHistory': { get: 'listEnvironmentDeploymentHistory' },
  '/environment/{environmentId}/deploymentHistoryV2': { get: 'listEnvironmentDeploymentHistoryV2' },
  '/helm/{helmId}/deploy': { post: 'deployHelm' },
  '/helm/{helmId}/redeploy': { post: 'redeployHelm' },
  '/helm/{helmId}/stop': { post: 'stopHelm' },
  '/helm/{helmId}/uninstall': { post: 'uninstallHelm' },
  '/helm/{helmId}/status': { get: 'getHelmStatus' },
  '/helm/{helmId}/deploymentHistoryV2': { get: 'listHelmDeploymentHistoryV2' },
  '/environment/{environmentId}/database': { get: 'listDatabase', post: 'createDatabase' },
  '/environment/{environmentId}/databaseConfiguration': { get: 'listEnvironmentDatabaseConfig' },
  '/database/{databaseId}': { get: 'getDatabase', put: 'editDatabase', delete: 'deleteDatabase' },
  '/database/{databaseId}/masterCredentials': { get: 'getDatabaseMasterCredentials' },
  '/database/{databaseId}/backup': { get: 'listDatabaseBackup', post: 'addBackupDatabase' },
  '/database/{databaseId}/backup/{backupId}': { get: 'getDatabaseBackup', delete: 'removeDatabaseBackup' },
  '/database/{databaseId}/backup/{backupId}/log': { get: 'getDatabaseBackupLog' },
  '/database/{databaseId}/backup/{backupId}/restore': { post: 'restoreDatabaseBackup' },
  '/database/{databaseId}/restore': { get: 'listDatabaseRestore' },
  '/database/{databaseId}/restore/{restoreId}': { get: 'getDatabaseRestore' },
  '/database/{databaseId}/backupSchedule': {
    get: 'getDatabaseBackupSchedule',
    put: 'editDatabaseBackupSchedule',
    delete: 'deleteDatabaseBackupSchedule',
  },
  '/organization/{organizationId}/backupDestination': { get: 'listBackupDestination', post: 'createBackupDestination' },
  '/organization/{organizationId}/backupDestination/{backupDestinationId}': {
    get: 'getBackupDestination',
    put: 'editBackupDestination',
    delete: 'deleteBackupDestination',
  },
  '/database/{databaseId}/version': { get: 'listDatabaseVersion' },
  '/database/{databaseId}/deploy': { post: 'deployDatabase' },
  '/database/{databaseId}/redeploy': { post: 'redeployDatabase' },
  '/database/{databaseId}/restart-service': { post: 'rebootDatabase' },
  '/database/{databaseId}/stop': { post: 'stopDatabase' },
  '/database/{databaseId}/uninstall': { post: 'uninstallDatabase' },
  '/database/{databaseId}/status': { get: 'getDatabaseStatus' },
  '/database/{databaseId}/deploymentHistoryV2': { get: 'listDatabaseDeploymentHistoryV2' },
  '/organization/{organizationId}/containerRegistry': { get: 'listContainerRegistry', post: 'createContainerRegistry' },
  '/organization/{organizationId}/containerRegistry/{containerRegistryId}': {
    get: 'getContainerRegistry',
    put: 'editContainerRegistry',
    delete: 'deleteContainerRegistry',
  },
  '/organization/{organizationId}/containerRegistry/{containerRegistryId}/images': { get: 'getContainerVersions' },
  '/organization/{organizationId}/containerRegistry/{containerRegistryId}/associatedServices': { get: 'getContainerRegistryAssociatedServices' },
  '/availableContainerRegistry': { get: 'listAvailableContainerRegistry' },
  '/environment/{environmentId}/container': { get: 'listContainer', post: 'createContainer' },
  '/environment/{environmentId}/container/status': { get: 'getEnvironmentContainerStatus' },
  '/organization/{organizationId}/containerRegistry/{containerRegistryId}/container/status': { get: 'getContainerRegistryContainerStatus' },
  '/container/{containerId}': { get: 'getContainer', put: 'editContainer', delete: 'deleteContainer' },
  '/container/{containerId}/link': { get: 'listContainerLinks' },
  '/container/{containerId}/restart-service': { post: 'rebootContainer' },
  '/container/{containerId}/deploy': { post: 'deployContainer' },
  '/container/{containerId}/redeploy': { post: 'redeployContainer' },
  '/container/{containerId}/stop': { post: 'stopContainer' },
  '/container/{containerId}/uninstall': { post: 'uninstallContainer' },
  '/container/{containerId}/status': { get: 'getContainerStatus' },
  '/container/{containerId}/deploymentHistoryV2': { get: 'listContainerDeploymentHistoryV2' },
  '/environment/{environmentId}/job': { get: 'listJobs', post: 'createJob' },
  '/job/{jobId}': { get: 'getJob', put: 'editJob', delete: 'deleteJob' },
  '/job/{jobId}/deploy': { post: 'deployJob' },
  '/job/{jobId}/redeploy': { post: 'redeployJob' },
  '/job/{jobId}/stop': { post: 'stopJob' },
  '/job/{jobId}/uninstall': { post: 'uninstallJob' },
  '/job/{jobId}/status': { get: 'getJobStatus' },
  '/job/{jobId}/deploymentHistoryV2': { get: 'listJobDeploymentHistoryV2' },
  '/job/{jobId}/advancedSettings': { get: 'getJobAdvancedSettings', put: 'editJobAdvancedSettings' },
  '/application/{applicationId}/advancedSettings': { get: 'getAdvancedSettings', put: 'editAdvancedSettings' },
  '/container/{containerId}/advancedSettings': { get: 'getContainerAdvancedSettings', put: 'editContainerAdvancedSettings' },
  '/helm/{helmId}/advancedSettings': { get: 'getHelmAdvancedSettings', put: 'editHelmAdvancedSettings' },
  '/defaultApplicationAdvancedSettings': { get: 'getDefaultApplicationAdvancedSettings' },
  '/defaultClusterAdvancedSettings': { get: 'getDefaultClusterAdvancedSettings' },
  '/defaultContainerAdvancedSettings': { get: 'getDefaultContainerAdvancedSettings' },
  '/defaultJobAdvancedSettings': { get: 'getDefaultJobAdvancedSettings' },
  '/defaultHelmAdvancedSettings': { get: 'getDefaultHelmAdvancedSettings' },
  '/job/{jobId}/deploymentRestriction': { get: 'getJobDeploymentRestrictions', post: 'createJobDeploymentRestriction' },
  '/job/{jobId}/deploymentRestriction/{deploymentRestrictionId}': {
    put: 'editJobDeploymentRestriction',
    delete: 'deleteJobDeploymentRestriction',
  },
  '/application/{applicationId}/deploymentRestriction': {
    get: 'getApplicationDeploymentRestrictions',
    post: 'createApplicationDeploymentRestriction',
  },
  '/application/{applicationId}/deploymentRestriction/{deploymentRestrictionId}': {
    put: 'editApplicationDeploymentRestriction',
    delete: 'deleteApplicationDeploymentRestriction',
  },
  '/helm/{helmId}/deploymentRestriction': { get: 'getHelmDeploymentRestrictions', post: 'createHelmDeploymentRestriction' },
  '/helm/{helmId}/deploymentRestriction/{deploymentRestrictionId}': {
    put: 'editHelmDeploymentRestriction',
    delete: 'deleteHelmDeploymentRestriction',
  },
  '/environment/{environmentId}/clone': { post: 'cloneEnvironment' },
  '/organization/{organizationId}/container/preview': { post: 'previewContainerEnvironments' },
  '/environment/{environmentId}/previews': { get: 'listEnvironmentPreviews' },
  '/environment/{environmentId}/deploymentRule': { get: 'getEnvironmentDeploymentRule' },
  '/environment/{environmentId}/deploymentRule/{deploymentRuleId}': { put: 'editEnvironmentDeploymentRule' },
  '/application/{applicationId}/clone': { post: 'cloneApplication' },
  '/container/{containerId}/clone': { post: 'cloneContainer' },
  '/database/{databaseId}/clone': { post: 'cloneDatabase' },
  '/helm/{helmId}/clone': { post: 'cloneHelm' },
  '/job/{jobId}/clone': { post: 'cloneJob' },
  '/terraform/availableVersion': { get: 'listTerraformVersions' },
  '/environment/{environmentId}/terraform': { get: 'listTerraforms', post: 'createTerraform' },
  '/terraform/{terraformId}': { get: 'getTerraform', put: 'editTerraform', delete: 'deleteTerraform' },
  '/terraform/{terraformId}/commit': { get: 'listTerraformCommit' },
  '/terraform/{terraformId}/terraformResources': { get: 'getTerraformResources' },
  '/defaultTerraformAdvancedSettings': { get: 'getDefaultTerraformAdvancedSettings' },
  '/terraform/{terraformId}/advancedSettings': { get: 'getTerraformAdvancedSettings', put: 'editTerraformAdvancedSettings' },
  '/terraform/{terraformId}/deploy': { post: 'deployTerraform' },
  '/terraform/{terraformId}/redeploy': { post: 'redeployTerraform' },
  '/terraform/{terraformId}/stop': { post: 'stopTerraform' },
  '/terraform/{terraformId}/uninstall': { post: 'uninstallTerraform' },
  '/terraform/{terraformId}/status': { get: 'getTerraformStatus' },
  '/terraform/{terraformId}/deploymentHistoryV2': { get: 'listTerraformDeploymentHistoryV2' },
  '/terraform/{terraformId}/rollback': { post: 'rollbackTerraform' },
  '/terraform/{terraformId}/log': { get: 'listTerraformLog' },
  '/terraform/{terraformId}/log/follow': { get: 'followTerraformLog' },
  '/terraform/{terraformId}/deploymentRestriction': { get: 'getTerraformDeploymentRestrictions', post: 'createTerraformDeploymentRestriction' },
  '/terraform/{terraformId}/deploymentRestriction/{deploymentRestrictionId}': {
    put: 'editTerraformDeploymentRestriction',
    delete: 'deleteTerraformDeploymentRestriction',
  },
  '/terraform/{terraformId}/clone': { post: 'cloneTerraform' },
  // Argo CD (issue 47): the reference's ArgoCD family, and the GITOPS_APP kind's routes (Berth extensions).
  '/cluster/{clusterId}/argoCdConfig': { post: 'saveArgoCdCredentials', get: 'getArgoCdCredentials', delete: 'deleteArgoCdCredentials' },
  '/cluster/{clusterId}/argoCdConfig/check': { post: 'checkArgoCdConnection' },
  '/organization/{organizationId}/argoCdDestinationClusterMapping': {
    post: 'saveArgoCdDestinationClusterMapping',
    get: 'listArgoCdDestinationClusterMappings',
    delete: 'deleteArgoCdDestinationClusterMapping',
  },
  '/argocdApp/{argocdAppId}': { get: 'getArgoCdApp' },
  '/argocdApp/{argocdAppId}/manifest': { get: 'getArgoCdAppManifest' },
  '/cluster/{clusterId}/argocdApps/associatedServices': { get: 'getArgoCdAssociatedServices' },
  '/environment/{environmentId}/gitopsapp': { get: 'listGitopsApp', post: 'createGitopsApp' },
  '/gitopsapp/{gitopsappId}': { get: 'getGitopsApp', put: 'editGitopsApp', delete: 'deleteGitopsApp' },
  '/gitopsapp/{gitopsappId}/deploy': { post: 'deployGitopsApp' },
  '/gitopsapp/{gitopsappId}/redeploy': { post: 'redeployGitopsApp' },
  '/gitopsapp/{gitopsappId}/stop': { post: 'stopGitopsApp' },
  '/gitopsapp/{gitopsappId}/uninstall': { post: 'uninstallGitopsApp' },
  '/gitopsapp/{gitopsappId}/status': { get: 'getGitopsAppStatus' },
  '/gitopsapp/{gitopsappId}/deploymentHistoryV2': { get: 'listGitopsAppDeploymentHistoryV2' },
  '/gitopsapp/{gitopsappId}/rollback': { post: 'rollbackGitopsApp' },
  '/gitopsapp/{gitopsappId}/log': { get: 'listGitopsAppLog' },
  '/gitopsapp/{gitopsappId}/log/follow': { get: 'followGitopsAppLog' },
  '/gitopsapp/{gitopsappId}/clone': { post: 'cloneGitopsApp' },
  '/environment/{environmentId}/services': { get: 'listServicesByEnvironmentId' },
  // Applications (issue 19).
  '/environment/{environmentId}/application': { get: 'listApplication', post: 'createApplication' },
  '/application/{applicationId}': { get: 'getApplication', put: 'editApplication', delete: 'deleteApplication' },
  '/application/{applicationId}/commit': { get: 'listApplicationCommit' },
  '/application/{applicationId}/contributor': { get: 'listApplicationContributor' },
  '/application/{applicationId}/link': { get: 'listApplicationLinks' },
  '/application/{applicationId}/deploy': { post: 'deployApplication' },
  '/application/{applicationId}/redeploy': { post: 'redeployApplication' },
  '/application/{applicationId}/restart-service': { post: 'rebootApplication' },
  '/application/{applicationId}/stop': { post: 'stopApplication' },
  '/application/{applicationId}/uninstall': { post: 'uninstallApplication' },
  '/application/{applicationId}/status': { get: 'getApplicationStatus' },
  '/application/{applicationId}/deploymentHistoryV2': { get: 'listApplicationDeploymentHistoryV2' },
  '/environment/{environmentId}/statuses': { get: 'getEnvironmentStatuses' },
  '/environment/{environmentId}/statusesWithStages': { get: 'getEnvironmentStatusesWithStages' },
  '/environment/{environmentId}/service/deploy': { post: 'deployAllServices' },
  '/environment/{environmentId}/service/restart-service': { post: 'rebootServices' },
  '/environment/{environmentId}/service/stop': { post: 'stopSelectedServices' },
  '/environment/{environmentId}/service/uninstall': { post: 'uninstallSelectedServices' },
  '/environment/{environmentId}/service/delete': { post: 'deleteSelectedServices' },
  '/environment/{environmentId}/deploymentStage': { get: 'ListEnvironmentDeploymentStage', post: 'CreateEnvironmentDeploymentStage' },
  '/deploymentStage/{deploymentStageId}': { get: 'getDeploymentStage', put: 'EditDeploymentStage', delete: 'DeleteDeploymentStage' },
  '/deploymentStage/{deploymentStageId}/moveBefore/{stageId}': { put: 'MoveBeforeDeploymentStage' },
  '/deploymentStage/{deploymentStageId}/moveAfter/{stageId}': { put: 'MoveAfterDeploymentStage' },
  '/deploymentStage/{deploymentStageId}/service/{serviceId}': { put: 'AttachServiceToDeploymentStage' },
  '/service/{serviceId}/deploymentStage': { get: 'getServiceDeploymentStage' },
  '/environment/{environmentId}/deploymentQueue': { get: 'listDeploymentRequestByEnvironmentId' },
  '/service/{serviceId}/deploymentQueue': { get: 'listDeploymentRequestByServiceId' },
  '/deploymentQueue/{deploymentRequestId}/cancelDeployment': { post: 'cancelDeploymentRequest' },
  '/environment/{environmentId}/logs': { get: 'listEnvironmentLogs' },
  '/environment/{environmentId}/logs/follow': { get: 'followEnvironmentLogs' },
  // Service logs (issue 35): the reference's for applications and containers, Berth's for the other kinds and the followers.
  '/helm/{helmId}/log': { get: 'listHelmLog' },
  '/helm/{helmId}/log/follow': { get: 'followHelmLog' },
  '/database/{databaseId}/log': { get: 'listDatabaseLog' },
  '/database/{databaseId}/log/follow': { get: 'followDatabaseLog' },
  '/container/{containerId}/log': { get: 'listContainerLog' },
  '/container/{containerId}/log/follow': { get: 'followContainerLog' },
  '/application/{applicationId}/log': { get: 'listApplicationLog' },
  '/application/{applicationId}/log/follow': { get: 'followApplicationLog' },
  '/job/{jobId}/log': { get: 'listJobLog' },
  '/job/{jobId}/log/follow': { get: 'followJobLog' },
  // Variables and secrets: the generic API and the per-scope ones (ids as in the reference).
  '/project/{projectId}/environmentVariable': { post: 'createProjectEnvironmentVariable', get: 'listProjectEnvironmentVariable' },
  '/project/{projectId}/environmentVariable/{environmentVariableId}': {
    delete: 'deleteProjectEnvironmentVariable',
    put: 'editProjectEnvironmentVariable',
  },
  '/project/{projectId}/environmentVariable/{environmentVariableId}/override': { post: 'createProjectEnvironmentVariableOverride' },
  '/project/{projectId}/environmentVariable/{environmentVariableId}/alias': { post: 'createProjectEnvironmentVariableAlias' },
  '/project/{projectId}/secret': { get: 'listProjectSecrets', post: 'createProjectSecret' },
  '/project/{projectId}/secret/{secretId}': { delete: 'deleteProjectSecret', put: 'editProjectSecret' },
  '/project/{projectId}/secret/{secretId}/override': { post: 'createProjectSecretOverride' },
  '/project/{projectId}/secret/{secretId}/alias': { post: 'createProjectSecretAlias' },
  '/environment/{environmentId}/environmentVariable': { get: 'listEnvironmentEnvironmentVariable', post: 'createEnvironmentEnvironmentVariable' },
  '/environment/{environmentId}/environmentVariable/{environmentVariableId}': {
    delete: 'deleteEnvironmentEnvironmentVariable',
    put: 'editEnvironmentEnvironmentVariable',
  },
  '/environment/{environmentId}/environmentVariable/{environmentVariableId}/override': { post: 'createEnvironmentEnvironmentVariableOverride' },
  '/environment/{environmentId}/environmentVariable/{environmentVariableId}/alias': { post: 'createEnvironmentEnvironmentVariableAlias' },
  '/environment/{environmentId}/secret': { get: 'listEnvironmentSecrets', post: 'createEnvironmentSecret' },
  '/environment/{environmentId}/secret/{secretId}': { delete: 'deleteEnvironmentSecret', put: 'editEnvironmentSecret' },
  '/environment/{environmentId}/secret/{secretId}/override': { post: 'createEnvironmentSecretOverride' },
  '/environment/{environmentId}/secret/{secretId}/alias': { post: 'createEnvironmentSecretAlias' },
  '/application/{applicationId}/environmentVariable': { get: 'listApplicationEnvironmentVariable', post: 'createApplicationEnvironmentVariable' },
  '/application/{applicationId}/environmentVariable/import': { post: 'importEnvironmentVariable' },
  '/application/{applicationId}/environmentVariable/{environmentVariableId}': {
    delete: 'deleteApplicationEnvironmentVariable',
    put: 'editApplicationEnvironmentVariable',
  },
  '/application/{applicationId}/environmentVariable/{environmentVariableId}/override': { post: 'createApplicationEnvironmentVariableOverride' },
  '/application/{applicationId}/environmentVariable/{environmentVariableId}/alias': { post: 'createApplicationEnvironmentVariableAlias' },
  '/application/{applicationId}/secret': { get: 'listApplicationSecrets', post: 'createApplicationSecret' },
  '/application/{applicationId}/secret/{secretId}': { delete: 'deleteApplicationSecret', put: 'editApplicationSecret' },
  '/application/{applicationId}/secret/{secretId}/override': { post: 'createApplicationSecretOverride' },
  '/application/{applicationId}/secret/{secretId}/alias': { post: 'createApplicationSecretAlias' },
  '/container/{containerId}/environmentVariable': { get: 'listContainerEnvironmentVariable', post: 'createContainerEnvironmentVariable' },
  '/container/{containerId}/environmentVariable/import': { post: 'importContainerEnvironmentVariable' },
  '/container/{containerId}/environmentVariable/{environmentVariableId}': {
    delete: 'deleteContainerEnvironmentVariable',
    put: 'editContainerEnvironmentVariable',
  },
  '/container/{containerId}/environmentVariable/{environmentVariableId}/override': { post: 'createContainerEnvironmentVariableOverride' },
  '/container/{containerId}/environmentVariable/{environmentVariableId}/alias': { post: 'createContainerEnvironmentVariableAlias' },
  '/container/{containerId}/secret': { get: 'listContainerSecrets', post: 'createContainerSecret' },
  '/container/{containerId}/secret/{secretId}': { delete: 'deleteContainerSecret', put: 'editContainerSecret' },
  '/container/{containerId}/secret/{secretId}/override': { post: 'createContainerSecretOverride' },
  '/container/{containerId}/secret/{secretId}/alias': { post: 'createContainerSecretAlias' },
  '/job/{jobId}/environmentVariable': { get: 'listJobEnvironmentVariable', post: 'createJobEnvironmentVariable' },
  '/job/{jobId}/environmentVariable/import': { post: 'importJobEnvironmentVariable' },
  '/job/{jobId}/environmentVariable/{environmentVariableId}': { delete: 'deleteJobEnvironmentVariable', put: 'editJobEnvironmentVariable' },
  '/job/{jobId}/environmentVariable/{environmentVariableId}/override': { post: 'createJobEnvironmentVariableOverride' },
  '/job/{jobId}/environmentVariable/{environmentVariableId}/alias': { post: 'createJobEnvironmentVariableAlias' },
  '/job/{jobId}/secret': { get: 'listJobSecrets', post: 'createJobSecret' },
  '/job/{jobId}/secret/{secretId}': { delete: 'deleteJobSecret', put: 'editJobSecret' },
  '/job/{jobId}/secret/{secretId}/override': { post: 'createJobSecretOverride' },
  '/job/{jobId}/secret/{secretId}/alias': { post: 'createJobSecretAlias' },
  '/variable': { get: 'listVariables', post: 'createVariable' },
  '/variable/{variableId}/alias': { post: 'createVariableAlias' },
  '/variable/{variableId}/override': { post: 'createVariableOverride' },
  '/variable/{variableId}': { delete: 'deleteVariable', put: 'editVariable' },
  '/variable/import': { post: 'importEnvironmentVariables' },
  // Berth extensions: git pushes deploy (docs/git-push.md, "Deploying on git push").
  '/organization/{organizationId}/gitWebhookSecret': {
    get: 'getGitWebhookSecret',
    post: 'rotateGitWebhookSecret',
    delete: 'deleteGitWebhookSecret',
  },
  '/organization/{organizationId}/gitWebhook/github': { post: 'receiveGithubWebhook' },
  '/organization/{organizationId}/gitWebhook/gitlab': { post: 'receiveGitlabWebhook' },
  '/organization/{organizationId}/gitWebhook/bitbucket': { post: 'receiveBitbucketWebhook' },
  // Custom domains (issue 20).
  '/application/{applicationId}/customDomain': { get: 'listApplicationCustomDomain', post: 'createApplicationCustomDomain' },
  '/application/{applicationId}/customDomain/{customDomainId}': { put: 'editCustomDomain', delete: 'deleteCustomDomain' },
  '/application/{applicationId}/customDomain/{customDomainId}/status': { get: 'getCustomDomainStatus' },
  '/application/{applicationId}/checkCustomDomain': { get: 'checkApplicationCustomDomain' },
  '/container/{containerId}/customDomain': { get: 'listContainerCustomDomain', post: 'createContainerCustomDomain' },
  '/container/{containerId}/customDomain/{customDomainId}': { put: 'editContainerCustomDomain', delete: 'deleteContainerCustomDomain' },
  '/container/{containerId}/customDomain/{customDomainId}/status': { get: 'getContainerCustomDomainStatus' },
  '/container/{containerId}/checkCustomDomain': { get: 'checkContainerCustomDomain' },
  '/helm/{helmId}/customDomain': { get: 'listHelmCustomDomain', post: 'createHelmCustomDomain' },
  '/helm/{helmId}/customDomain/{customDomainId}': { put: 'editHelmCustomDomain', delete: 'deleteHelmCustomDomain', get: 'getHelmCustomDomain' },
  '/helm/{helmId}/checkCustomDomain': { get: 'checkHelmCustomDomain' },
  '/helm/{helmId}/link': { get: 'listHelmLinks' },
  // Organization extras (issue 20): labels and annotations groups, invitations.
  '/organization/{organizationId}/labelsGroups': { get: 'listOrganizationLabelsGroup', post: 'createOrganizationLabelsGroup' },
  '/organization/{organizationId}/labelsGroups/{labelsGroupId}': {
    get: 'getOrganizationLabelssGroup',
    put: 'editOrganizationLabelsGroup',
    delete: 'deleteOrganizationLabelsGroup',
  },
  '/organization/{organizationId}/labelsGroups/{labelsGroupId}/associatedItems': { get: 'getOrganizationLabelsGroupAssociatedItems' },
  '/organization/{organizationId}/annotationsGroups': { get: 'listOrganizationAnnotationsGroup', post: 'createOrganizationAnnotationsGroup' },
  '/organization/{organizationId}/annotationsGroups/{annotationsGroupId}': {
    get: 'getOrganizationAnnotationsGroup',
    put: 'editOrganizationAnnotationsGroup',
    delete: 'deleteOrganizationAnnotationsGroup',
  },
  '/organization/{organizationId}/annotationsGroups/{annotationsGroupId}/associatedItems': { get: 'getOrganizationAnnotationsGroupAssociatedItems' },
  '/organization/{organizationId}/inviteMember': { get: 'getOrganizationInvitedMembers', post: 'postInviteMember' },
  '/organization/{organizationId}/inviteMember/{inviteId}': {
    get: 'getMemberInvitation',
    post: 'postAcceptInviteMember',
    delete: 'deleteInviteMember',
  },
  '/organization/{organizationId}/customRole': { get: 'listOrganizationCustomRoles', post: 'createOrganizationCustomRole' },
  '/organization/{organizationId}/customRole/{customRoleId}': {
    get: 'getOrganizationCustomRole',
    put: 'editOrganizationCustomRole',
    delete: 'deleteOrganizationCustomRole',
  },
  // Rollbacks (issue 35, docs/rollbacks.md).
  '/environment/{environmentId}/rollback': { post: 'rollbackEnvironment' },
  '/application/{applicationId}/rollback': { post: 'rollbackApplication' },
  '/container/{containerId}/rollback': { post: 'rollbackContainer' },
  '/database/{databaseId}/rollback': { post: 'rollbackDatabase' },
  '/job/{jobId}/rollback': { post: 'rollbackJob' },
  '/helm/{helmId}/rollback': { post: 'rollbackHelm' },
  // Issue 48: projects' deployment rules (docs/deployment-rules.md).
  '/project/{projectId}/deploymentRule': { get: 'listProjectDeploymentRules', post: 'createDeploymentRule' },
  '/project/{projectId}/deploymentRule/order': { put: 'updateDeploymentRulesPriorityOrder' },
  '/project/{projectId}/deploymentRule/{deploymentRuleId}': {
    get: 'getProjectDeploymentRule',
    put: 'editProjectDeployemtnRule',
    delete: 'deleteProjectDeploymentRule',
  },
  // Issue 48: clusters' locks, environments and readiness (docs/clusters.md).
  '/cluster/{clusterId}/lock': { post: 'lockCluster', delete: 'unlock-cluster' },
  '/organization/{organizationId}/lock': { get: 'list-cluster-lock' },
  '/cluster/{clusterId}/environments': { get: 'get-environments-by-cluster-id' },
  '/cluster/{clusterId}/events': { get: 'get-cluster-kubernetes-events' },
  '/organization/{organizationId}/cluster/{clusterId}/isReady': { get: 'getClusterReadinessStatus' },
  // Issue 48: on-premise credentials, the organization's credentials, policy API tokens, clusters' logs, values, DNS provider, upgrade, token.
  '/organization/{organizationId}/onPremise/credentials': { get: 'listOnPremiseCredentials', post: 'createOnPremiseCredentials' },
  '/organization/{organizationId}/onPremise/credentials/{credentialsId}': {
    get: 'getOnPremiseCredentials',
    put: 'editOnPremiseCredentials',
    delete: 'deleteOnPremiseCredentials',
  },
  '/organization/{organizationId}/credentials': { get: 'listOrganizationCredentials' },
  '/organization/{organizationId}/policyApiToken': { get: 'listOrganizationPolicyApiTokens', post: 'createOrganizationPolicyApiToken' },
  '/organization/{organizationId}/policyApiToken/{policyApiTokenId}': { delete: 'deleteOrganizationPolicyApiToken' },
  '/organization/{organizationId}/cluster/{clusterId}/logs': { get: 'listClusterLogs' },
  '/cluster/{clusterId}/logs': { get: 'get-cluster-logs' },
  '/organization/{organizationId}/cluster/{clusterId}/installationHelmValues': { get: 'getInstallationHelmValues' },
  '/cluster/{clusterId}/dnsProvider': { get: 'getClusterDnsProvider', put: 'editClusterDnsProvider' },
  '/cluster/{clusterId}/upgrade': { post: 'upgradeCluster' },
  '/cluster/{clusterId}/token': { get: 'get-cluster-token-by-clusterId' },
  // Issue 48: checks before a deploy (docs/checks.md).
  '/environment/{environmentId}/checkDockerfile': { post: 'checkDockerfile' },
  '/environment/{environmentId}/checkGitFile': { post: 'checkGitFile' },
  '/environment/{environmentId}/checkHelmRepository': { post: 'checkHelmRepository' },
  '/environment/{environmentId}/checkContainerImage': { post: 'checkContainerImage' },
  '/organization/{organizationId}/helmRepository/{helmRepositoryId}/charts': { get: 'getHelmCharts' },
  '/availableHelmRepository': { get: 'listAvailableHelmRepository' },
  '/environment/{environmentId}/link': { get: 'listEnvironmentServicesLinks' },
  '/environment/{environmentId}/terraformExport': { get: 'exportEnvironmentConfigurationIntoTerraform' },
  // Issue 48: per-kind views and the organization's own views (docs/organization-views.md).
  '/environment/{environmentId}/application/status': { get: 'getEnvironmentApplicationStatus' },
  '/environment/{environmentId}/database/status': { get: 'getEnvironmentDatabaseStatus' },
  '/environment/{environmentId}/helm/status': { get: 'getEnvironmentHelmStatus' },
  '/environment/{environmentId}/job/status': { get: 'getEnvironmentJobStatus' },
  '/application/{applicationId}/deploymentHistory': { get: 'listApplicationDeploymentHistory' },
  '/container/{containerId}/deploymentHistory': { get: 'listContainerDeploymentHistory' },
  '/database/{databaseId}/deploymentHistory': { get: 'listDatabaseDeploymentHistory' },
  '/helm/{helmId}/deploymentHistory': { get: 'listHelmDeploymentHistory' },
  '/job/{jobId}/deploymentHistory': { get: 'listJobDeploymentHistory' },
  '/environment/{environmentId}/log': { get: 'listEnvironmentLog' },
  '/environment/deploymentStatus': { get: 'getDeploymentStatusByDeploymentRequestId' },
  '/environment/{environmentId}/uninstall': { post: 'uninstallEnvironment' },
  '/helm/{helmId}/commit': { get: 'listHelmCommit' },
  '/helm/{helmId}/listServices': { get: 'getHelmKubernetesServices' },
  '/database/{databaseId}/application': { get: 'listDatabaseApplication' },
  '/database/{databaseId}/application/{targetApplicationId}': { delete: 'removeApplicationFromDatabase' },
  '/job/{jobId}/cleanFailedJob': { post: 'cleanFailedJob' },
  '/environment/{environmentId}/cleanFailedJobs': { post: 'cleanFailedJobs' },
  '/environment/{environmentId}/helmDefaultValues': { post: 'createHelmDefaultValues' },
  '/{serviceType}/{serviceId}/ingressDeploymentStatus': { get: 'getIngressDeploymentStatus' },
  '/service/{serviceId}/gitWebhookStatus': { get: 'getServiceGitWebhookStatus' },
  '/service/{serviceId}/gitWebhook/sync': { post: 'syncServiceGitWebhook' },
  '/job/{jobId}/commit': { get: 'listJobCommit' },
  '/organization/{organizationId}/services': { get: 'listServicesByOrganizationId' },
  '/organization/{organizationId}/environments': { get: 'listEnvironmentsByOrganizationId' },
  '/organization/{organizationId}/project/stats': { get: 'getOrganizationProjectStats' },
  '/project/{projectId}/environment/stats': { get: 'getProjectEnvironmentServiceNumber' },
  '/project/{projectId}/environment/overview': { get: 'getProjectEnvironmentsOverview' },
  '/organization/{organizationId}/gitToken/{gitTokenId}/associatedServices': { get: 'getGitTokenAssociatedServices' },
  '/organization/{organizationId}/helmRepository/{helmRepositoryId}/associatedServices': { get: 'getHelmRepositoryAssociatedServices' },
  '/organization/{organizationId}/availableRole': { get: 'listOrganizationAvailableRoles' },
  '/organization/{organizationId}/onboarding': { get: 'getOrganizationOnboarding', post: 'updateOrganizationOnboarding' },
  '/organization/{organizationId}/transferOwnership': { post: 'postOrganizationTransferOwnership' },
  '/organization/{organizationId}/listDirectoriesFromGitRepository': { post: 'listDirectoriesFromGitRepository' },
  '/organization/{organizationId}/parseTerraformVariablesFromGitRepo': { post: 'parseTerraformVariablesFromGitRepo' },
  '/organization/{organizationId}/listTfVarsFilesFromGitRepo': { post: 'listTfVarsFilesFromGitRepo' },
  '/organization/{organizationId}/container/deploy': { post: 'autoDeployContainerEnvironments' },
  '/organization/{organizationId}/job/deploy': { post: 'autoDeployJobEnvironments' },
  '/application/{applicationId}/network': { get: 'getApplicationNetwork', put: 'editApplicationNetwork' },
  '/container/{containerId}/network': { get: 'getContainerNetwork', put: 'editContainerNetwork' },
  '/organization/{organizationId}/alert-receivers': { get: 'getAlertReceivers' },
  '/alert-receivers': { post: 'createAlertReceiver' },
  '/alert-receivers/validate': { post: 'validateNewAlertReceiver' },
  '/alert-receivers/{alertReceiverId}': { get: 'getAlertReceiver', put: 'editAlertReceiver', delete: 'deleteAlertReceiver' },
  '/alert-receivers/{alertReceiverId}/validate': { post: 'validateExistingAlertReceiver' },
  '/organization/{organizationId}/alert-rules': { get: 'getAlertRules' },
  '/alert-rules': { post: 'createAlertRule' },
  '/alert-rules/{alertRuleId}': { get: 'getAlertRule', put: 'editAlertRule', delete: 'deleteAlertRule' },
  '/cluster/{clusterId}/metrics': { get: 'get-cluster-metrics' },
}

/** Operations git providers call, signed with the organization's webhook secret: no Authorization scheme, and 200 with what was done. */
const WEBHOOK_OPERATIONS = new Set(['receiveGithubWebhook', 'receiveGitlabWebhook', 'receiveBitbucketWebhook'])

/** Operations whose success the reference gives as 200 where Berth's rule would say 201 or 202. */
const ANSWER_200 = new Set([
  'createProject',
  'cleanFailedJob',
  'cleanFailedJobs',
  'syncServiceGitWebhook',
  'updateOrganizationOnboarding',
  'listDirectoriesFromGitRepository',
  'parseTerraformVariablesFromGitRepo',
  'listTfVarsFilesFromGitRepo',
  'CreateEnvironmentDeploymentStage',
  'stopSelectedServices',
  'uninstallSelectedServices',
  'deleteSelectedServices',
  'saveArgoCdCredentials',
  'checkArgoCdConnection',
  'saveArgoCdDestinationClusterMapping',
  'lockCluster',
  'checkDockerfile',
  'checkGitFile',
  'checkHelmRepository',
  'checkContainerImage',
  'validateNewAlertReceiver',
  'validateExistingAlertReceiver',
])

const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'])

/** Every `$ref` value anywhere in a JSON value. */
function refs(value: unknown, found: string[] = []): string[] {
  if (Array.isArray(value)) for (const item of value) refs(item, found)
  else if (value && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) {
      if (key === '$ref' && typeof child === 'string') found.push(child)
      else refs(child, found)
    }
  }
  return found
}

function operations(doc: Document): [string, string, Operation][] {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => HTTP_METHODS.has(method))
      .map(([method, op]) => [path, method, op] as [string, string, Operation]),
  )
}

describe('OpenAPI document', () => {
  let t: TestApp
  let doc: Document
  before(async () => {
    t = await createTestApp()
    const res = await t.app.inject({ method: 'GET', url: '/openapi.json' })
    assert.equal(res.statusCode, 200)
    assert.match(String(res.headers['content-type']), /^application\/json/)
    doc = res.json()
  })
  after(async () => t.close())

  it('is an OpenAPI 3.1 document for version 1.0.4 of the contract', () => {
    assert.equal(doc.openapi, '3.1.0')
    assert.equal(typeof doc.info.title, 'string')
    assert.ok(doc.info.title.length > 0)
    assert.equal(doc.info.version, '1.0.4')
    assert.equal(typeof doc.paths, 'object')
  })

  it('describes exactly the served API routes, with their operationIds', () => {
    assert.deepEqual(Object.keys(doc.paths).sort(), Object.keys(EXPECTED_OPERATIONS).sort())
    for (const [path, methods] of Object.entries(EXPECTED_OPERATIONS)) {
      const served = Object.fromEntries(
        Object.entries(doc.paths[path]!)
          .filter(([method]) => HTTP_METHODS.has(method))
          .map(([method, op]) => [method, op.operationId]),
      )
      assert.deepEqual(served, methods, path)
    }
  })

  it('gives every operation a unique operationId', () => {
    const ids = operations(doc).map(([, , op]) => op.operationId)
    assert.equal(new Set(ids).size, ids.length)
  })

  it('declares every path template variable as a required path parameter', () => {
    for (const [path, method, op] of operations(doc)) {
      const variables = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort()
      const declared = (op.parameters ?? [])
        .filter((p) => p.in === 'path')
        .map((p) => p.name)
        .sort()
      assert.deepEqual(declared, variables, `${method} ${path}`)
      for (const p of (op.parameters ?? []).filter((p) => p.in === 'path')) assert.equal(p.required, true)
    }
  })

  it('offers the ApiKeyAuth and bearerAuth security schemes on the Authorization header', () => {
    const schemes = doc.components.securitySchemes
    assert.deepEqual(Object.keys(schemes).sort(), ['ApiKeyAuth', 'bearerAuth'])
    assert.equal(schemes.ApiKeyAuth!.type, 'apiKey')
    assert.equal(schemes.ApiKeyAuth!.in, 'header')
    assert.equal(schemes.ApiKeyAuth!.name, 'Authorization')
    assert.equal(schemes.bearerAuth!.type, 'http')
    assert.equal(schemes.bearerAuth!.scheme, 'bearer')
  })

  it('requires either scheme on every operation but the webhooks, which require none', () => {
    for (const [path, method, op] of operations(doc)) {
      if (WEBHOOK_OPERATIONS.has(op.operationId ?? '')) {
        assert.deepEqual(op.security, [], `${method} ${path}`)
        continue
      }
      const names = (op.security ?? []).flatMap((requirement) => Object.keys(requirement)).sort()
      assert.deepEqual(names, ['ApiKeyAuth', 'bearerAuth'], `${method} ${path}`)
    }
  })

  it('names the shared error schema ErrorResponse, never def-N', () => {
    assert.ok(doc.components.schemas.ErrorResponse, 'components.schemas.ErrorResponse is missing')
    for (const name of Object.keys(doc.components.schemas)) assert.doesNotMatch(name, /^def-\d+$/)
    for (const ref of refs(doc)) assert.doesNotMatch(ref, /def-\d+/)
  })

  it('describes the error body fields in ErrorResponse', () => {
    const schema = doc.components.schemas.ErrorResponse as { required: string[]; properties: Record<string, unknown> }
    assert.deepEqual([...schema.required].sort(), ['code', 'detail', 'error', 'message', 'request_id', 'status'])
    assert.ok('errors' in schema.properties)
  })

  it('references ErrorResponse for the 4XX and 5XX responses of every operation', () => {
    for (const [path, method, op] of operations(doc)) {
      for (const status of ['4XX', '5XX']) {
        const ref = op.responses[status]?.content?.['application/json']?.schema?.$ref
        assert.equal(ref, '#/components/schemas/ErrorResponse', `${method} ${path} ${status}`)
      }
    }
  })

  it('documents the error statuses of every operation with their causes, and body errors where a body is taken', () => {
    for (const [path, method, op] of operations(doc)) {
      const expected = [
        ...['400', '401', '403', '500', '503'],
        ...(path.includes('{') ? ['404'] : []),
        ...(method === 'post' || method === 'put' ? ['409', '413', '415'] : []),
      ]
      for (const status of expected) {
        const response = op.responses[status]
        assert.equal(response?.content?.['application/json']?.schema?.$ref, '#/components/schemas/ErrorResponse', `${method} ${path} ${status}`)
        assert.ok(response?.description && response.description !== 'Default Response', `${method} ${path} ${status} has no description`)
      }
      if (!path.includes('{')) assert.equal(op.responses['404'], undefined, `${method} ${path} cannot answer 404`)
    }
  })

  it('documents a success response for every operation: 204 for deletes, 202 for deployment triggers', () => {
    for (const [path, method, op] of operations(doc)) {
      const success = Object.keys(op.responses).filter((status) => /^2\d\d$/.test(status))
      if (method === 'delete') assert.deepEqual(success, ['204'])
      // An uninstall that finds the chart not installed triggers nothing: 204, as the reference says.
      else if (
        [
          'uninstallHelm',
          'uninstallDatabase',
          'uninstallContainer',
          'uninstallApplication',
          'uninstallJob',
          'uninstallTerraform',
          'uninstallGitopsApp',
        ].includes(op.operationId ?? '')
      )
        assert.deepEqual(success, ['202', '204'])
      // The reference answers 200, not 201 or 202, to these.
      else if (ANSWER_200.has(op.operationId ?? '') || WEBHOOK_OPERATIONS.has(op.operationId ?? ''))
        assert.deepEqual(success, ['200'], `${method} ${path}`)
      // The reference answers 201 to deployCluster: a cluster's deploy is no deployment of services.
      else if (op.operationId === 'deployCluster') assert.deepEqual(success, ['201'], `${method} ${path}`)
      // Issue 48: an ownership transfer answers 204, and an environment's uninstall queues a deployment (202), as the reference says.
      else if (op.operationId === 'postOrganizationTransferOwnership') assert.deepEqual(success, ['204'], `${method} ${path}`)
      else if (op.operationId === 'uninstallEnvironment') assert.deepEqual(success, ['202'], `${method} ${path}`)
      else if (method === 'post' && /\/(deploy|redeploy|stop|cancelDeployment|restart-service|clone|rollback|container\/preview)$/.test(path))
        assert.deepEqual(success, ['202'], `${method} ${path}`)
      else if (method === 'post') assert.deepEqual(success, ['201'], `${method} ${path}`)
      else assert.equal(success.length, 1, `${method} ${path}`)
    }
  })

  it('resolves every local $ref to a component', () => {
    for (const ref of refs(doc)) {
      const match = /^#\/components\/schemas\/(.+)$/.exec(ref)
      assert.ok(match, `non-local ref ${ref}`)
      assert.ok(doc.components.schemas[match[1]!], `dangling ref ${ref}`)
    }
  })

  it('hides /healthz, /openapi.json and /docs', () => {
    for (const hidden of ['/healthz', '/openapi.json']) assert.equal(doc.paths[hidden], undefined, hidden)
    for (const path of Object.keys(doc.paths)) assert.doesNotMatch(path, /^\/docs/)
  })

  it('serves the docs page as HTML without credentials', async () => {
    let url = '/docs'
    let res = await t.app.inject({ method: 'GET', url })
    for (let hops = 0; res.statusCode >= 300 && res.statusCode < 400 && hops < 5; hops++) {
      url = new URL(String(res.headers.location), 'http://localhost').pathname
      res = await t.app.inject({ method: 'GET', url })
    }
    assert.equal(res.statusCode, 200)
    assert.match(String(res.headers['content-type']), /^text\/html/)
    assert.match(res.body, /<html/i)
    // A content security policy that still works over plain HTTP on a private network.
    const csp = String(res.headers['content-security-policy'])
    assert.match(csp, /default-src 'self'/)
    assert.doesNotMatch(csp, /upgrade-insecure-requests/)
  })
})
