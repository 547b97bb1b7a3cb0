import { type Agent, fetch } from 'undici'
import { readCappedText } from '#src/platform/http/capped-body.ts'
import { AppError } from '#src/platform/http/errors.ts'
import { createGuardedAgent } from './address-guard.ts'
import { type CallContext, failedCallError, unreachableError } from './provider-errors.ts'

/** One call of a provider's JSON API (a GET unless `method` says otherwise). `headers` carry the credential: never log or quote them. */
export interface ProviderCall {
  /** A write (a repository's webhook) sends `body` as JSON. */
  method?: 'GET' | 'POST' | 'PATCH' | 'PUT'
  body?: unknown
  provider: string
  repository: string
  url: URL
  headers: Record<string, string>
  /** The listing's deadline (and its abort when a sibling call fails): every call has one. */
  signal: AbortSignal
  /** The error for a 404, 410 or 422 when the call names something inside the repository (a commit), rather than the repository's. */
  missing?: () => AppError
}

export interface ProviderAnswer {
  body: unknown
  headers: Headers
  /** Where the answer came from, after same-origin redirects. */
  url: URL
}

/** The provider answered JSON, but not in the shape its API documents. */
export const unexpectedAnswer = (provider: string) =>
  new AppError('bad_gateway', `${provider} answered in a shape its API does not have; does git_api_url lead to its API?`)

/** `body` as a list of objects with a string `name` each (branches), else 502. */
export function namedItems<T extends { name: string }>(body: unknown, provider: string): T[] {
  if (!Array.isArray(body) || body.some((item) => typeof item?.name !== 'string')) throw unexpectedAnswer(provider)
  return body
}

/** A page larger than this is not a branch list; refuse it rather than hold it in memory. */
const MAX_BODY_BYTES = 16 * 1024 * 1024
/** An error's body is read only for its message: a small one. */
const MAX_ERROR_BODY_BYTES = 64 * 1024
const MAX_REDIRECTS = 5
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308])
const USER_AGENT = 'berth (branch listing)'

type FetchResponse = Awaited<ReturnType<typeof fetch>>

/** The `message` of a JSON error body (GitHub's `{"message": …}`), for telling errors apart; never quoted. */
async function errorMessage(response: FetchResponse): Promise<string | undefined> {
  const text = await readCappedText(response, MAX_ERROR_BODY_BYTES).catch(() => undefined)
  try {
    const message = (JSON.parse(text ?? '') as { message?: unknown } | null)?.message
    return typeof message === 'string' ? message : undefined
  } catch {
    return undefined
  }
}

/**
 * Calls to git providers: each bounded by its caller's signal (the listing's deadline), through an
 * agent that refuses private addresses unless allowed, and every failure turned into a distinct AppError.
 */
export function createProviderHttp(settings: { allowPrivateUrls: boolean }, clock: () => number = Date.now) {
  let agent: Agent | undefined

  /**
   * Redirects are followed by hand (GitHub redirects renamed repositories), and only within the
   * origin of the call: a redirect to another host is refused before that host is called, as the
   * next call would carry the credential and its answer would steer pagination.
   */
  async function fetchFollowingSameOrigin(call: ProviderCall, context: CallContext): Promise<{ response: FetchResponse; url: URL }> {
    let url = call.url
    for (let redirects = 0; ; redirects++) {
      const write = call.body === undefined ? {} : { body: JSON.stringify(call.body), headers: { 'content-type': 'application/json' } }
      const response = await fetch(url, {
        method: call.method ?? 'GET',
        headers: { accept: 'application/json', 'user-agent': USER_AGENT, ...write.headers, ...call.headers },
        ...(write.body === undefined ? {} : { body: write.body }),
        dispatcher: agent,
        signal: call.signal,
        redirect: 'manual',
      })
      const location = response.headers.get('location')
      if (!REDIRECT_STATUSES.has(response.status) || location === null) return { response, url }
      await response.body?.cancel()
      const target = URL.canParse(location, url.href) ? new URL(location, url) : undefined
      if (!target || target.origin !== call.url.origin) {
        throw new AppError(
          'bad_gateway',
          `${context.provider} redirected the call for repository "${context.repository}" to another host${target ? ` (${target.host})` : ''}; ` +
            'refused, since it would receive the git token',
        )
      }
      if (redirects >= MAX_REDIRECTS) throw new AppError('bad_gateway', `${context.provider} redirected more than ${MAX_REDIRECTS} times; refused`)
      url = target
    }
  }

  return {
    async getJson(call: ProviderCall): Promise<ProviderAnswer> {
      const context: CallContext = { provider: call.provider, repository: call.repository, host: call.url.host }
      // Checked on every call, not only when the token is saved: a token stored while private URLs
      // were allowed (or before this check existed) must not travel in clear once they are not.
      if (call.url.protocol !== 'https:' && !settings.allowPrivateUrls) {
        throw new AppError(
          'bad_request',
          `the git token's git_api_url ${call.url.origin} is plain http: the token would travel in clear text ` +
            '(BERTH_ALLOW_PRIVATE_URLS=true allows it for a git server on your own network)',
        )
      }
      agent ??= createGuardedAgent(settings.allowPrivateUrls)
      try {
        const { response, url } = await fetchFollowingSameOrigin(call, context)
        if (!response.ok) {
          if (call.missing && [404, 410, 422].includes(response.status)) {
            await response.body?.cancel()
            throw call.missing()
          }
          // GitHub's secondary rate limits are 403s that only the message tells apart.
          let message: string | undefined
          if (response.status === 403) message = await errorMessage(response)
          else await response.body?.cancel()
          throw failedCallError(context, response.status, response.headers, clock(), message)
        }
        const text = await readCappedText(response, MAX_BODY_BYTES)
        // A write may answer 204 without a body.
        if (text === '' && call.method !== undefined && call.method !== 'GET') return { body: null, headers: response.headers, url }
        if (text === undefined) throw new AppError('bad_gateway', `${call.provider} sent a page larger than ${MAX_BODY_BYTES / 1024 / 1024} MiB`)
        let body: unknown
        try {
          body = JSON.parse(text)
        } catch {
          throw new AppError('bad_gateway', `${call.provider} at ${context.host} answered with something that is not JSON`)
        }
        return { body, headers: response.headers, url }
      } catch (error) {
        if (error instanceof AppError) throw error
        throw unreachableError(context, error)
      }
    },

    /**
     * Aborts the calls still under way rather than waiting for them: once the server has closed,
     * no client waits for their answers, and a slow provider must not hold the shutdown (and the
     * database connections the later close hooks release) for up to BERTH_GIT_TIMEOUT_MS.
     */
    async close(): Promise<void> {
      await agent?.destroy()
    },
  }
}

export type ProviderHttp = Pick<ReturnType<typeof createProviderHttp>, 'getJson'>
