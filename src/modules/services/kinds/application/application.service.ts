import type { GitCommitsService } from '#src/modules/git-providers/git-commits.service.ts'
import type { GitCommit } from '#src/modules/git-providers/git-provider-adapter.ts'
import type { ServiceRecord } from '#src/modules/services/service-kinds.ts'
import { type ServiceLink, serviceLinks } from '#src/modules/services/service-links.ts'
import type { ServicesService } from '#src/modules/services/services.service.ts'
import type { Principal } from '#src/platform/auth/principal.ts'
import { AppError, validationFailed } from '#src/platform/http/errors.ts'
import type { CappedList } from '#src/platform/http/lists.ts'
import { type ApplicationWrite, toApplicationRecord } from './application.kind.ts'
import type { ApplicationConfig, ApplicationRecord } from './application.types.ts'

export interface ApplicationServicesDeps {
  core: ServicesService
  /** What each service's last successful deploy or redeploy added to its configuration (the commit it built). */
  deployedOverrides(serviceIds: string[]): Promise<Map<string, Record<string, unknown>>>
  commits: Pick<GitCommitsService, 'listCommits'>
  /** The service's links with its running instances' addresses and its custom domains added (services.ts); the built-in ones alone when absent. */
  withCustomDomains?(service: ServiceRecord<ApplicationConfig>, links: ServiceLink[]): Promise<ServiceLink[]>
}

/** How many commits `listApplicationCommit` answers: the reference's "last 100 commits". */
const COMMITS_LISTED = 100

/** The service core's operations on applications, answering application records (with their deployed commit) for the routes. */
export function createApplicationServices({ core, deployedOverrides, commits, withCustomDomains }: ApplicationServicesDeps) {
  async function records(services: ServiceRecord[]): Promise<ApplicationRecord[]> {
    const deployed = await deployedOverrides(services.map((service) => service.id))
    return services.map((service) =>
      toApplicationRecord(service as ServiceRecord<ApplicationConfig>, (deployed.get(service.id)?.commit as GitCommit | undefined) ?? null),
    )
  }
  const one = async (service: ServiceRecord) => (await records([service]))[0]!

  return {
    /** A page of the environment's applications; `startId` continues after that one; `heldUntil` as the core's. */
    list: async (
      principal: Principal,
      environmentId: string,
      options: { startId?: string; heldUntil?: () => Promise<unknown> },
    ): Promise<CappedList<ApplicationRecord>> => {
      const page = await core.list(principal, environmentId, { type: 'APPLICATION', ...options })
      return { rows: await records(page.rows), hasMore: page.hasMore }
    },
    get: async (principal: Principal, applicationId: string): Promise<ApplicationRecord> =>
      one(await core.get(principal, 'APPLICATION', applicationId)),
    create: async (principal: Principal, environmentId: string, write: ApplicationWrite): Promise<ApplicationRecord> =>
      one(await core.create(principal, 'APPLICATION', environmentId, write)),
    /** A full replacement; `ifMatch`: the ETags If-Match accepts. */
    update: async (principal: Principal, applicationId: string, write: ApplicationWrite, ifMatch?: string[]): Promise<ApplicationRecord> =>
      one(await core.update(principal, 'APPLICATION', applicationId, write, ifMatch)),
    delete: (principal: Principal, applicationId: string): Promise<void> => core.delete(principal, 'APPLICATION', applicationId),

    /** The addresses its public ports are reached at (service-links.ts). */
    async links(principal: Principal, applicationId: string): Promise<ServiceLink[]> {
      const service = (await core.get(principal, 'APPLICATION', applicationId)) as ServiceRecord<ApplicationConfig>
      const links = serviceLinks({ id: service.id, kind: 'APPLICATION' }, service.configuration.ports)
      return withCustomDomains ? withCustomDomains(service, links) : links
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

export type ApplicationServices = ReturnType<typeof createApplicationServices>
