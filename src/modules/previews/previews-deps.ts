// What the previews' parts are handed by the wiring, and what they answer with.
import type { DeploymentTriggers } from '#src/modules/deployments/api/triggers/deployment-triggers.service.ts'
import type { DeploymentRun } from '#src/modules/deployments/queue/deployment-progress.ts'
import type { EnvironmentRecord } from '#src/modules/environments/environments.repository.ts'
import type { EnvironmentsService } from '#src/modules/environments/environments.service.ts'
import type { OrganizationsService } from '#src/modules/organizations/organizations.service.ts'
import type { ServiceKinds, ServiceRecord } from '#src/modules/services/service-kinds.ts'
import type { Principal } from '#src/platform/auth/principal.ts'
import type { PreviewRow, PreviewsRepository } from './previews.repository.ts'

export interface PreviewsDeps {
  repo: PreviewsRepository
  kinds: ServiceKinds
  listServices(organizationId: string, environmentId: string): Promise<ServiceRecord[]>
  findEnvironment(environmentId: string): Promise<EnvironmentRecord | undefined>
  /** clones' clonePreview. */
  clonePreview(sourceEnvironmentId: string, name: string, adjust?: (service: ServiceRecord) => ServiceRecord): Promise<EnvironmentRecord>
  /** What a deploy of `commit` asks of `service` (its deploy request's `git_commit_id`, and what its kind adds for a push). */
  commitOverrides(service: ServiceRecord, commit: string): object
  /** What queues a preview's deployment and its deletion. */
  triggers: Pick<DeploymentTriggers, 'deployPreview' | 'deletePreviewEnvironment'>
  environments: Pick<EnvironmentsService, 'requireEnvironment'>
  organizations: Pick<OrganizationsService, 'requireRole'>
  actorName(principal: Principal): Promise<string>
  log: { info(details: object, message: string): void; warn(details: object, message: string): void }
  /** BERTH_PREVIEWS_PER_ENVIRONMENT. */
  maxPerEnvironment: number
}

/** What a pull request's event did to previews. */
export interface PreviewOutcome {
  /** The deployments queued: a new preview's, or a preview's at its new head. */
  runs: DeploymentRun[]
  /** The preview environments whose deletion was queued. */
  deleted: string[]
  /** Why nothing was done, when nothing was. */
  reason: string | null
}

/** A preview with its environment and source, as the list of an environment's previews gives it. */
export interface PreviewRecord extends PreviewRow {
  environmentName: string | null
}

/** The longest history `triggered_by` a preview's deployment writes. */
export const TRIGGERED_BY_MAX = 255
