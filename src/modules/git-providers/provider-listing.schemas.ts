import { Type } from 'typebox'
import type { GitProvider } from '#src/platform/git-provider-names.ts'

// What the routes listing at a git provider with a git token (branches, repositories) share: one
// route per provider, and the ways such a listing fails.

/** Each provider as its listing routes name it: `/account/github/…`, `getOrganizationGithub…`. */
export const PROVIDER_ROUTES: { provider: GitProvider; segment: string; name: string }[] = [
  { provider: 'GITHUB', segment: 'github', name: 'Github' },
  { provider: 'GITLAB', segment: 'gitlab', name: 'Gitlab' },
  { provider: 'BITBUCKET', segment: 'bitbucket', name: 'Bitbucket' },
]

const error = (description: string, extra: object = {}) => Type.Ref('ErrorResponse', { description, ...extra })

/** A listing's error responses; `notFound` says what its 404 means. */
export const listingErrors = (notFound: string) => ({
  400: error(
    'an invalid query, or a `gitTokenId` of another provider, or none where the organization has no or several tokens of the provider (`validation_failed`); ' +
      'the provider refused the git token (`git_token_invalid`); the git token’s git_api_url leads to a private address (`bad_request`)',
  ),
  404: error(notFound),
  429: error('the provider’s rate limit for the git token is exhausted (`rate_limited`); retry after `Retry-After` seconds', {
    headers: { 'Retry-After': Type.Integer({ description: 'seconds until the provider’s limit resets' }) },
  }),
  502: error('the provider could not be reached, failed, redirected to another host, or answered something unusable (`bad_gateway`)'),
  504: error('the provider did not give every page of the listing within BERTH_GIT_TIMEOUT_MS (`gateway_timeout`)'),
})
