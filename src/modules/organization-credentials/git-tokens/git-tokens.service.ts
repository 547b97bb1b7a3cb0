import type { Db } from '#src/platform/db/database.ts'
import type { SecretBox } from '#src/platform/secrets/secret-box.ts'
import { type CredentialRow, createCredentialsRepository } from '../credentials.repository.ts'
import { type CredentialsDeps, createCredentialsService } from '../credentials.service.ts'
import { checkGitToken } from './git-tokens.rules.ts'
import type { GitProvider } from './git-tokens.schemas.ts'

/** A git token without its sealed secret, with the number of helm services that use it. */
export type GitTokenRow = CredentialRow<'gitTokens', 'tokenSealed'>

/** A git token as created or fully replaced; `token` is the provider's secret. */
export interface GitTokenInput {
  name: string
  description: string | null
  type: GitProvider
  token: string
  workspace: string | null
  gitApiUrl: string | null
}

export const createGitTokensRepository = (db: Db) =>
  createCredentialsRepository(db, {
    table: 'gitTokens',
    sqlTable: 'git_tokens',
    referenceColumn: 'git_token_id',
    columns: ['id', 'organizationId', 'name', 'description', 'type', 'workspace', 'gitApiUrl', 'expiredAt', 'createdAt', 'updatedAt'],
    sealed: 'tokenSealed',
  })

interface Deps extends Omit<CredentialsDeps, 'onChanged'> {
  db: Db
  secrets: SecretBox
  /** Why a git_api_url may not be used (it leads into the server's network), or undefined. */
  gitApiUrlProblem?: (url: URL) => string | undefined
  /** Told after a token is edited or deleted, so that what was read with it (branch listings) is forgotten. */
  onGitTokenChanged?: (gitTokenId: string) => void
}

/** The organization's git tokens: an edit is a full replacement, the token included; the token is never returned. */
export function createGitTokensService({ db, secrets, gitApiUrlProblem, onGitTokenChanged, ...deps }: Deps) {
  const repo = createGitTokensRepository(db)
  const crud = createCredentialsService(
    {
      repo,
      noun: 'git token',
      nameIndex: 'git_tokens_name_key',
      usedBy: 'helm service(s)',
      toColumns(input: GitTokenInput) {
        checkGitToken(input, gitApiUrlProblem)
        // Sealed before it reaches the database; the plaintext is never stored or returned.
        const { name, description, type, workspace, gitApiUrl } = input
        return { name, description, type, workspace, gitApiUrl, tokenSealed: secrets.seal(input.token) }
      },
    },
    { ...deps, onChanged: onGitTokenChanged },
  )

  return {
    ...crud,

    /** For other modules, which have checked the caller's rights: the token, or undefined. */
    findGitToken: crud.find,

    /** For other modules, which have checked the caller's rights: whether the organization has the token. */
    hasGitToken: async (organizationId: string, gitTokenId: string) => (await crud.find(organizationId, gitTokenId)) !== undefined,

    /** For other modules, which have checked the caller's rights: the organization's tokens, without secrets. */
    listGitTokens: (organizationId: string) => repo.listUncounted(organizationId),

    /** For the git provider adapters: the token with its opened secret, or undefined. Never log `token`. */
    async openGitToken(organizationId: string, gitTokenId: string): Promise<{ row: GitTokenRow; token: string } | undefined> {
      const found = await repo.findSealed(organizationId, gitTokenId)
      if (!found) return undefined
      const { tokenSealed, ...row } = found
      return { row, token: secrets.open(tokenSealed) }
    },
  }
}

export type GitTokensService = ReturnType<typeof createGitTokensService>
