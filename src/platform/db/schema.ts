import type { ColumnType, Generated } from 'kysely'

/** Kysely's view of the tables, in camelCase (the CamelCasePlugin maps to snake_case SQL). */
export interface Database {
  organizations: OrganizationsTable
  apiTokens: ApiTokensTable
  users: UsersTable
  organizationMembers: OrganizationMembersTable
  clusters: ClustersTable
  projects: ProjectsTable
  environments: EnvironmentsTable
  gitTokens: GitTokensTable
  helmRepositories: HelmRepositoriesTable
  containerRegistries: ContainerRegistriesTable
  deploymentStages: DeploymentStagesTable
  services: ServicesTable
  serviceReferences: ServiceReferencesTable
  deploymentSnapshots: DeploymentSnapshotsTable
  variables: VariablesTable
  deploymentLogs: DeploymentLogsTable
  serviceRunOutputs: ServiceRunOutputsTable
  iacStates: IacStatesTable
  deploymentRequests: DeploymentRequestsTable
  serviceDeployments: ServiceDeploymentsTable
  environmentHistoryVersions: EnvironmentHistoryVersionsTable
  gitWebhookSecrets: GitWebhookSecretsTable
  gitWebhookDeliveries: GitWebhookDeliveriesTable
  cronJobSchedules: CronJobSchedulesTable
  serviceAdvancedSettings: ServiceAdvancedSettingsTable
  environmentDeletions: EnvironmentDeletionsTable
  deploymentRestrictions: DeploymentRestrictionsTable
  customDomains: CustomDomainsTable
  previewEnvironments: PreviewEnvironmentsTable
  environmentDeploymentRules: EnvironmentDeploymentRulesTable
  organizationGroups: OrganizationGroupsTable
  memberInvitations: MemberInvitationsTable
  customRoles: CustomRolesTable
  frontDoorReadyInstances: FrontDoorReadyInstancesTable
  organizationWebhooks: OrganizationWebhooksTable
  webhookDeliveries: WebhookDeliveriesTable
  webhookAttempts: WebhookAttemptsTable
  auditEvents: AuditEventsTable
}

/** Set by the database on insert. */
type CreatedAt = ColumnType<Date, Date | undefined, never>
type UpdatedAt = ColumnType<Date, Date | undefined, Date>

export interface OrganizationsTable {
  id: Generated<string>
  name: string
  description: string | null
  plan: string
  websiteUrl: string | null
  repository: string | null
  logoUrl: string | null
  iconUrl: string | null
  adminEmails: string[] | null
  /** An API token that created the organization through the API; cleared when that token is deleted. */
  creatorApiTokenId: string | null
  /**
   * The organization of the API token that created this one, set at creation and never changed:
   * its ADMINs manage this organization too (migration 0009). Null for organizations made by users
   * or by `berth token create`.
   */
  parentOrganizationId: ColumnType<string | null, string | null | undefined, never>
  /** Issue 48 (migration 0062): IN_PROGRESS, DISMISSED or COMPLETED, as updateOrganizationOnboarding last set it. */
  onboardingStatus: ColumnType<string, string | undefined, string>
  createdAt: CreatedAt
  updatedAt: UpdatedAt
}

export interface ApiTokensTable {
  id: Generated<string>
  organizationId: string
  name: string
  description: string | null
  role: string
  /** SHA-256 of the whole token; the token itself is never stored. */
  digest: Buffer
  /** The first characters of the token, safe to show so people can tell tokens apart. */
  tokenStart: string
  createdByApiTokenId: string | null
  /** The user who created the token with a Bearer JWT; null when a token or the CLI created it. */
  createdByUserId: ColumnType<string | null, string | null | undefined, string | null>
  /** The member whose role bounds the token: its creating user, or the owner of its creating token. */
  ownerUserId: ColumnType<string | null, string | null | undefined, string | null>
  /** The custom role held (migration 0025); `role` is then READ. */
  customRoleId: ColumnType<string | null, string | null | undefined, string | null>
  /** A policy token's rego policy (migration 0066), evaluated on each of its requests; null for other tokens. */
  opaPolicy: ColumnType<string | null, string | null | undefined, string | null>
  createdAt: CreatedAt
  updatedAt: UpdatedAt
  expiredAt: Date | null
  lastUsedAt: Date | null
}

