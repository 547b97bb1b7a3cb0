import rateLimit from '@fastify/rate-limit'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Principal } from '../auth/principal.ts'
import { AppError } from './errors.ts'

/** What one limiter tells of a request: the numbers the RateLimit headers and a 429 carry. */
interface LimitState {
  max: number
  remaining: number
  ttlInSeconds: number
  isExceeded: boolean
}

type Limiter = (request: FastifyRequest, options?: { increment?: boolean }) => Promise<LimitState>

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Health probes: load balancers call them often, and must not be refused for it. */
    unlimited?: boolean
    /**
     * Git webhooks: the credential is a provider's signature, and one provider address delivers for
     * every organization, so that one organization's wrong secret must not lock the others out.
     * Their 401s are neither counted nor refused as failed authentications of the address.
     */
    providerSigned?: boolean
  }
}

/**
 * Counts one minting (an API token, or an organization made by an API token) against the limit of
 * a tree of organizations, named by its root organization; throws 429 past the limit. Services call
 * it once they have checked that the caller may mint there, so that nobody can spend another
 * organization's budget.
 */
export type MintAdmission = (rootOrganizationId: string) => Promise<void>

/** No limit: for callers outside HTTP (factories, `berth token create`). */
export const admitAll: MintAdmission = async () => {}

/** Minting limits count per minute, whatever BERTH_RATE_LIMIT_WINDOW_MS says. */
const MINT_WINDOW_MS = 60_000

const credentialKey = (principal: Principal) => (principal.kind === 'api_token' ? `token:${principal.apiTokenId}` : `user:${principal.userId}`)

/**
 * The IETF RateLimit fields (draft-ietf-httpapi-ratelimit-headers: `RateLimit-Policy` and
 * `RateLimit`), and the earlier drafts' `RateLimit-Limit`/`-Remaining`/`-Reset` that many clients
 * read, for the limit a response counted against.
 */
function setRateLimitHeaders(reply: FastifyReply, policy: string, windowS: number, state: LimitState): void {
  reply.header('ratelimit-policy', `"${policy}";q=${state.max};w=${windowS}`)
  reply.header('ratelimit', `"${policy}";r=${state.remaining};t=${state.ttlInSeconds}`)
  reply.header('ratelimit-limit', state.max)
  reply.header('ratelimit-remaining', state.remaining)
  reply.header('ratelimit-reset', state.ttlInSeconds)
}

function tooMany(what: string, state: LimitState): AppError {
  const retryAfter = String(Math.max(1, state.ttlInSeconds))
  return new AppError('rate_limited', `too many ${what}; retry in ${retryAfter} s`, { headers: { 'retry-after': retryAfter } })
}

/** How many requests each counter allows per window (BERTH_RATE_LIMIT_*). */
export interface RateLimits {
  readonly windowMs: number
  /** Per API token or user, after authentication. */
  readonly perCredential: number
  /** Per client address, before authentication (health probes are not counted). */
  readonly perAddress: number
  /** Failed authentications (401s) per client address; past it, that address may not try again until the window ends. */
  readonly failedAuthPerAddress: number
  /**
   * API tokens and organizations minted through the API per minute, per tree of organizations (an
   * organization with those its tokens created, and theirs), whoever mints them.
   */
  readonly mintsPerMinute: number
}

/**
 * Per-process request limits (BERTH_RATE_LIMIT_*), counted in fixed windows by
 * `@fastify/rate-limit`'s in-memory store:
 * - per client address, on every request before authentication (`registerAddressLimits`);
 * - per client address, on failed authentications (401s): past the limit the address may not
 *   present credentials again until the window ends, whichever credential it tries;
 * - per credential (API token or user) once authenticated (`limitCredentials`).
 * A limit of 0 is no limit. Exceeding one is 429 in the error shape with `Retry-After`.
 */
export async function registerRateLimits(app: FastifyInstance, limits: RateLimits) {
  await app.register(rateLimit, { global: false })
  const windowS = Math.ceil(limits.windowMs / 1000)
  const limiter = (max: number, keyGenerator?: (request: FastifyRequest) => string): Limiter | undefined =>
    max > 0 ? (app.createRateLimit({ max, timeWindow: limits.windowMs, ...(keyGenerator ? { keyGenerator } : {}) }) as Limiter) : undefined

  const perAddress = limiter(limits.perAddress)
  const failedAuths = limiter(limits.failedAuthPerAddress)
  const perCredential = limiter(limits.perCredential, (request) => credentialKey(request.principal))

  /** Before authentication: the address's own budget, then whether it may still try credentials. */
  app.addHook('onRequest', async (request, reply) => {
    if (request.routeOptions.config.unlimited) return
    if (perAddress) {
      const state = await perAddress(request)
      setRateLimitHeaders(reply, 'address', windowS, state)
      if (state.isExceeded) throw tooMany('requests from this address', state)
    }
    if (failedAuths && !request.routeOptions.config.public && !request.routeOptions.config.providerSigned) {
      // A peek counts nothing: the limit is reached once the failures already counted fill it.
      const state = await failedAuths(request, { increment: false })
      if (state.remaining === 0) throw tooMany('failed authentications from this address', state)
    }
  })
  if (failedAuths) {
    // Fastify's callback form: no promise for the responses that are not 401s.
    app.addHook('onResponse', (request, reply, done) => {
      if (reply.statusCode !== 401 || request.routeOptions.config.providerSigned) return done()
      failedAuths(request).then(() => done(), done)
    })
  }

  // The key of a minting is the tree it happens in, known only once the service has found it.
  const mintKeys = new WeakMap<FastifyRequest, string>()
  const mints =
    limits.mintsPerMinute > 0
      ? (app.createRateLimit({
          max: limits.mintsPerMinute,
          timeWindow: MINT_WINDOW_MS,
          keyGenerator: (request) => mintKeys.get(request)!,
        }) as Limiter)
      : undefined

  return {
    /**
     * The minting limit (BERTH_TOKEN_MINTS_PER_MINUTE) for the service handling `request`: per tree
     * of organizations (an organization, those its tokens created, and theirs), so that neither
     * new tokens nor new organizations give a leaked token a fresh budget.
     */
    mintAdmission(request: FastifyRequest): MintAdmission {
      if (!mints) return admitAll
      return async (rootOrganizationId) => {
        mintKeys.set(request, `mint:${rootOrganizationId}`)
        const state = await mints(request)
        if (state.isExceeded) throw tooMany(`API tokens and organizations minted in this organization (at most ${state.max} a minute)`, state)
      }
    },

    /** After authentication, in the scope whose routes need credentials: the credential's own budget. */
    limitCredentials(api: FastifyInstance): void {
      if (!perCredential) return
      api.addHook('onRequest', async (request, reply) => {
        if (request.is404 || request.routeOptions.config.public || !request.principal) return
        const state = await perCredential(request)
        setRateLimitHeaders(reply, 'credential', windowS, state)
        if (state.isExceeded) throw tooMany('requests with this credential', state)
      })
    },
  }
}
