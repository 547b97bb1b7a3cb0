import type { OrganizationsService } from '#src/modules/organizations/organizations.service.ts'
import type { Principal } from '#src/platform/auth/principal.ts'
import { whenParentGone, withUniqueName } from '#src/platform/db/errors.ts'
import { AppError, type FieldError, notFound, validationFailed } from '#src/platform/http/errors.ts'
import { type CappedList, capped, DEFAULT_LIST_LIMIT } from '#src/platform/http/lists.ts'
import { hasUrlCredentials, urlCredentialsMessage } from '#src/platform/http/url-credentials.ts'
import type { SecretBox } from '#src/platform/secrets/secret-box.ts'
import type { GitTokenRow, GitTokensRepository } from './git-tokens.repository.ts'
import type { GitProvider } from './git-tokens.schemas.ts'

interface Deps {
  repo: GitTokensRepository
  organizations: OrganizationsService
  secrets: SecretBox
  /** Why a git_api_url may not be used (it leads into the server's network), or undefined. */
  gitApiUrlProblem?: (url: URL) => string | undefined
  /** Told after a token is edited or deleted, so that what was read with it (branch listings) is forgotten. */
  onGitTokenChanged?: (gitTokenId: string) => void
  /** The most git tokens a list answers with (BERTH_LIST_LIMIT). */
  listLimit?: number
}

/** A git token as created or fully replaced; `token` is the provider's secret. */
export interface GitTokenInput {
  name: string
  description: string | null
  type: GitProvider
  token: string
  workspace: string | null
  gitApiUrl: string | null
}

const nameTaken = (name: string) => new AppError('conflict', `a git token named "${name}" already exists in this organization`)

function isHttpUrl(text: string): boolean {
  const url = URL.canParse(text) ? new URL(text) : undefined
  return !!url && (url.protocol === 'https:' || url.protocol === 'http:') && url.hostname !== ''
}

/** The rules the schema cannot say, all reported at once. Messages never include the token. */
function checkInput(input: GitTokenInput, gitApiUrlProblem: Deps['gitApiUrlProblem']): void {
  const errors: FieldError[] = []
  if (input.type === 'BITBUCKET' && !input.workspace) {
    errors.push({ path: '/workspace', message: 'is required for a BITBUCKET token', location: 'body' })
  }
  if (input.gitApiUrl !== null && hasUrlCredentials(input.gitApiUrl)) {
    errors.push({ path: '/git_api_url', message: urlCredentialsMessage("the provider's token goes in token"), location: 'body' })
  } else if (input.gitApiUrl !== null && !isHttpUrl(input.gitApiUrl)) {
    errors.push({ path: '/git_api_url', message: 'must be an absolute http or https URL', location: 'body' })
  } else if (input.gitApiUrl !== null) {
    const problem = gitApiUrlProblem?.(new URL(input.gitApiUrl))
    if (problem) errors.push({ path: '/git_api_url', message: problem, location: 'body' })
  }
  if (errors.length > 0) throw validationFailed(errors)
}

export function createGitTokensService({ repo, organizations, secrets, gitApiUrlProblem, onGitTokenChanged, listLimit = DEFAULT_LIST_LIMIT }: Deps) {
  /** The token sealed before it reaches the database; the plaintext is never stored or returned. */
  const toColumns = (input: GitTokenInput) => ({
    name: input.name,
    description: input.description,
    type: input.type,
    workspace: input.workspace,
    gitApiUrl: input.gitApiUrl,
    tokenSealed: secrets.seal(input.token),
  })

  return {
    async list(principal: Principal, organizationId: string): Promise<CappedList<GitTokenRow>> {
      await organizations.requireRole(principal, organizationId, 'READ')
      return capped(listLimit, (limit) => repo.list(organizationId, limit))
    },

    async get(principal: Principal, organizationId: string, gitTokenId: string): Promise<GitTokenRow> {
      await organizations.requireRole(principal, organizationId, 'READ')
      const row = await repo.findById(organizationId, gitTokenId)
      if (!row) throw notFound('git token')
      return row
    },

    async create(principal: Principal, organizationId: string, input: GitTokenInput): Promise<GitTokenRow> {
      await organizations.requireRole(principal, organizationId, 'WRITE')
      checkInput(input, gitApiUrlProblem)
      return whenParentGone(
        () => notFound('organization'),
        () =>
          withUniqueName(
            'git_tokens_name_key',
            () => nameTaken(input.name),
            () => repo.insert({ organizationId, ...toColumns(input) }),
          ),
      )
    },

    /** A full replacement, the token included: an omitted optional field is cleared. */
    async update(principal: Principal, organizationId: string, gitTokenId: string, input: GitTokenInput): Promise<GitTokenRow> {
      await organizations.requireRole(principal, organizationId, 'WRITE')
      checkInput(input, gitApiUrlProblem)
      const row = await withUniqueName(
        'git_tokens_name_key',
        () => nameTaken(input.name),
        () => repo.update(organizationId, gitTokenId, toColumns(input)),
      )
      if (!row) throw notFound('git token')
      onGitTokenChanged?.(gitTokenId)
      return row
    },

    async delete(principal: Principal, organizationId: string, gitTokenId: string): Promise<void> {
      await organizations.requireRole(principal, organizationId, 'WRITE')
      const result = await repo.deleteUnlessUsed(organizationId, gitTokenId)
      if (!result) throw notFound('git token')
      if (result.usedBy > 0) {
        throw new AppError('conflict', `the git token is used by ${result.usedBy} helm service(s); change or delete them first`)
      }
      onGitTokenChanged?.(gitTokenId)
    },

    /** For other modules, which have checked the caller's rights: the token, or undefined. */
    findGitToken(organizationId: string, gitTokenId: string): Promise<GitTokenRow | undefined> {
      return repo.findById(organizationId, gitTokenId)
    },

    /** For other modules, which have checked the caller's rights: the organization's tokens, without secrets. */
    listGitTokens(organizationId: string): Promise<Omit<GitTokenRow, 'associatedServicesCount'>[]> {
      return repo.listUncounted(organizationId)
    },

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
