import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto'

const VERSION = 1
const KEY_ID_BYTES = 4
const IV_BYTES = 12
const TAG_BYTES = 16
const HEADER_BYTES = 1 + KEY_ID_BYTES + IV_BYTES + TAG_BYTES

export const SECRET_KEY_BYTES = 32

/** Thrown when a sealed value cannot be opened: another key sealed it, or it was altered. */
export class SecretBoxError extends Error {}

/** Seals and opens secrets at rest (git tokens, repository passwords) with one AES-256-GCM key. */
export interface SecretBox {
  /** Names the key without revealing it: the first bytes of its SHA-256, in hex. */
  readonly keyId: string
  seal(plaintext: string): Buffer
  open(sealed: Buffer): string
}

/**
 * A sealed value is `version | key id | iv | tag | ciphertext`. The key id (the first bytes of the
 * key's SHA-256) lets a server started with the wrong BERTH_SECRET_KEY say so plainly instead of
 * failing on an authentication tag.
 */
export function createSecretBox(key: Buffer): SecretBox {
  if (key.length !== SECRET_KEY_BYTES) throw new Error(`a secret key has ${SECRET_KEY_BYTES} bytes, got ${key.length}`)
  const keyId = createHash('sha256').update(key).digest().subarray(0, KEY_ID_BYTES)

  return {
    keyId: keyId.toString('hex'),

    seal(plaintext) {
      const iv = randomBytes(IV_BYTES)
      const cipher = createCipheriv('aes-256-gcm', key, iv)
      const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()])
      return Buffer.concat([Buffer.from([VERSION]), keyId, iv, cipher.getAuthTag(), ciphertext])
    },

    open(sealed) {
      if (sealed.length < HEADER_BYTES || sealed[0] !== VERSION) throw new SecretBoxError('not a sealed secret of a known version')
      if (!sealed.subarray(1, 1 + KEY_ID_BYTES).equals(keyId)) {
        throw new SecretBoxError('this secret was sealed with another key: is BERTH_SECRET_KEY the one the data was written with?')
      }
      const ivStart = 1 + KEY_ID_BYTES
      const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(ivStart, ivStart + IV_BYTES))
      decipher.setAuthTag(sealed.subarray(ivStart + IV_BYTES, HEADER_BYTES))
      try {
        return Buffer.concat([decipher.update(sealed.subarray(HEADER_BYTES)), decipher.final()]).toString('utf8')
      } catch {
        throw new SecretBoxError('a sealed secret failed its integrity check')
      }
    },
  }
}

/** Reads BERTH_SECRET_KEY: 32 bytes as 64 hex digits or as base64. Undefined when it is not one. */
export function parseSecretKey(text: string): Buffer | undefined {
  const trimmed = text.trim()
  if (/^[0-9a-fA-F]{64}$/.test(trimmed)) return Buffer.from(trimmed, 'hex')
  if (/^[A-Za-z0-9+/_-]+={0,2}$/.test(trimmed)) {
    const bytes = Buffer.from(trimmed, 'base64')
    if (bytes.length === SECRET_KEY_BYTES) return bytes
  }
  return undefined
}

/**
 * For commands that handle no secrets (`berth token create`): they need no key, so none is read
 * or made; any use is a bug and says so.
 */
export const noSecrets: SecretBox = {
  keyId: 'none',
  seal() {
    throw new Error('this command handles no secrets')
  },
  open() {
    throw new Error('this command handles no secrets')
  },
}
