import type { Static } from 'typebox'
import type { EnvironmentsService } from '#src/modules/environments/environments.service.ts'
import type { GitCommitsService } from '#src/modules/git-providers/git-commits.service.ts'
import type { ContainerRegistriesService } from '#src/modules/organization-credentials/container-registries/container-registries.service.ts'
import type { Principal } from '#src/platform/auth/principal.ts'
import type { ServiceType } from '#src/platform/deployment-states.ts'
import type { Status } from '#src/platform/deployment-status.schemas.ts'
import type { SecretBox } from '#src/platform/secrets/secret-box.ts'
import type { LinkedPort, ServiceLink } from './service-links.ts'
import type { ServicesService } from './services.service.ts'

/** A service's status on the wire (the reference's Status). */
export type StatusResponse = Static<typeof Status>

/**
 * What the kinds' own routes ask of the deployments, answered on the wire: declared here so that
 * a kind imports nothing of deployments/api/ (services.ts fills it from the triggers).
 */
export interface KindTriggers {
  /** Restarts the service (trigger RESTART), as its redeploy does: its status. */
  restart(principal: Principal, type: ServiceType, serviceId: string): Promise<StatusResponse>
  /** The status of each service of the environment, with its id and kind. */
  environmentStatuses(principal: Principal, environmentId: string): Promise<{ serviceId: string; kind: ServiceType; status: StatusResponse }[]>
}

/** What the routes only one kind has may use of other modules (services.ts makes it). */
export interface KindRouteContext {
  core: ServicesService
  triggers: KindTriggers
  secrets: SecretBox
  environments: Pick<EnvironmentsService, 'requireEnvironment'>
  commits: Pick<GitCommitsService, 'listCommits'>
  containerRegistries: Pick<ContainerRegistriesService, 'listAssociatedServices'>
  /** What the service's last run that left an output left (ServiceOutcome.output: an IAC apply's resources); undefined when none did. */
  lastOutput(serviceId: string): Promise<{ executionId: string; output: Record<string, unknown>; createdAt: Date } | undefined>
  /** A service's links with its running instances' addresses and its custom domains added. */
  withLiveLinks(
    service: { organizationId: string; id: string; environmentId: string },
    kind: 'CONTAINER' | 'APPLICATION',
    ports: readonly LinkedPort[],
    links: ServiceLink[],
  ): Promise<ServiceLink[]>
}
