import { type Migration, type MigrationProvider, Migrator } from 'kysely'
import type { Db } from './database.ts'
import * as organizationsAndApiTokens from './migrations/0001-organizations-and-api-tokens.ts'
import * as projectsEnvironmentsHelm from './migrations/0002-projects-environments-helm.ts'
import * as usersAndMembers from './migrations/0003-users-and-members.ts'
import * as deployments from './migrations/0004-deployments.ts'
import * as apiTokenChanges from './migrations/0005-api-token-changes.ts'
import * as historyVersions from './migrations/0006-history-versions.ts'
import * as organizationChanges from './migrations/0007-organization-changes.ts'
import * as serviceCore from './migrations/0008-service-core.ts'
import * as tokenLineage from './migrations/0009-token-lineage.ts'
import * as variables from './migrations/0010-variables.ts'
import * as historyChanges from './migrations/0011-history-changes.ts'
import * as serviceConfigurationBytes from './migrations/0012-service-configuration-bytes.ts'
import * as containerRegistries from './migrations/0013-container-registries.ts'
import * as cronJobSchedules from './migrations/0015-cron-job-schedules.ts'
import * as databaseBuiltIns from './migrations/0017-database-built-ins.ts'
import * as gitWebhooks from './migrations/0018-git-webhooks.ts'
import * as environmentDeletions from './migrations/0019-environment-deletions.ts'
import * as serviceAdvancedSettings from './migrations/0020-service-advanced-settings.ts'
import * as deploymentRestrictions from './migrations/0021-deployment-restrictions.ts'
import * as customDomains from './migrations/0022-custom-domains.ts'
import * as organizationExtras from './migrations/0023-organization-extras.ts'
import * as clusters from './migrations/0024-clusters.ts'
import * as customRoleHolders from './migrations/0025-custom-role-holders.ts'
import * as clusterRecords from './migrations/0026-cluster-records.ts'
import * as snapshotLabels from './migrations/0027-snapshot-labels.ts'
import * as clusterImageRegistry from './migrations/0028-cluster-image-registry.ts'
import * as clusterKubernetesVersions from './migrations/0029-cluster-kubernetes-versions.ts'
import * as previewEnvironments from './migrations/0030-preview-environments.ts'
import * as frontDoorReadyInstances from './migrations/0031-front-door-ready-instances.ts'
import * as iacServices from './migrations/0032-iac-services.ts'
import * as databaseBackups from './migrations/0041-database-backups.ts'
import * as iacStates from './migrations/0042-iac-states.ts'
import * as projectDeletes from './migrations/0043-project-deletes.ts'
import * as iacResourcesMasked from './migrations/0044-iac-resources-masked.ts'
import * as customDomainClaims from './migrations/0045-custom-domain-claims.ts'
import * as pullRequestMarks from './migrations/0047-pull-request-marks.ts'
import * as runnerFairShare from './migrations/0048-runner-fair-share.ts'
import * as organizationWebhooks from './migrations/0049-organization-webhooks.ts'
import * as auditLog from './migrations/0050-audit-log.ts'
import * as alerting from './migrations/0053-alerting.ts'
import * as argoCd from './migrations/0056-argocd.ts'
import * as projectDeploymentRules from './migrations/0059-project-deployment-rules.ts'
import * as clusterLocks from './migrations/0060-cluster-locks.ts'
import * as accountAndOnboarding from './migrations/0062-account-and-onboarding.ts'
import * as credentialsAndClusterOperations from './migrations/0065-credentials-and-cluster-operations.ts'
import * as policyApiTokens from './migrations/0066-policy-api-tokens.ts'

// Listed explicitly so that every migration ships with the code that needs it, in order. Features
// built side by side take their numbers ahead of landing, so one may land below a number already
// applied: the migrator runs it rather than refusing (allowUnorderedMigrations).
const migrations: Record<string, Migration> = {
  '0001-organizations-and-api-tokens': organizationsAndApiTokens,
  '0002-projects-environments-helm': projectsEnvironmentsHelm,
  '0003-users-and-members': usersAndMembers,
  '0004-deployments': deployments,
  '0005-api-token-changes': apiTokenChanges,
  '0006-history-versions': historyVersions,
  '0007-organization-changes': organizationChanges,
  '0008-service-core': serviceCore,
  '0009-token-lineage': tokenLineage,
  '0010-variables': variables,
  '0011-history-changes': historyChanges,
  '0012-service-configuration-bytes': serviceConfigurationBytes,
  '0013-container-registries': containerRegistries,
  '0015-cron-job-schedules': cronJobSchedules,
  '0017-database-built-ins': databaseBuiltIns,
  '0018-git-webhooks': gitWebhooks,
  '0019-environment-deletions': environmentDeletions,
  '0020-service-advanced-settings': serviceAdvancedSettings,
  '0021-deployment-restrictions': deploymentRestrictions,
  '0022-custom-domains': customDomains,
  '0023-organization-extras': organizationExtras,
  '0024-clusters': clusters,
  '0025-custom-role-holders': customRoleHolders,
  '0026-cluster-records': clusterRecords,
  '0027-snapshot-labels': snapshotLabels,
  '0028-cluster-image-registry': clusterImageRegistry,
  '0029-cluster-kubernetes-versions': clusterKubernetesVersions,
  '0030-preview-environments': previewEnvironments,
  '0031-front-door-ready-instances': frontDoorReadyInstances,
  '0032-iac-services': iacServices,
  '0041-database-backups': databaseBackups,
  '0042-iac-states': iacStates,
  '0043-project-deletes': projectDeletes,
  '0044-iac-resources-masked': iacResourcesMasked,
  '0045-custom-domain-claims': customDomainClaims,
  '0047-pull-request-marks': pullRequestMarks,
  '0048-runner-fair-share': runnerFairShare,
  '0049-organization-webhooks': organizationWebhooks,
  '0050-audit-log': auditLog,
  '0053-alerting': alerting,
  '0056-argocd': argoCd,
  '0059-project-deployment-rules': projectDeploymentRules,
  '0060-cluster-locks': clusterLocks,
  '0062-account-and-onboarding': accountAndOnboarding,
  '0065-credentials-and-cluster-operations': credentialsAndClusterOperations,
  '0066-policy-api-tokens': policyApiTokens,
}

const provider: MigrationProvider = { getMigrations: async () => migrations }

/**
 * Brings the schema up to date. Safe to run from several processes at once: Kysely serialises
 * migrators with a PostgreSQL advisory lock.
 */
export async function migrateToLatest(db: Db): Promise<string[]> {
  const migrator = new Migrator({
    db,
    provider,
    migrationTableName: 'berth_migrations',
    migrationLockTableName: 'berth_migrations_lock',
    allowUnorderedMigrations: true,
  })
  const { error, results } = await migrator.migrateToLatest()
  if (error) throw error instanceof Error ? error : new Error(String(error))
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName)
}
