import type { FastifyInstance, FastifyRequest } from 'fastify'
import { AppError } from '../http/errors.ts'
import type { Principal } from './principal.ts'
import { storedPolicyAllows } from './token-policy.ts'

/** Turns the credential of one scheme into a principal, or throws `unauthenticated`. */
export interface Authenticators {
  token(apiToken: string): Promise<Principal>
  bearer?(jwt: string): Promise<Principal>
}

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal
  }
  interface FastifyContextConfig {
    /** Routes that answer without credentials (health, OpenAPI document, docs). */
    public?: boolean
  }
}

const SCHEME = /^(Token|Bearer)[ ]+(\S+)[ ]*$/i

async function principalFor(request: FastifyRequest, authenticators: Authenticators): Promise<Principal> {
  const header = request.headers.authorization
  if (header === undefined || header.trim() === '') {
    throw new AppError('unauthenticated', 'missing credentials: send "Authorization: Token <api token>" or "Authorization: Bearer <jwt>"')
  }
  const match = SCHEME.exec(header)
  if (!match) throw new AppError('unauthenticated', 'malformed Authorization header: expected "Token <api token>" or "Bearer <jwt>"')
  const [, scheme, credential] = match as unknown as [string, string, string]
  if (scheme.toLowerCase() === 'token') return authenticators.token(credential)
  if (!authenticators.bearer) {
    throw new AppError(
      'unauthenticated',
      'Bearer authentication is not configured on this server (BERTH_OIDC_ISSUER is unset); use "Token <api token>"',
    )
  }
  return authenticators.bearer(credential)
}

/**
 * Authenticates every request of the instance it is registered on, except routes marked
 * `config.public`. Runs before body parsing and validation, so unauthenticated callers learn
 * nothing about a route's inputs.
 */
export function registerAuthentication(app: FastifyInstance, authenticators: Authenticators): void {
  app.decorateRequest<Principal>('principal', undefined as unknown as Principal)
  app.addHook('onRequest', async (request) => {
    // Unknown routes answer 404 whatever the credentials, so a wrong base path is easy to spot.
    if (request.is404 || request.routeOptions.config.public) return
    const principal = await principalFor(request, authenticators)
    request.principal = principal
    // A policy token's policy decides first (token-policy.ts); its role is checked by the route after.
    if (principal.kind === 'api_token' && principal.policy) {
      const path = request.url.split('?')[0] ?? request.url
      const input = {
        method: request.method,
        path,
        route: request.routeOptions.url ?? '',
        operation_id: (request.routeOptions.schema as { operationId?: string } | undefined)?.operationId,
        params: (request.params ?? {}) as Record<string, string>,
      }
      if (!storedPolicyAllows(principal.policy, input))
        throw new AppError('forbidden', `the policy of the API token "${principal.name}" does not allow ${request.method} ${path}`)
    }
  })
}
