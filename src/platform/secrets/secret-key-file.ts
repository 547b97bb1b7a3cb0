import { randomBytes } from 'node:crypto'
import { mkdir, open, readFile, stat } from 'node:fs/promises'
import path from 'node:path'
import { parseSecretKey, SECRET_KEY_BYTES } from './secret-box.ts'

export const SECRET_KEY_FILE = 'secret.key'

export interface KeyFileOptions {
  /**
   * The id of the key the database records (secret-key-check.ts), when it records one. A database
   * that does has secrets sealed with that key: a missing key file is then lost, not new, and a
   * key made in its place could open none of them.
   */
  recordedKeyId?: string | undefined
  /** Told when the key file may be read by users other than its owner. */
  warn?: (message: string) => void
}

async function createKeyFile(file: string): Promise<void> {
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
}

/**
 * The data dir's own secret key, made on first use: 32 random bytes, hex, mode 0600. Creation is
 * exclusive, so two processes starting together agree on one key. It is never made when the
 * database already records a key (the file was deleted or the data dir moved without it): that
 * refusal says so, rather than a later one about a key that does not match.
 */
export async function loadOrCreateSecretKey(dataDir: string, options: KeyFileOptions = {}): Promise<Buffer> {
  const file = path.join(dataDir, SECRET_KEY_FILE)
  await mkdir(dataDir, { recursive: true, mode: 0o700 })
  const existing = await stat(file).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined
    throw error
  })
  if (!existing && options.recordedKeyId !== undefined) {
    throw new Error(
      `${file} is missing, but this database's secrets are sealed with the key of id ${options.recordedKeyId}: ` +
        'restore that file from a backup, or set BERTH_SECRET_KEY to that key. A new key could not open them, so none is made.',
    )
  }
  if (!existing) await createKeyFile(file)
  const mode = existing ? existing.mode & 0o777 : 0o600
  if ((mode & 0o077) !== 0) {
    options.warn?.(
      `${file} may be read by users other than its owner (mode ${mode.toString(8).padStart(4, '0')}): ` +
        `anyone who reads it can open the stored git tokens and repository passwords; run chmod 600 ${file}`,
    )
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

/** Where the server's secret key comes from: the one configured (BERTH_SECRET_KEY), or else the data dir's key file. */
export interface SecretKeySettings {
  readonly key: Buffer | undefined
  readonly dataDir: string
}

/** The key secrets are sealed with: BERTH_SECRET_KEY, or else the data dir's key file. */
export function resolveSecretKey(settings: SecretKeySettings, options: KeyFileOptions = {}): Promise<Buffer> {
  return settings.key ? Promise.resolve(settings.key) : loadOrCreateSecretKey(settings.dataDir, options)
}

/** Where the key comes from, for messages: never the key itself. */
export const secretKeySource = (settings: SecretKeySettings): string =>
  settings.key ? 'BERTH_SECRET_KEY' : path.join(settings.dataDir, SECRET_KEY_FILE)
