import {
  createLocalJWKSet,
  createRemoteJWKSet,
  errors,
  type FlattenedJWSInput,
  type JSONWebKeySet,
  type JWSHeaderParameters,
  type JWTPayload,
  type JWTVerifyOptions,
  jwtVerify,
} from 'jose'
import { isStorableText } from '../db/storable-text.ts'
import { AppError } from '../http/errors.ts'

/** Asymmetric algorithms only: `none` and HMAC (which a public key could be abused for) never verify. */
export const ALLOWED_ALGORITHMS = ['RS256', 'ES256', 'PS256', 'EdDSA'] as const
/** Seconds of clock skew forgiven on `exp` and `nbf`. */
export const CLOCK_TOLERANCE_SECONDS = 30
const FETCH_TIMEOUT_MS = 5_000
/** Keys are fetched again after this long even when every `kid` is known, so removed keys stop working. */
const KEYS_MAX_AGE_MS = 10 * 60_000
/** The discovery document is read again after this long (and after the keys could not be fetched), so a moved `jwks_uri` is followed. */
const DISCOVERY_MAX_AGE_MS = 60 * 60_000
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/
/** `typ` header values of access tokens: RFC 9068's, and the generic one most providers send. Absent is accepted too. */
const ACCESS_TOKEN_TYPES = new Set(['at+jwt', 'application/at+jwt', 'jwt'])
/** Claims that only ID tokens carry (OpenID Connect Core 1.0, sections 2 and 3.3.2.11). */
const ID_TOKEN_CLAIMS = ['nonce', 'at_hash', 'c_hash']

export interface OidcVerifierOptions {
  issuer: string
  audience: string
  /** The least time between two fetches from the issuer that an unknown `kid` or a failure triggers. */
  cooldownMs: number
  /** Told when the issuer could not be reached, once per failure. */
  onIssuerError?: (error: unknown, what: string) => void
}

/** What a verified access token says about its bearer. */
export interface VerifiedIdentity {
  issuer: string
  subject: string
  /** The `name` claim, else `preferred_username`, when the token carries one. */
  name: string | undefined
  email: string | undefined
}

export interface OidcVerifier {
  /** Verifies a JWT access token; throws `unauthenticated` saying which check failed, or `service_unavailable`. */
  verify(jwt: string): Promise<VerifiedIdentity>
}

type RemoteKeySet = ReturnType<typeof createRemoteJWKSet>

interface DiscoveredKeys {
  jwksUri: string
  remote: RemoteKeySet
  discoveredAt: number
}

/** The issuer could not be asked (down, timing out, or answering nonsense): not the caller's fault. */
class IssuerUnavailable extends Error {}

/** The issuer publishes the key the token names, but it cannot verify anything (an RSA key under 2048 bits, say). */
class KeyNotUsable extends Error {}

const invalid = (reason: string) => new AppError('unauthenticated', `invalid Bearer token: ${reason}`)

/**
 * A text claim trimmed and cut at `max` (never between the halves of a surrogate pair); left out
 * when empty, or when PostgreSQL could not store it (NUL, an unpaired surrogate).
 */
const claimText = (payload: JWTPayload, claim: string, max: number): string | undefined => {
  const value = payload[claim]
  if (typeof value !== 'string') return undefined
  const text = value
    .trim()
    .slice(0, max)
    .replace(/[\uD800-\uDBFF]$/, '')
  return text !== '' && isStorableText(text) ? text : undefined
}

/**
 * A NumericDate claim as an ISO timestamp for a message; undefined when it is no time a Date can
 * hold (nbf 1e21 is a number, yet toISOString would throw on it).
 */
const isoTime = (seconds: unknown): string | undefined => {
  const date = new Date(typeof seconds === 'number' ? seconds * 1000 : Number.NaN)
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString()
}

/**
 * An ID token proves a login to the client that asked for it and is not meant for Berth. Its `aud`
 * is that client's id, so an audience that is no client id already keeps it out; these markers
 * refuse it even when the audiences coincide.
 */
function notAnAccessToken(header: JWSHeaderParameters, payload: JWTPayload): string | undefined {
  if (typeof header.typ === 'string' && !ACCESS_TOKEN_TYPES.has(header.typ.toLowerCase())) {
    return 'not an access token: its "typ" header names another kind of token (accepted: at+jwt, JWT)'
  }
  const marker = ID_TOKEN_CLAIMS.find((claim) => payload[claim] !== undefined)
  // Keycloak marks its ID tokens with a `typ` claim of "ID" (its access tokens say "Bearer").
  if (marker || payload.typ === 'ID') {
    return `an ID token, not an access token (it carries ${marker ? `a "${marker}"` : 'a "typ": "ID"'} claim): send the access token`
  }
  return undefined
}

