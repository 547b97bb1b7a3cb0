import type { GitCommit } from '#src/modules/git-providers/git-provider-adapter.ts'
import type { KindRouteContext } from '#src/modules/services/kind-route-context.ts'
import type { ServiceRecord } from '#src/modules/services/service-kinds.ts'
import { type ServiceLink, serviceLinks } from '#src/modules/services/service-links.ts'
import type { Principal } from '#src/platform/auth/principal.ts'
import { AppError, validationFailed } from '#src/platform/http/errors.ts'
import { stableUuid } from '#src/platform/stable-uuid.ts'
import type { ApplicationConfig } from './application.types.ts'

/** How many commits `listApplicationCommit` answers: the reference's "last 100 commits". */
const COMMITS_LISTED = 100

/** One author of an application's commits (the reference's User): from their commits, never stored. */
export interface Contributor {
  /** Stable for the same address (or, without one, the same name). */
  id: string
  firstName: string
  lastName: string
  email?: string
  avatarUrl?: string
  /** Their oldest and newest commit among those read. */
  firstCommitAt: string
  lastCommitAt: string
}

const PLAIN_ADDRESS = /^[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+$/

/** The authors of `commits` (newest first), the most recent author first; one per address, else per name. */
export function contributorsOf(commits: readonly GitCommit[]): Contributor[] {
  const byKey = new Map<string, Contributor>()
  for (const commit of commits) {
    const email = commit.authorEmail && PLAIN_ADDRESS.test(commit.authorEmail) ? commit.authorEmail : undefined
    const key = email ? `email:${email.toLowerCase()}` : `name:${commit.authorName}`
    const known = byKey.get(key)
    if (known) {
      if (commit.createdAt < known.firstCommitAt) known.firstCommitAt = commit.createdAt
      if (commit.createdAt > known.lastCommitAt) known.lastCommitAt = commit.createdAt
      known.avatarUrl ??= commit.authorAvatarUrl
      continue
    }
    const [firstName = '', ...rest] = commit.authorName.trim().split(/\s+/)
    byKey.set(key, {
      id: stableUuid(`contributor/${key}`),
      firstName,
      lastName: rest.join(' '),
      ...(email ? { email } : {}),
      ...(commit.authorAvatarUrl ? { avatarUrl: commit.authorAvatarUrl } : {}),
      firstCommitAt: commit.createdAt,
      lastCommitAt: commit.createdAt,
    })
  }
  return [...byKey.values()]
}

/** An application's links and commits, read through the service core. */
export function createApplicationServices({ core, commits, withLiveLinks }: KindRouteContext) {
  return {
    /** The addresses its public ports are reached at (service-links.ts). */
    async links(principal: Principal, applicationId: string): Promise<ServiceLink[]> {
      const service = (await core.get(principal, 'APPLICATION', applicationId)) as ServiceRecord<ApplicationConfig>
      const links = serviceLinks({ id: service.id, kind: 'APPLICATION' }, service.configuration.ports)
      return withLiveLinks(service, 'APPLICATION', service.configuration.ports, links)
    },

    /** The authors of the newest 100 commits of its branch, as its git provider lists them. */
    async contributors(principal: Principal, applicationId: string): Promise<Contributor[]> {
      return contributorsOf(await this.commits(principal, applicationId, undefined))
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
