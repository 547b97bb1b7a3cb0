import type { GitRepositoryRef } from '#src/modules/services/git-repositories/git-repositories.ts'
import type { Db } from '#src/platform/db/database.ts'
import type { SecretBox } from '#src/platform/secrets/secret-box.ts'
import { GIT_USERNAMES, type GitCredentials } from './git-checkout.ts'

/**
 * The credentials an executor fetches a service's repository with: the repository's git token, else
 * the organization's only token of its provider (as commits are looked up), unsealed; undefined
 * without one, and for a plain http URL (a token travels only over https).
 */
export function repositoryCredentials(
  db: Db,
  secrets: SecretBox,
): (organizationId: string, repository: GitRepositoryRef) => Promise<GitCredentials | undefined> {
  return async (organizationId, repository) => {
    let query = db.selectFrom('gitTokens').select(['type', 'tokenSealed']).where('organizationId', '=', organizationId)
    query = repository.gitTokenId === null ? query.where('type', '=', repository.provider) : query.where('id', '=', repository.gitTokenId)
    const rows = await query.limit(2).execute()
    const row = rows.length === 1 ? rows[0]! : undefined
    if (!row) return undefined
    if (!repository.url.startsWith('https://')) return undefined
    return { username: GIT_USERNAMES[row.type] ?? 'x-access-token', token: secrets.open(row.tokenSealed) }
  }
}