/** A subject of the OpenID Connect issuer, created when it first calls with a JWT. */
export interface UsersTable {
  id: Generated<string>
  issuer: string
  subject: string
  name: string | null
  email: string | null
  /** Issue 48 (migration 0062): the email editAccountInformation set; null: `email`. */
  communicationEmail: ColumnType<string | null, string | null | undefined, string | null>
  createdAt: CreatedAt
  updatedAt: UpdatedAt
}

export interface OrganizationMembersTable {
  organizationId: string
  userId: string
  role: string
  /** The custom role held (migration 0025); `role` is then READ. */
  customRoleId: ColumnType<string | null, string | null | undefined, string | null>
  /** A policy token's rego policy (migration 0066), evaluated on each of its requests; null for other tokens. */
  opaPolicy: ColumnType<string | null, string | null | undefined, string | null>
  createdAt: CreatedAt
  updatedAt: UpdatedAt
}

export interface ClusterRoute {
  destination: string
  target: string
  description: string
}

export interface ClusterCloudProviderInfo {
  cloud_provider?: string
  credentials?: { id?: string; name?: string }
  region?: string
}

export interface ClustersTable {
  id: Generated<string>
  organizationId: string
  name: string
  cloudProvider: string
  region: string
  /** The one cluster Berth creates per organization for environments that name none. */
  isDefault: Generated<boolean>
  /** Where the cluster's environments deploy: the executor that runs their deployments (migration 0008). */
  executor: Generated<string>
  /** Issue 22 (migration 0024): what createCluster and editCluster take. */
  description: string | null
  kubernetes: Generated<string>
  production: Generated<boolean>
  /** The kubeconfig of a KUBERNETES cluster, sealed with the server's SecretBox. */
  kubeconfigSealed: Buffer | null
  /** Migration 0026: DEPLOYED or STOPPED, as deployCluster and stopCluster last set it (no infrastructure moves). */
  state: Generated<string>
  /** The advanced settings that differ from the defaults. */
  advancedSettings: ColumnType<Record<string, unknown>, string | undefined, string>
  /** editRoutingTable's routes, as given. */
  routingTable: ColumnType<ClusterRoute[], string | undefined, string>
  /** specifyClusterCloudProviderInfo's body, as given; null until then. */
  cloudProviderInfo: ColumnType<ClusterCloudProviderInfo | null, string | null | undefined, string | null>
  /** Where images built for a KUBERNETES cluster are pushed, and pulled from (migration 0028). */
  imageRegistryId: Generated<string | null>
  /** Migration 0029: the API server's and the runner's kubectl's versions (`v1.31.0`) a runner last saw acting on the cluster, and when. */
  kubernetesVersion: Generated<string | null>
  kubectlVersion: Generated<string | null>
  versionsSeenAt: Generated<Date | null>
  createdAt: CreatedAt
  updatedAt: UpdatedAt
}

export interface ProjectsTable {
  id: Generated<string>
  organizationId: string
  name: string
  description: string | null
  createdAt: CreatedAt
  updatedAt: UpdatedAt
  /** Migration 0043: set when its delete began; the project goes with its last environment. */
  deletingAt: ColumnType<Date | null, Date | null | undefined, Date | null>
}

export interface EnvironmentsTable {
  id: Generated<string>
  organizationId: string
  projectId: string
  clusterId: string
  name: string
  mode: string
  /** Helm services created without `auto_preview` take this value. */
  autoPreview: Generated<boolean>
  /** The `seq` of the environment's latest deployment request; 0 before the first. */
  deploymentSeq: ColumnType<string, never, string>
  createdAt: CreatedAt
  updatedAt: UpdatedAt
}

export interface GitTokensTable {
  id: Generated<string>
  organizationId: string
  name: string
  description: string | null
  type: string
  workspace: string | null
  gitApiUrl: string | null
  /** The provider's token, sealed with the server's secret key; never returned. */
  tokenSealed: Buffer
  expiredAt: Date | null
  createdAt: CreatedAt
  updatedAt: UpdatedAt
}

export interface HelmRepositoriesTable {
  id: Generated<string>
  organizationId: string
  name: string
  kind: string
  description: string | null
  url: string | null
  skipTlsVerification: boolean
  /** The config fields safe to return. */
  config: ColumnType<Record<string, string>, string | undefined, string>
  /** The secret config fields as sealed JSON; never returned. */
  secretsSealed: Buffer | null
  createdAt: CreatedAt
  updatedAt: UpdatedAt
}

