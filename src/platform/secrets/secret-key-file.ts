import { randomBytes } from 'node:crypto'
import { mkdir, open, readFile } from 'node:fs/promises'
import path from 'node:path'
import type { Config } from '#src/config.ts'
import { parseSecretKey, SECRET_KEY_BYTES } from './secret-box.ts'

export const SECRET_KEY_FILE = 'secret.key'

/**
 * The data dir's own secret key, made on first use: 32 random bytes, hex, mode 0600. Creation is
 * exclusive, so two processes starting together agree on one key.
 */
export async function loadOrCreateSecretKey(dataDir: string): Promise<Buffer> {
  const file = path.join(dataDir, SECRET_KEY_FILE)
  await mkdir(dataDir, { recursive: true, mode: 0o700 })
  try {
    const handle = await open(file, 'wx', 0o600)
    try {
      await handle.writeFile(`${randomBytes(SECRET_KEY_BYTES).toString('hex')}\n`)
      await handle.sync()
    } finally {
      await handle.close()
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
  }
  // A file another process is still writing reads short: give it a moment.
  for (let attempt = 0; ; attempt++) {
    const key = parseSecretKey(await readFile(file, 'utf8'))
    if (key) return key
    if (attempt === 20)
      throw new Error(
        `${file} does not hold a secret key (64 hex digits); restore it from a backup (secrets sealed with it cannot be read without it)`,
      )
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/** The key secrets are sealed with: BERTH_SECRET_KEY, or else the data dir's key file. */
export function resolveSecretKey(config: Config): Promise<Buffer> {
  return config.secrets.key ? Promise.resolve(config.secrets.key) : loadOrCreateSecretKey(config.database.dataDir)
}
