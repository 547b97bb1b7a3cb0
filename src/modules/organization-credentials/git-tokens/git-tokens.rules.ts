import { type FieldError, validationFailed } from '#src/platform/http/errors.ts'
import { hasUrlCredentials, urlCredentialsMessage } from '#src/platform/http/url-credentials.ts'
import type { GitProvider } from './git-tokens.schemas.ts'

function isHttpUrl(text: string): boolean {
  const url = URL.canParse(text) ? new URL(text) : undefined
  return !!url && (url.protocol === 'https:' || url.protocol === 'http:') && url.hostname !== ''
}

/**
 * The rules the schema cannot say, all reported at once (a 400). Messages never include the token.
 * `gitApiUrlProblem`: why a git_api_url may not be used (it leads into the server's network).
 */
export function checkGitToken(
  input: { type: GitProvider; workspace: string | null; gitApiUrl: string | null },
  gitApiUrlProblem: ((url: URL) => string | undefined) | undefined,
): void {
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
