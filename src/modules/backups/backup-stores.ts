import { createReadStream, createWriteStream } from 'node:fs'
import { mkdir, rename, rm } from 'node:fs/promises'
import path from 'node:path'
import type { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { resolveHost } from '#src/modules/git-providers/address-guard.ts'
import type { BackupDestinationsTable } from './backups.tables.ts'

// Where backups are kept (docs/backups.md, "Destinations"): a directory of the Berth host (under the
// data dir), or an S3-compatible store through the AWS SDK (a multipart upload of the stream, a few
// parts in memory at a time). Either takes a stream and gives one back: no dump is held whole.

export interface BackupStore {
  /** Where an object goes, for the logs. */
  describe(key: string): string
  put(key: string, body: Readable, signal: AbortSignal): Promise<void>
  get(key: string, signal: AbortSignal): Promise<Readable>
  /** Deletes the object; an object already gone is no error. */
  delete(key: string): Promise<void>
}

/** A directory of the Berth host: each object written under a temporary name, then renamed. */
export function localStore(root: string): BackupStore {
  const fileOf = (key: string) => {
    const file = path.resolve(root, key)
    if (!file.startsWith(`${path.resolve(root)}${path.sep}`)) throw new Error(`the object key ${key} leaves the backups directory`)
    return file
  }
  return {
    describe: (key) => fileOf(key),
    async put(key, body, signal) {
      const file = fileOf(key)
      await mkdir(path.dirname(file), { recursive: true, mode: 0o700 })
      const partial = `${file}.partial`
      try {
        await pipeline(body, createWriteStream(partial, { mode: 0o600 }), { signal })
        await rename(partial, file)
      } catch (error) {
        await rm(partial, { force: true })
        throw error
      }
    },
    async get(key) {
      const stream = createReadStream(fileOf(key))
      // Opening fails here (a missing file), not in the middle of a restore.
      await new Promise<void>((resolve, reject) => {
        stream.once('open', () => resolve())
        stream.once('error', reject)
      })
      return stream
    },
    async delete(key) {
      await rm(fileOf(key), { force: true })
    },
  }
}

/** Where in an S3-compatible store backups go, and the key id that reaches it: a destination's public part. */
export type S3Location = Pick<BackupDestinationsTable, 'endpoint' | 'region' | 'bucket' | 'prefix' | 'pathStyle' | 'accessKeyId'>

/** An S3-compatible store, as a destination describes it (the secret opened). */
export interface S3Settings extends S3Location {
  secretAccessKey: string
  /** BERTH_ALLOW_PRIVATE_URLS: the endpoint may lead into the server's own network. */
  allowPrivateUrls: boolean
}

/** The size of each part of a multipart upload, and how many are sent at once: what an upload holds in memory. */
export const UPLOAD_PART_BYTES = 8 * 1024 * 1024
export const UPLOAD_PARTS_AT_ONCE = 2

/** The object's full key: the destination's prefix, then Berth's key. */
export const prefixedKey = (prefix: string, key: string) => (prefix ? `${prefix.replace(/\/+$/, '')}/${key}` : key)

/** An S3 error in the store's own words: its code and message. */
export function storeWords(error: unknown): string {
  const failure = error as { name?: string; Code?: string; message?: string; $metadata?: { httpStatusCode?: number } }
  const code = failure.Code ?? failure.name
  const status = failure.$metadata?.httpStatusCode
  const message = failure.message ?? String(error)
  return `${code && !message.startsWith(code) && code !== 'Error' ? `${code}: ` : ''}${message}${status ? ` (HTTP ${status})` : ''}`
}

/** The store; the AWS SDK is loaded by the first process that needs it (it weighs some 10 MB). */
export async function s3Store(settings: S3Settings): Promise<BackupStore> {
  const { DeleteObjectCommand, GetObjectCommand, S3Client } = await import('@aws-sdk/client-s3')
  const { Upload } = await import('@aws-sdk/lib-storage')
  const client = new S3Client({
    region: settings.region,
    ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
    forcePathStyle: settings.pathStyle,
    credentials: { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey },
    // A refused request is the store's answer: no retries that would hide it for minutes.
    maxAttempts: 2,
  })
  const keyOf = (key: string) => prefixedKey(settings.prefix, key)
  /** The address guard, right before each use: the endpoint's name may lead elsewhere by now. */
  async function guard() {
    if (settings.allowPrivateUrls || !settings.endpoint) return
    const check = await resolveHost(new URL(settings.endpoint).hostname)
    if (!check.ok) throw new Error(`the store's endpoint may not be used: ${check.reason} (BERTH_ALLOW_PRIVATE_URLS=true allows it)`)
  }
  const wrapped = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work()
    } catch (error) {
      throw new Error(`the store refused: ${storeWords(error)}`, { cause: error })
    }
  }
  return {
    describe: (key) => `s3://${settings.bucket}/${keyOf(key)}`,
    async put(key, body, signal) {
      await guard()
      await wrapped(async () => {
        const upload = new Upload({
          client,
          params: { Bucket: settings.bucket, Key: keyOf(key), Body: body, ContentType: 'application/gzip' },
          partSize: UPLOAD_PART_BYTES,
          queueSize: UPLOAD_PARTS_AT_ONCE,
          leavePartsOnError: false,
        })
        const abort = () => void upload.abort().catch(() => undefined)
        signal.addEventListener('abort', abort, { once: true })
        try {
          await upload.done()
        } finally {
          signal.removeEventListener('abort', abort)
        }
      })
    },
    async get(key, signal) {
      await guard()
      return wrapped(async () => {
        const answer = await client.send(new GetObjectCommand({ Bucket: settings.bucket, Key: keyOf(key) }), { abortSignal: signal })
        return answer.Body as Readable
      })
    },
    async delete(key) {
      await guard()
      await wrapped(() => client.send(new DeleteObjectCommand({ Bucket: settings.bucket, Key: keyOf(key) })))
    },
  }
}
