import type { GitRepositoryRef } from '../git-repositories/git-repositories.ts'
import type { ServiceRecord } from '../service-kinds.ts'

// Where each kind keeps the git repository it builds from, read from its stored configuration: with
// the kinds, so that a module asking "which repository" (git-webhooks/service-git-webhooks.ts) names no kind.

/** The git repository a service builds from: an application's, a job's Dockerfile's, a helm chart's in git, an IAC service's. */
export function gitSourceOf(service: ServiceRecord): GitRepositoryRef | undefined {
  const configuration = service.configuration as Record<string, unknown>
  const source = configuration.source as Record<string, unknown> | undefined
  switch (service.kind) {
    case 'APPLICATION':
      return configuration.gitRepository as GitRepositoryRef
    case 'IAC':
      return configuration.git as GitRepositoryRef
    case 'HELM':
      return source && 'git' in source ? (source.git as GitRepositoryRef) : undefined
    case 'JOB':
      return source && 'docker' in source ? ((source.docker as { git?: GitRepositoryRef }).git ?? undefined) : undefined
    default:
      return undefined
  }
}
