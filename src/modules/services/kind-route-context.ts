import type { ContainerRegistriesService } from '#src/modules/container-registries/container-registries.service.ts'
import type { DeploymentTriggersService } from '#src/modules/deployments/api/triggers/deployment-triggers.service.ts'
import type { GitCommitsService } from '#src/modules/git-providers/git-commits.service.ts'
import type { Principal } from '#src/platform/auth/principal.ts'
import type { Role } from '#src/platform/auth/roles.ts'
import type { SecretBox } from '#src/platform/secrets/secret-box.ts'
import type { LinkedPort, ServiceLink } from './service-links.ts'
import type { ServicesService } from './services.service.ts'

/** What the routes only one kind has may use of other modules (services.ts makes it). */
export interface KindRouteContext {
  core: ServicesService
  triggers: Pick<DeploymentTriggersService, 'redeployService' | 'getEnvironmentStatuses'>
  secrets: SecretBox
  requireEnvironment(principal: Principal, environmentId: string, needed: Role): Promise<unknown>
  commits: Pick<GitCommitsService, 'listCommits'>
  containerRegistries: Pick<ContainerRegistriesService, 'listAssociatedServices'>
  /** A service's links with its running instances' addresses and its custom domains added. */
  withLiveLinks(
    service: { organizationId: string; id: string; environmentId: string },
    kind: 'CONTAINER' | 'APPLICATION',
    ports: readonly LinkedPort[],
    links: ServiceLink[],
  ): Promise<ServiceLink[]>
}
