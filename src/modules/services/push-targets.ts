import type { AnyServiceKind, FollowedBranch } from './service-kinds.ts'

// Where a push deploys a service: the repository and branch its kind follows, kept by the service
// core in indexed columns (migration 0018) so that a push finds its services without reading
// every configuration of the organization.

/** A repository as pushes name it: `github:owner/name` in lower case, as providers match owners and names without case. */
export const repositoryKey = (provider: FollowedBranch['provider'], owner: string, name: string): string =>
  `${provider}:${owner}/${name}`.toLowerCase()

/** What the service core stores for a configuration: the repository and branch a push to which deploys it, or nulls. */
export function pushTargetOf(kind: AnyServiceKind, configuration: unknown): { pushRepository: string | null; pushBranch: string | null } {
  const followed = kind.followedBranch?.(configuration)
  if (!followed?.autoDeploy || followed.owner === '' || followed.name === '') return { pushRepository: null, pushBranch: null }
  return { pushRepository: repositoryKey(followed.provider, followed.owner, followed.name), pushBranch: followed.branch }
}