/**
 * Verifies Bearer JWTs against an OpenID Connect issuer. The issuer's discovery document and keys
 * are fetched on first use, not at start-up, so an issuer that is down costs Bearer requests a 503
 * and nothing else; `jose`'s remote key set re-fetches on an unknown `kid` (key rotation) at most
 * once per cooldown, so a burst of forged `kid`s cannot make Berth hammer the issuer. The price: a
 * key the issuer starts using within a cooldown after a fetch is unknown until the cooldown ends.
 */
export function createOidcVerifier({ issuer, audience, cooldownMs, onIssuerError = () => {} }: OidcVerifierOptions): OidcVerifier {
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

  const options: JWTVerifyOptions = {
    issuer,
    audience,
    algorithms: [...ALLOWED_ALGORITHMS],
    clockTolerance: CLOCK_TOLERANCE_SECONDS,
    requiredClaims: ['sub', 'exp'],
  }

  /**
   * Verifies with the key the token names. A token without `kid` matches every key of its type;
   * `jose` then offers the candidates without trying them, so each is tried here in turn.
   */
  async function verifySignature(jwt: string) {
    let keySelected = false
    const selectKey = async (header: JWSHeaderParameters, token: FlattenedJWSInput) => {
      const selected = await key(header, token)
      keySelected = true
      return selected
    }
    try {
      try {
        return await jwtVerify(jwt, selectKey, options)
      } catch (error) {
        if (!(error instanceof errors.JWKSMultipleMatchingKeys)) throw error
        let failure: unknown = new KeyNotUsable('none of the matching keys could be imported')
        for await (const candidate of error) {
          keySelected = true
          try {
            return await jwtVerify(jwt, candidate, options)
          } catch (attempt) {
            if (!(attempt instanceof errors.JWSSignatureVerificationFailed) && attempt instanceof errors.JOSEError) throw attempt
            // A usable key that disagrees says more than an unusable one.
            if (!(failure instanceof errors.JWSSignatureVerificationFailed)) failure = attempt
          }
        }
        throw failure
      }
    } catch (error) {
      // Past key selection, an error that is not JOSE's verdict on the token comes from the key (WebCrypto or jose's key checks).
      if (keySelected && !(error instanceof errors.JOSEError)) throw new KeyNotUsable('key rejected', { cause: error })
      throw error
    }
  }

  function rejection(error: unknown): AppError {
    if (error instanceof IssuerUnavailable) {
      return new AppError(
        'service_unavailable',
        'the OpenID Connect issuer cannot be reached, so Bearer tokens cannot be verified right now; API tokens still work',
        { headers: { 'retry-after': String(Math.max(1, Math.ceil(cooldownMs / 1000))) } },
      )
    }
    if (error instanceof KeyNotUsable) return invalid("key not usable: the issuer's key for this token cannot verify signatures here")
    if (error instanceof errors.JWTExpired) {
      const exp = isoTime(error.payload.exp)
      return invalid(`expired${exp ? ` at ${exp}` : ''}`)
    }
    if (error instanceof errors.JWTClaimValidationFailed) {
      if (error.reason === 'missing') return invalid(`the "${error.claim}" claim is missing`)
      switch (error.claim) {
        case 'iss':
          return invalid(`wrong issuer: this server accepts tokens issued by ${issuer} only`)
        case 'aud':
          return invalid(`wrong audience: the token is not meant for ${audience}`)
        case 'nbf': {
          const nbf = isoTime(error.payload.nbf)
          return invalid(`not yet valid${nbf ? ` until ${nbf}` : ''}`)
        }
        default:
          return invalid(`the "${error.claim}" claim is invalid`)
      }
    }
    if (error instanceof errors.JOSEAlgNotAllowed) return invalid(`algorithm not allowed; accepted: ${ALLOWED_ALGORITHMS.join(', ')}`)
    if (error instanceof errors.JWSSignatureVerificationFailed) return invalid('bad signature')
    if (error instanceof errors.JWKSNoMatchingKey) return invalid("unknown key: the issuer publishes no key matching the token's kid and algorithm")
    if (error instanceof errors.JOSEError) return invalid('malformed token')
    throw error
  }

  return {
    async verify(jwt) {
      if (!COMPACT_JWS.test(jwt)) throw invalid('malformed token: expected a signed JWT (three base64url parts separated by dots)')
      const { payload, protectedHeader } = await verifySignature(jwt).catch((error: unknown) => {
        throw rejection(error)
      })
      const wrongKind = notAnAccessToken(protectedHeader, payload)
      if (wrongKind) throw invalid(wrongKind)
      const subject = payload.sub
      if (typeof subject !== 'string' || subject === '' || subject.length > 255) {
        throw invalid('the "sub" claim must be a string of 1 to 255 characters')
      }
      // The subject is looked up and stored as it is: one PostgreSQL cannot take would fail the statement.
      if (!isStorableText(subject)) throw invalid('the "sub" claim holds NUL or an unpaired surrogate')
      return {
        issuer,
        subject,
        name: claimText(payload, 'name', 255) ?? claimText(payload, 'preferred_username', 255),
        email: claimText(payload, 'email', 320),
      }
    },
  }
}
