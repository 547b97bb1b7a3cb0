import type { EnvironmentsService } from '#src/modules/environments/environments.service.ts'
import type { OrganizationsService } from '#src/modules/organizations/organizations.service.ts'
import type { ProjectsService } from '#src/modules/projects/projects.service.ts'
import type { AdvancedSettingsService } from '#src/modules/services/advanced-settings/advanced-settings.service.ts'
import type { RequireService } from '#src/modules/services/require-service.ts'
import type { DeploymentLookups, ServiceKinds, ServiceRecord, ServiceSnapshot, ServiceSummary } from '#src/modules/services/service-kinds.ts'
import type { UsersService } from '#src/modules/users/users.service.ts'
import type { VariablesService } from '#src/modules/variables/variables.service.ts'
import type { Origin, RunnableTrigger, ServiceType } from '#src/platform/deployment-states.ts'
import type { AppError } from '#src/platform/http/errors.ts'
import type { EnvironmentQueue } from '../../queue/environment-queue.ts'
import type { DeploymentHistoryRepository } from '../history/deployment-history.repository.ts'
import type { DeploymentStatuses } from './deployment-statuses.ts'
import type { RestorableSnapshotsRepository } from './restorable-snapshots.repository.ts'

// What the deployment triggers are handed by the wiring, and the shapes of the runs they queue.

export interface DeploymentTriggersDeps {
  queues: EnvironmentQueue
  history: DeploymentHistoryRepository
  /** The snapshots of earlier successful deployments, which a rollback deploys again. */
  restorable: RestorableSnapshotsRepository
  statuses: DeploymentStatuses
  kinds: ServiceKinds
  /**
   * What the triggers ask of the environments: access (`requireEnvironment`), the project's environments
   * the principal sees (`list`), and the delete of one without services (`delete`, for a principal;
   * `deleteUnchecked`, a preview's, for none).
   */
  environments: Pick<EnvironmentsService, 'requireEnvironment' | 'list' | 'delete' | 'deleteUnchecked'>
  /** A project's delete, which the triggers' deleteProject runs with their deleteEnvironment. */
  projects: Pick<ProjectsService, 'delete'>
  /** `requireScoped`: the role held where the resource lies (a custom role grants per environment). */
  organizations: Pick<OrganizationsService, 'requireScoped'>
  requireService: RequireService
  /** The environment's services with their configurations: for triggers, which snapshot them. */
  listServices(organizationId: string, environmentId: string): Promise<ServiceRecord[]>
  /** The environment's services without their configurations: for statuses. */
  listServiceSummaries(organizationId: string, environmentId: string): Promise<ServiceSummary[]>
  /** The environment's deployment stages, in deploy order. */
  listStages(environmentId: string): Promise<{ id: string; name: string; description: string | null; position: number }[]>
  /** What each service deploys with, resolved now: the variables it sees (`resolveForDeployment`). */
  variables: Pick<VariablesService, 'resolveForDeployment'>
  /** What each service deploys with: every advanced setting, as of now (`forDeployment`). */
  advancedSettings: Pick<AdvancedSettingsService, 'forDeployment'>
  /** How history names who triggered (`actorName`: `triggered_by`). */
  users: Pick<UsersService, 'actorName'>
  /** Told when a run was queued, so that a runner of this process looks at once. */
  onQueued(): void
  /** BERTH_LIST_LIMIT: the most runs a deployment queue lists. */
  listLimit?: number
  /** What kinds consult to resolve what a deployment builds (a commit at a git provider). */
  deploymentLookups?: DeploymentLookups
  /** Why nothing may be queued in the environment now (its cluster is locked: docs/clusters.md), or undefined. */
  lockRefusal?(environmentId: string): Promise<AppError | undefined>
}

/** A service a trigger deploys, with what its request asks beyond its configuration. */
export interface Selected {
  service: ServiceRecord
  overrides: object
  /**
   * Where a bulk request named it, for errors about its overrides (`/helms/0`); absent for the one
   * service of a service action; null when the request did not name it (an environment's deployment).
   */
  path?: string | null
  /**
   * A rollback: the snapshot of the earlier deployment `executionId` to deploy again, as it was
   * (configuration, overrides, variables, settings, labels), instead of the service as of now.
   */
  restored?: { executionId: string; snapshot: ServiceSnapshot }
}

/** A service a bulk request names: its kind, its id, and where the request named it (for errors). */
export interface SelectionItem {
  type: ServiceType
  id: string
  overrides: object
  path: string
}

/** The environment a run is queued in. */
export type Target = { id: string; organizationId: string }
/**
 * What a run will do: to the whole environment or a selection (serviceId: the one service it names,
 * else null); `origin` says what started it (API when absent).
 */
export type RunTarget = { serviceId: string | null; trigger: RunnableTrigger; selected: Selected[]; origin?: Origin; deletesEnvironment?: boolean }
