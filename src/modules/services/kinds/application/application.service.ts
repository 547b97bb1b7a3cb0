import type { GitCommit } from '#src/modules/git-providers/git-provider-adapter.ts'
import type { KindRouteContext } from '#src/modules/services/kind-route-context.ts'
import type { ServiceRecord } from '#src/modules/services/service-kinds.ts'
import { type ServiceLink, serviceLinks } from '#src/modules/services/service-links.ts'
import type { Principal } from '#src/platform/auth/principal.ts'
import { AppError, validationFailed } from '#src/platform/http/errors.ts'
import type { ApplicationConfig } from './application.types.ts'

/** How many commits `listApplicationCommit` answers: the reference's "last 100 commits". */
const COMMITS_LISTED = 100

/** An application's links and commits, read through the service core. */
export function createApplicationServices({ core, commits, withLiveLinks }: KindRouteContext) {
  return {
    /** The addresses its public ports are reached at (service-links.ts). */
    async links(principal: Principal, applicationId: string): Promise<ServiceLink[]> {
      const service = (await core.get(principal, 'APPLICATION', applicationId)) as ServiceRecord<ApplicationConfig>
      const links = serviceLinks({ id: service.id, kind: 'APPLICATION' }, service.configuration.ports)
      return withLiveLinks(service, 'APPLICATION', service.configuration.ports, links)
    },

    /** The newest commits of its branch (or from `gitCommitId`), newest first, as its git provider lists them. */
    async commits(principal: Principal, applicationId: string, gitCommitId: string | undefined): Promise<GitCommit[]> {
      const service = (await core.get(principal, 'APPLICATION', applicationId)) as ServiceRecord<ApplicationConfig>
      const { provider, owner, name, gitTokenId, branch } = service.configuration.gitRepository
      try {
        return await commits.listCommits(
          { organizationId: service.organizationId, provider, owner, name, gitTokenId },
          gitCommitId ?? branch,
          COMMITS_LISTED,
        )
      } catch (error) {
        // The provider knows no such commit or branch: name what the request gave.
        if (error instanceof AppError && error.code === 'validation_failed' && error.errors) {
          throw validationFailed(
            error.errors.map((fieldError) =>
              gitCommitId === undefined
                ? { path: '', message: `the application's branch: ${fieldError.message}`, location: 'path' as const }
                : { ...fieldError, path: '/gitCommitId', location: 'query' as const },
            ),
          )
        }
        throw error
      }
    },
  }
}