export interface ContainerRegistriesTable {
  id: Generated<string>
  organizationId: string
  name: string
  kind: string
  description: string | null
  url: string
  /** The config fields safe to return. */
  config: ColumnType<Record<string, string>, string | undefined, string>
  /** The secret config fields as sealed JSON; never returned. */
  secretsSealed: Buffer | null
  createdAt: CreatedAt
  updatedAt: UpdatedAt
}

/** JSON columns are written as JSON text and read back parsed. */
type Json<T> = ColumnType<T, string, string>

/** An environment's deployment stages, in `position` order (migration 0008). */
export interface DeploymentStagesTable {
  id: Generated<string>
  organizationId: string
  environmentId: string
  name: string
  description: string | null
  position: number
  createdAt: CreatedAt
  updatedAt: UpdatedAt
}

/** Every service, whatever its kind: the core columns and the kind's configuration (migration 0008). */
export interface ServicesTable {
  id: Generated<string>
  organizationId: string
  environmentId: string
  kind: string
  name: string
  deploymentStageId: string
  /** Left out of environment-level deployments. */
  deploymentSkipped: Generated<boolean>
  configuration: Json<unknown>
  /** Bytes of `configuration` as PostgreSQL renders it, kept by the database (migration 0012). */
  configurationBytes: ColumnType<number, never, never>
  /** Bumped on every change; the service's ETag. */
  version: Generated<number>
  createdAt: CreatedAt
  updatedAt: UpdatedAt
  /** The repository a push to which deploys the service, `github:owner/name` in lower case; null: none (migration 0018). */
  pushRepository: Generated<string | null>
  /** The branch of `pushRepository` that deploys it; null: the repository's default branch. */
  pushBranch: Generated<string | null>
}

/** What a service's configuration references, as real foreign keys: counted, and protected from deletion. */
export interface ServiceReferencesTable {
  serviceId: string
  field: string
  gitTokenId: string | null
  helmRepositoryId: string | null
  containerRegistryId: string | null
  organizationGroupId: string | null
}

/** A service as a deployment deploys it, fixed at the trigger. */
export interface DeploymentSnapshotsTable {
  executionId: string
  serviceId: string
  kind: string
  name: string
  version: number
  configuration: Json<unknown>
  overrides: Json<Record<string, unknown>>
  /** The variables it deployed with, resolved; secrets still sealed (migration 0010). */
  variables: ColumnType<unknown[], string | undefined, string>
  /** The variable rows the service saw, by id and version (berth_service_variables_fingerprint). */
  variablesFingerprint: ColumnType<string, string | undefined, string>
  /** Every advanced setting of the service as of the trigger; {} for a kind without them (migration 0020). */
  advancedSettings: ColumnType<Record<string, unknown>, string | undefined, string>
  /** The labels of the service's labels groups as of the trigger (migration 0027). */
  labels: ColumnType<Record<string, string>, string | undefined, string>
}

/** A variable or secret of a project, an environment or a service, or a built-in one (migration 0010). */
export interface VariablesTable {
  id: Generated<string>
  organizationId: string
  projectId: string
  environmentId: string | null
  serviceId: string | null
  scope: string
  variableType: string
  key: string
  value: string | null
  /** A secret's value, sealed; never returned. */
  valueSealed: Buffer | null
  isSecret: Generated<boolean>
  mountPath: string | null
  description: string | null
  enableInterpolationInFile: boolean | null
  aliasedVariableId: string | null
  overriddenVariableId: string | null
  version: Generated<number>
  createdAt: CreatedAt
  updatedAt: UpdatedAt
}

/** A line a deployment's step wrote. */
/** Migration 0042: an IAC service's state, as the engine's http backend stores it, and the lock a run holds on it. */
export interface IacStatesTable {
  serviceId: string
  /** The engine's state document, as it sent it; null before the first write. */
  state: string | null
  /** The engine's lock info (its `ID` names the lock); null when unlocked. */
  lockInfo: ColumnType<Record<string, unknown> | null, string | null, string | null>
  updatedAt: ColumnType<Date, Date | undefined, Date>
}

/** Migration 0032: what a service's last run left for its own routes (an IAC apply's resources). */
export interface ServiceRunOutputsTable {
  serviceId: string
  executionId: string
  output: ColumnType<Record<string, unknown>, string, string>
  createdAt: ColumnType<Date, Date | undefined, Date>
}

