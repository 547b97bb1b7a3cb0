import { createHash, randomBytes } from 'node:crypto'
import { crc32 } from 'node:zlib'

/**
 * API token format: `berth_` + 43 base62 characters carrying 256 random bits + 6 base62
 * characters of CRC-32 over the random part. The prefix lets secret scanners find leaked tokens and
 * the checksum lets them (and us) reject typos and fakes offline, before touching the database.
 */
export const TOKEN_PREFIX = 'berth_'
const RANDOM_BYTES = 32
const BODY_LENGTH = 43
const CHECKSUM_LENGTH = 6
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'
const TOKEN_PATTERN = new RegExp(`^${TOKEN_PREFIX}[0-9A-Za-z]{${BODY_LENGTH + CHECKSUM_LENGTH}}$`)

function base62(value: bigint, length: number): string {
  let out = ''
  let rest = value
  while (rest > 0n) {
    out = ALPHABET[Number(rest % 62n)] + out
    rest /= 62n
  }
  return out.padStart(length, '0')
}

const checksum = (body: string) => base62(BigInt(crc32(body)), CHECKSUM_LENGTH)

export function generateApiToken(): string {
  const body = base62(BigInt(`0x${randomBytes(RANDOM_BYTES).toString('hex')}`), BODY_LENGTH)
  return `${TOKEN_PREFIX}${body}${checksum(body)}`
}

/** True when the token has Berth's shape and its checksum matches. */
export function isWellFormedApiToken(token: string): boolean {
  if (!TOKEN_PATTERN.test(token)) return false
  const body = token.slice(TOKEN_PREFIX.length, TOKEN_PREFIX.length + BODY_LENGTH)
  return checksum(body) === token.slice(TOKEN_PREFIX.length + BODY_LENGTH)
}

/** The only form in which a token is stored and looked up. */
export const digestApiToken = (token: string): Buffer => createHash('sha256').update(token).digest()

/** A short, harmless beginning of the token for people to recognise it in listings. */
export const apiTokenStart = (token: string): string => token.slice(0, TOKEN_PREFIX.length + 4)
