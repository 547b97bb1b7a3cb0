import type { GitRepository } from './git-repositories.schemas.ts'
import type { GitAccount } from './git-repositories.service.ts'
import type { GitRepositoryItem } from './git-repositories.ts'

export function toRepositoryResponse(repository: GitRepositoryItem): GitRepository {
  return {
    id: repository.id,
    name: repository.name,
    url: repository.url,
    ...(repository.defaultBranch === undefined ? {} : { default_branch: repository.defaultBranch }),
    ...(repository.isPrivate === undefined ? {} : { is_private: repository.isPrivate }),
  }
}

export const toAccountResponse = (account: GitAccount) => ({ id: account.id, name: account.provider, owner: account.owner, use_bot: false })