export interface DeploymentLogsTable {
  id: Generated<string>
  executionId: string
  organizationId: string
  environmentId: string
  serviceId: string | null
  stageName: string | null
  step: string
  level: string
  message: string
  createdAt: ColumnType<Date, Date | undefined, never>
}

/** A trigger and its run: the environment's queue and its deployment history (migration 0004). */
export interface DeploymentRequestsTable {
  id: Generated<string>
  organizationId: string
  environmentId: string
  /** 1, 2, 3… within the environment: the order requests run in (bigint, read as text). */
  seq: ColumnType<string, string, never>
  /** The one service a service-level trigger names; null for the whole environment. */
  serviceId: string | null
  triggerAction: string
  origin: string
  triggeredBy: string
  status: string
  actionStatus: string
  cancelRequested: Generated<boolean>
  /** The runner's working state (deployment-progress.ts). */
  progress: Json<unknown>
  message: string | null
  /** The runner holding the request while `leaseExpiresAt` is ahead; after the end, the one that ran it last (none after a hand-back or a cancel of a run no runner held). */
  leaseOwner: string | null
  leaseExpiresAt: Date | null
  claims: Generated<number>
  createdAt: CreatedAt
  updatedAt: UpdatedAt
  startedAt: Date | null
  endedAt: Date | null
  /** The history entry, rendered at every change. */
  entryJson: string
}

export interface ServiceDeploymentsTable {
  executionId: string
  serviceId: string
  organizationId: string
  environmentId: string
  createdAt: Date
  triggerAction: string
  origin: string
  status: string
  actionStatus: string
  /** Whether the deployment got as far as this service; one that never did says nothing of its state. */
  reached: boolean
  /** The helm service's version that was deployed. */
  serviceVersion: number | null
  entryJson: string
}

/** Changes whenever an environment's deployment history does (migration 0006); bigint, read as text. */
export interface EnvironmentHistoryVersionsTable {
  environmentId: string
  version: ColumnType<string, string, string>
}

/** Each organization's secret that git providers sign webhook deliveries with (migration 0018). */
export interface GitWebhookSecretsTable {
  organizationId: string
  /** Sealed with the server's secret key; shown only to ADMINs. */
  secretSealed: Buffer
  createdAt: CreatedAt
  rotatedAt: Date
}

/** Webhook deliveries acted on, remembered for a while so that a replay does nothing (migration 0018). */
export interface GitWebhookDeliveriesTable {
  organizationId: string
  provider: string
  deliveryId: string
  receivedAt: CreatedAt
}

/** A deployed cron job's schedule and the next time it fires (migration 0015). */
export interface CronJobSchedulesTable {
  serviceId: string
  environmentId: string
  scheduledAt: string
  timezone: string
  nextFireAt: Date
  fired: Generated<number>
  lastFiredAt: Date | null
  updatedAt: UpdatedAt
}

/** A service's advanced settings that differ from its kind's defaults (migrations 0015, 0020). */
export interface ServiceAdvancedSettingsTable {
  serviceId: string
  settings: ColumnType<Record<string, unknown>, string, string>
  updatedAt: UpdatedAt
}

/** The run that deletes an environment, once its services are gone (migration 0019). */
export interface EnvironmentDeletionsTable {
  environmentId: string
  executionId: string
}

/** A service's deployment restriction (migration 0021): whether a push's changed paths deploy it. */
export interface DeploymentRestrictionsTable {
  id: Generated<string>
  serviceId: string
  mode: 'EXCLUDE' | 'MATCH'
  type: 'PATH'
  value: string
  createdAt: CreatedAt
  updatedAt: Date | null
}

/** A custom domain of a service (migration 0022). */
export interface CustomDomainsTable {
  id: Generated<string>
  organizationId: string
  serviceId: string
  domain: string
  generateCertificate: boolean
  useCdn: Generated<boolean>
  checkStatus: string | null
  checkErrorDetails: string | null
  checkedAt: Date | null
  /** Migration 0045: what a `use_cdn` domain's TXT record must hold. */
  verificationToken: Generated<string>
  /** Migration 0045: since when the domain holds its name on the server (its checks passed); null: it holds nothing. */
  verifiedAt: Date | null
  createdAt: CreatedAt
  updatedAt: Date | null
}

