import type { GitBranch } from './git-provider-adapter.ts'
import type { GitRepositoryBranch } from './git-providers.schemas.ts'

/** A branch as the reference's `GitRepositoryBranch`, with the extension fields the provider gave. */
export function toBranchResponse(branch: GitBranch): GitRepositoryBranch {
  return {
    name: branch.name,
    ...(branch.isDefault === undefined ? {} : { is_default: branch.isDefault }),
    ...(branch.commitId === undefined ? {} : { commit_id: branch.commitId }),
    ...(branch.protected === undefined ? {} : { protected: branch.protected }),
  }
}
