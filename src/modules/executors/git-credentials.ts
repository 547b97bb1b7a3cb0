import type { Db } from '#src/platform/db/database.ts'
import type { SecretBox } from '#src/platform/secrets/secret-box.ts'
import { GIT_USERNAMES, type GitCredentials } from './git-checkout.ts'
import type { GitRepository } from './workload.ts'

/** The hosts of each provider's public service, where a token without git_api_url belongs. */
const PROVIDER_HOSTS: Record<string, string[]> = {
  GITHUB: ['github.com', 'www.github.com'],
  GITLAB: ['gitlab.com', 'www.gitlab.com'],
  BITBUCKET: ['bitbucket.org', 'www.bitbucket.org'],
}

const hostOf = (url: string): string | undefined =>
  URL.canParse(url)
    ? new URL(url).hostname
        .replace(/^\[(.*)\]$/, '$1')
        .replace(/\.$/, '')
        .toLowerCase()
    : undefined

/**
 * The hosts a git token may be sent to: its git_api_url's host (and that host without `api.`, as
 * api.github.com serves github.com), else its provider's public hosts. A service names its
 * repository's URL, and WRITE may edit it: without this, an ADMIN's token would travel to whatever
 * host a WRITE token names.
 */
export function gitTokenHosts(type: string, gitApiUrl: string | null): string[] {
  const apiHost = gitApiUrl === null ? undefined : hostOf(gitApiUrl)
  if (apiHost === undefined) return PROVIDER_HOSTS[type] ?? []
  const withoutApi = apiHost.replace(/^api\./, '')
  return [...new Set([apiHost, withoutApi, ...(PROVIDER_HOSTS[type]?.includes(withoutApi) ? PROVIDER_HOSTS[type] : [])])]
}

/**
 * The credentials an executor fetches a service's repository with: the repository's git token, else
 * the organization's only token of its provider (as commits are looked up), unsealed; undefined
 * without one, for a plain http URL (a token travels only over https), and for a repository on
 * another host than the token's (gitTokenHosts): git then fetches without a token.
 */
export function repositoryCredentials(
  db: Db,
  secrets: SecretBox,
): (organizationId: string, repository: GitRepository) => Promise<GitCredentials | undefined> {
  return async (organizationId, repository) => {
    let query = db.selectFrom('gitTokens').select(['type', 'gitApiUrl', 'tokenSealed']).where('organizationId', '=', organizationId)
    query = repository.gitTokenId === null ? query.where('type', '=', repository.provider) : query.where('id', '=', repository.gitTokenId)
    const rows = await query.limit(2).execute()
    const row = rows.length === 1 ? rows[0]! : undefined
    if (!row) return undefined
    if (!repository.url.startsWith('https://')) return undefined
    const host = hostOf(repository.url)
    if (host === undefined || !gitTokenHosts(row.type, row.gitApiUrl).includes(host)) return undefined
    return { username: GIT_USERNAMES[row.type] ?? 'x-access-token', token: secrets.open(row.tokenSealed) }
  }
}
