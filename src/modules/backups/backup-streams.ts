// The streams backups and restores run through: a meter that counts and hashes, waiting on steps together, a stored object's SHA-256.
import { createHash } from 'node:crypto'
import { Transform } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import type { BackupStore } from './backup-stores.ts'

/** Counts bytes and hashes them on their way through. */
export function measuring() {
  const hash = createHash('sha256')
  let size = 0
  const stream = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk)
      size += chunk.length
      done(null, chunk)
    },
  })
  return { stream, size: () => size, sha256: () => hash.digest('hex') }
}

/** Waits for every step; on the first failure, `stop` is called so that the others end too; rethrows that first failure. */
export async function allOrFirstFailure(steps: Promise<unknown>[], stop: (error: unknown) => void): Promise<void> {
  let first: { error: unknown } | undefined
  await Promise.allSettled(
    steps.map((step) =>
      step.catch((error) => {
        if (!first) {
          first = { error }
          stop(error)
        }
      }),
    ),
  )
  if (first) throw first.error
}

/** The SHA-256 of what a store holds under `key`, read as a stream. */
export async function storedSha256(store: BackupStore, key: string, signal: AbortSignal): Promise<string> {
  const meter = measuring()
  await pipeline(await store.get(key, signal), meter.stream, async (source) => {
    for await (const _ of source) {
      // Read to the end: the hash is made on the way.
    }
  })
  return meter.sha256()
}
