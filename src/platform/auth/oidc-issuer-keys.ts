import { createLocalJWKSet, createRemoteJWKSet, errors, type FlattenedJWSInput, type JSONWebKeySet, type JWSHeaderParameters } from 'jose'

// The OpenID Connect issuer's keys: its discovery document read, its keys fetched and fetched again
// on rotation, and the key a token names picked from them. oidc-verifier.ts verifies with them.

const FETCH_TIMEOUT_MS = 5_000
/** Keys are fetched again after this long even when every `kid` is known, so removed keys stop working. */
const KEYS_MAX_AGE_MS = 10 * 60_000
/** The discovery document is read again after this long (and after the keys could not be fetched), so a moved `jwks_uri` is followed. */
const DISCOVERY_MAX_AGE_MS = 60 * 60_000

export interface OidcIssuerKeysOptions {
  issuer: string
  /** The least time between two fetches from the issuer that an unknown `kid` or a failure triggers. */
  cooldownMs: number
  /** Told when the issuer could not be reached, once per failure. */
  onIssuerError: (error: unknown, what: string) => void
}

type RemoteKeySet = ReturnType<typeof createRemoteJWKSet>

interface DiscoveredKeys {
  jwksUri: string
  remote: RemoteKeySet
  discoveredAt: number
}

/** The issuer could not be asked (down, timing out, or answering nonsense): not the caller's fault. */
export class IssuerUnavailable extends Error {}

/** The issuer publishes the key the token names, but it cannot verify anything (an RSA key under 2048 bits, say). */
export class KeyNotUsable extends Error {}

/**
 * The issuer's keys, as `jwtVerify` asks for them. The discovery document and keys are fetched on
 * first use, not at start-up, so an issuer that is down costs Bearer requests a 503 and nothing
 * else; `jose`'s remote key set re-fetches on an unknown `kid` (key rotation) at most once per
 * cooldown, so a burst of forged `kid`s cannot make Berth hammer the issuer.
 */
export function createOidcIssuerKeys({ issuer, cooldownMs, onIssuerError }: OidcIssuerKeysOptions) {
  const discoveryUrl = `${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`
  const httpsIssuer = new URL(issuer).protocol === 'https:'
  let keys: DiscoveredKeys | undefined
  let discovering: Promise<DiscoveredKeys> | undefined
  let discoveryFailedAt = Number.NEGATIVE_INFINITY
  let keysFailedAt = Number.NEGATIVE_INFINITY

  const coolingDown = (since: number) => Date.now() - since < cooldownMs

  async function discover(): Promise<DiscoveredKeys> {
    try {
      const response = await fetch(discoveryUrl, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) })
      if (response.status !== 200) throw new IssuerUnavailable(`${discoveryUrl} answered HTTP ${response.status}`)
      const metadata = (await response.json()) as { issuer?: unknown; jwks_uri?: unknown }
      // OpenID Connect Discovery 1.0, section 4.3: the document must name the issuer it was fetched for.
      if (metadata.issuer !== issuer) throw new IssuerUnavailable(`${discoveryUrl} names issuer ${String(metadata.issuer)}, not ${issuer}`)
      const jwksUri = typeof metadata.jwks_uri === 'string' && URL.canParse(metadata.jwks_uri) ? new URL(metadata.jwks_uri) : undefined
      if (!jwksUri || (jwksUri.protocol !== 'https:' && jwksUri.protocol !== 'http:')) {
        throw new IssuerUnavailable(`${discoveryUrl} has no usable jwks_uri`)
      }
      // Keys fetched over plain HTTP could be swapped on the way; an https issuer must not be downgraded so.
      if (httpsIssuer && jwksUri.protocol !== 'https:') throw new IssuerUnavailable(`${discoveryUrl} has a jwks_uri that is not https`)
      const discoveredAt = Date.now()
      // The same key set is kept when the jwks_uri has not moved, with the keys it holds.
      if (keys?.jwksUri === jwksUri.href) return { ...keys, discoveredAt }
      const remote = createRemoteJWKSet(jwksUri, { timeoutDuration: FETCH_TIMEOUT_MS, cooldownDuration: cooldownMs, cacheMaxAge: KEYS_MAX_AGE_MS })
      return { jwksUri: jwksUri.href, remote, discoveredAt }
    } catch (error) {
      discoveryFailedAt = Date.now()
      onIssuerError(error, `OpenID Connect discovery at ${discoveryUrl} failed; Bearer requests without usable keys get 503`)
      throw error instanceof IssuerUnavailable ? error : new IssuerUnavailable('discovery failed', { cause: error })
    }
  }

  /** The key set, discovered anew when it is old or its keys could not be fetched; the old one while the issuer fails. */
  async function remoteKeySet(): Promise<RemoteKeySet> {
    const due = !keys || Date.now() - keys.discoveredAt >= DISCOVERY_MAX_AGE_MS || (keysFailedAt >= keys.discoveredAt && !coolingDown(keysFailedAt))
    if (!due) return keys!.remote
    if (coolingDown(discoveryFailedAt)) {
      if (keys) return keys.remote
      throw new IssuerUnavailable('discovery failed recently')
    }
    discovering ??= discover()
      .then((found) => {
        keys = found
        return found
      })
      .finally(() => {
        discovering = undefined
      })
    try {
      return (await discovering).remote
    } catch (error) {
      if (keys) return keys.remote
      throw error
    }
  }

  /** Fetches the issuer's keys; a failure is the issuer's, answered with 503 for a cooldown. */
  async function reloadKeys(remote: RemoteKeySet): Promise<void> {
    try {
      await remote.reload()
    } catch (error) {
      keysFailedAt = Date.now()
      onIssuerError(error, `fetching the OpenID Connect issuer's keys failed; Bearer requests get 503`)
      throw new IssuerUnavailable('its keys could not be fetched', { cause: error })
    }
  }

  /**
   * Picks the key the token names from keys already fetched. Fetching and picking are kept apart:
   * a key the issuer publishes but that cannot be imported is the token's problem (401), not an
   * outage (503), and must not make every later request refetch the keys.
   */
  async function select(jwks: JSONWebKeySet, header: JWSHeaderParameters, token: FlattenedJWSInput) {
    try {
      return await createLocalJWKSet(jwks)(header, token)
    } catch (error) {
      if (error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWKSMultipleMatchingKeys) throw error
      throw new KeyNotUsable('the key cannot be imported', { cause: error })
    }
  }

  /** The key the token names, fetched or fetched again as needed; IssuerUnavailable when the issuer fails. */
  async function key(header: JWSHeaderParameters, token: FlattenedJWSInput) {
    const remote = await remoteKeySet()
    if (coolingDown(keysFailedAt)) {
      // The issuer failed us a moment ago: use the keys already held, without asking again.
      const held = remote.fresh ? remote.jwks() : undefined
      if (!held) throw new IssuerUnavailable('its keys could not be fetched recently')
      return select(held, header, token)
    }
    if (!remote.fresh) await reloadKeys(remote)
    try {
      return await select(remote.jwks()!, header, token)
    } catch (error) {
      // An unknown kid may be a rotated key: fetch again, at most once per cooldown.
      if (!(error instanceof errors.JWKSNoMatchingKey) || remote.coolingDown) throw error
      await reloadKeys(remote)
      return select(remote.jwks()!, header, token)
    }
  }

  return { key }
}
