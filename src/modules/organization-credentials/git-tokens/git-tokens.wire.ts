import { credentialNameAndDescription, credentialResponseHead } from '../credentials.wire.ts'
import type { GitProvider, GitTokenRequest, GitTokenResponse } from './git-tokens.schemas.ts'
import type { GitTokenInput, GitTokenRow } from './git-tokens.service.ts'

/** A git token as the reference's `GitTokenResponse`: never with its secret. */
export function toGitTokenResponse(row: GitTokenRow): GitTokenResponse {
  return {
    ...credentialResponseHead(row),
    description: row.description,
    type: row.type as GitProvider,
    expired_at: row.expiredAt?.toISOString().slice(0, 10) ?? null,
    workspace: row.workspace,
    associated_services_count: row.associatedServicesCount,
    git_api_url: row.gitApiUrl,
  }
}

const blankToNull = (text: string | null | undefined) => (text?.trim() ? text.trim() : null)

/**
 * A validated request as the service's input. The token is trimmed too: a pasted token often ends
 * in a newline, and no provider's token starts or ends with white space.
 */
export function gitTokenInput(body: GitTokenRequest): GitTokenInput {
  return {
    ...credentialNameAndDescription(body),
    type: body.type,
    token: body.token.trim(),
    workspace: blankToNull(body.workspace),
    gitApiUrl: blankToNull(body.git_api_url),
  }
}
