import { AppError } from '#src/platform/http/errors.ts'
import { PrivateAddressError } from './address-guard.ts'

/** What a failed call was about, for messages. Never the token: nothing here may carry it. */
export interface CallContext {
  /** The provider's name for people: GitHub, GitLab, Bitbucket. */
  provider: string
  repository: string
  host: string
}

/** Without any hint from the provider (Bitbucket's limits roll over an hour; GitHub's secondary limits), retry after a minute. */
const DEFAULT_RETRY_AFTER_S = 60
const MAX_RETRY_AFTER_S = 24 * 3600

/**
 * Seconds until a rate limit resets, from the provider's headers: `Retry-After` (seconds or an HTTP
 * date), else a reset time (GitHub's `x-ratelimit-reset`, GitLab's `ratelimit-reset`: Unix seconds).
 * Times are measured against the response's own `Date`, so that the server's clock skew does not count.
 */
export function retryAfterSeconds(headers: Headers, now: number): number {
  const providerNow = Date.parse(headers.get('date') ?? '') || now
  const retryAfter = headers.get('retry-after')?.trim()
  let seconds: number | undefined
  if (retryAfter && /^\d+$/.test(retryAfter)) seconds = Number(retryAfter)
  else if (retryAfter && !Number.isNaN(Date.parse(retryAfter))) seconds = (Date.parse(retryAfter) - providerNow) / 1000
  else {
    const reset = headers.get('x-ratelimit-reset') ?? headers.get('ratelimit-reset')
    if (reset && /^\d+$/.test(reset.trim())) {
      const value = Number(reset)
      // A large value is a Unix time; a small one (IETF RateLimit-Reset) is already a delay.
      seconds = value > 1e9 ? value - providerNow / 1000 : value
    }
  }
  if (seconds === undefined || !Number.isFinite(seconds)) return DEFAULT_RETRY_AFTER_S
  return Math.min(MAX_RETRY_AFTER_S, Math.max(1, Math.ceil(seconds)))
}

/** GitHub answers 403 rather than 429 when a rate limit is exhausted; its headers tell them apart. */
function isRateLimited(status: number, headers: Headers): boolean {
  if (status === 429) return true
  return status === 403 && (headers.get('x-ratelimit-remaining') === '0' || headers.has('retry-after'))
}

/**
 * GitHub's secondary rate limits (too many calls at once or per minute) are 403s whose headers look
 * like any other; only the body's message names them. GitHub asks to wait at least a minute then.
 */
const isSecondaryRateLimit = (status: number, message: string | undefined) => status === 403 && /rate limit/i.test(message ?? '')

const rateLimited = (provider: string, seconds: number) =>
  new AppError('rate_limited', `${provider}'s rate limit for this git token is exhausted; retry in ${seconds} s`, {
    headers: { 'retry-after': String(seconds) },
  })

/**
 * The error for a provider's non-2xx answer: distinct codes for the token, the repository, limits and
 * outages. `message` is the body's (read for 403 only): it tells limits apart and is never quoted.
 */
export function failedCallError(context: CallContext, status: number, headers: Headers, now: number, message?: string): AppError {
  const { provider, repository } = context
  if (isRateLimited(status, headers)) return rateLimited(provider, retryAfterSeconds(headers, now))
  // Its x-ratelimit-reset is the primary limit's, which is not the one exhausted: not used.
  if (isSecondaryRateLimit(status, message)) return rateLimited(provider, DEFAULT_RETRY_AFTER_S)
  switch (status) {
    case 401:
      return new AppError('git_token_invalid', `${provider} rejected the git token (401): it is wrong, expired or revoked; edit the git token`)
    case 403:
      return new AppError(
        'git_token_invalid',
        `${provider} refused the git token access to repository "${repository}" (403): it lacks a scope or permission to read it`,
      )
    case 404:
    case 410:
      return new AppError('repository_not_found', `repository "${repository}" not found at ${provider}, or the git token cannot see it`)
    default:
      return new AppError('bad_gateway', `${provider} answered ${status} for repository "${repository}"; try again later`)
  }
}

function causes(error: unknown): unknown[] {
  const chain: unknown[] = []
  for (let current = error; current !== undefined && chain.length < 5; current = (current as { cause?: unknown } | null)?.cause) {
    chain.push(current)
  }
  return chain
}

/** The error for a call that got no usable answer: refused address, timeout, or a network failure. */
export function unreachableError(context: CallContext, error: unknown): AppError {
  const chain = causes(error)
  const refused = chain.find((cause) => cause instanceof PrivateAddressError)
  if (refused) {
    return new AppError(
      'bad_request',
      `the git token's git_api_url leads to ${refused.host}, a loopback, private, link-local or metadata address; ` +
        'the server allows those only with BERTH_ALLOW_PRIVATE_URLS=true',
    )
  }
  if (chain.some((cause) => cause instanceof Error && cause.name === 'TimeoutError')) {
    return new AppError('gateway_timeout', `${context.provider} at ${context.host} did not answer within BERTH_GIT_TIMEOUT_MS; try again later`)
  }
  const code = chain.map((cause) => (cause as { code?: unknown } | null)?.code).find((value) => typeof value === 'string')
  return new AppError('bad_gateway', `could not reach ${context.provider} at ${context.host}${code ? ` (${code})` : ''}; try again later`)
}