/** A labels group or an annotations group of an organization (migration 0023). */
export interface OrganizationGroupsTable {
  id: Generated<string>
  organizationId: string
  kind: 'LABELS' | 'ANNOTATIONS'
  name: string
  entries: ColumnType<unknown, string, string>
  scopes: ColumnType<string[], string | undefined, string>
  createdAt: CreatedAt
  updatedAt: Date | null
}

/** An invitation to an organization (migration 0023); no email is sent. */
export interface MemberInvitationsTable {
  id: Generated<string>
  organizationId: string
  email: string
  role: string
  /** The custom role held (migration 0025); `role` is then READ. */
  customRoleId: ColumnType<string | null, string | null | undefined, string | null>
  inviter: string
  createdAt: CreatedAt
  updatedAt: Date | null
}

/** A custom role of an organization (migration 0023): only permissions that differ from the defaults. */
export interface CustomRolesTable {
  id: Generated<string>
  organizationId: string
  name: string
  description: string | null
  clusterPermissions: ColumnType<Record<string, string>, string | undefined, string>
  projectPermissions: ColumnType<Record<string, { is_admin: boolean; permissions: Record<string, string> }>, string | undefined, string>
  createdAt: CreatedAt
  updatedAt: Date | null
}

/** A preview environment and what asked for it: a pull request, or a container image's tag (migration 0030). */
export interface PreviewEnvironmentsTable {
  id: Generated<string>
  organizationId: string
  /** Null once the source environment is deleted: the sweep deletes the preview then. */
  sourceEnvironmentId: string | null
  /** Null while the clone is being made. */
  environmentId: string | null
  provider: string
  repository: string
  pullRequestNumber: number | null
  imageTag: string | null
  title: string | null
  url: string | null
  headBranch: string | null
  headCommit: string | null
  author: string | null
  createdAt: CreatedAt
  lastActivityAt: Generated<Date>
}

/** An environment's deployment rule: the preview settings the reference keeps there (migration 0030). */
export interface EnvironmentDeploymentRulesTable {
  environmentId: string
  onDemandPreview: Generated<boolean>
  autoStop: Generated<boolean>
  timezone: Generated<string>
  startTime: Generated<Date>
  stopTime: Generated<Date>
  weekdays: ColumnType<string[], string | undefined, string>
  createdAt: CreatedAt
  updatedAt: Date | null
}

/** A container its rollout found ready: the front door may send it traffic (migration 0031). */
export interface FrontDoorReadyInstancesTable {
  containerId: string
  serviceId: string
  readyAt: CreatedAt
}

/** An organization's outbound webhook (migration 0049). */
export interface OrganizationWebhooksTable {
  id: Generated<string>
  organizationId: string
  kind: string
  targetUrl: string
  targetSecretSealed: Buffer | null
  description: string | null
  enabled: boolean
  events: string[]
  projectNamesFilter: string[]
  environmentTypesFilter: string[]
  createdAt: CreatedAt
  updatedAt: Date | null
}

/** The webhooks' outbox: one event for one webhook, written by a trigger on deployment_requests (migration 0049). */
export interface WebhookDeliveriesTable {
  id: Generated<string>
  organizationId: string
  webhookId: string
  event: string
  executionId: string
  facts: ColumnType<unknown, string, string>
  state: Generated<string>
  attempts: Generated<number>
  nextAttemptAt: Generated<Date>
  leaseExpiresAt: Date | null
  createdAt: CreatedAt
  endedAt: Date | null
}

/** One try at a delivery, and what the target answered (migration 0049). */
export interface WebhookAttemptsTable {
  id: Generated<string>
  organizationId: string
  webhookId: string
  deliveryId: string
  kind: string
  matchedEvent: string
  targetUrlUsed: string
  request: ColumnType<unknown, string, string>
  statusCode: number
  responseBody: string | null
  createdAt: CreatedAt
}

/** One change made through the API, written by the audit triggers (migration 0050); never changed. */
export interface AuditEventsTable {
  id: Generated<string>
  /** The order events happened in (bigint, read as text). */
  seq: ColumnType<string, never, never>
  organizationId: string
  createdAt: CreatedAt
  eventType: string
  targetType: string
  targetId: string | null
  targetName: Generated<string>
  subTargetType: string | null
  change: string | null
  origin: string
  triggeredBy: string
  triggeredById: string | null
  userAgent: string | null
  projectId: string | null
  projectName: Generated<string>
  environmentId: string | null
  environmentName: Generated<string>
}
