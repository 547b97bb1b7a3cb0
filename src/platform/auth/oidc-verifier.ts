import { errors, type FlattenedJWSInput, type JWSHeaderParameters, type JWTPayload, type JWTVerifyOptions, jwtVerify } from 'jose'
import { isStorableText } from '../db/storable-text.ts'
import { AppError } from '../http/errors.ts'
import { createOidcIssuerKeys, IssuerUnavailable, KeyNotUsable } from './oidc-issuer-keys.ts'

/** Asymmetric algorithms only: `none` and HMAC (which a public key could be abused for) never verify. */
export const ALLOWED_ALGORITHMS = ['RS256', 'ES256', 'PS256', 'EdDSA'] as const
/** Seconds of clock skew forgiven on `exp` and `nbf`. */
export const CLOCK_TOLERANCE_SECONDS = 30
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

/** What a token that did not verify is answered with: 401 saying which check failed, or 503 when the issuer failed. */
function rejection(error: unknown, { issuer, audience, cooldownMs }: Pick<OidcVerifierOptions, 'issuer' | 'audience' | 'cooldownMs'>): AppError {
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

/**
 * Verifies Bearer JWTs against an OpenID Connect issuer. The issuer's discovery document and keys
 * are fetched on first use, not at start-up, so an issuer that is down costs Bearer requests a 503
 * and nothing else; `jose`'s remote key set re-fetches on an unknown `kid` (key rotation) at most
 * once per cooldown, so a burst of forged `kid`s cannot make Berth hammer the issuer. The price: a
 * key the issuer starts using within a cooldown after a fetch is unknown until the cooldown ends.
 */
export function createOidcVerifier({ issuer, audience, cooldownMs, onIssuerError = () => {} }: OidcVerifierOptions): OidcVerifier {
  const keys = createOidcIssuerKeys({ issuer, cooldownMs, onIssuerError })

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
      const selected = await keys.key(header, token)
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

  return {
    async verify(jwt) {
      if (!COMPACT_JWS.test(jwt)) throw invalid('malformed token: expected a signed JWT (three base64url parts separated by dots)')
      const { payload, protectedHeader } = await verifySignature(jwt).catch((error: unknown) => {
        throw rejection(error, { issuer, audience, cooldownMs })
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
