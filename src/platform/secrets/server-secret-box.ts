import type { Db } from '../db/database.ts'
import { createSecretBox, type SecretBox } from './secret-box.ts'
import { checkSecretKey, recordedSecretKeyId } from './secret-key-check.ts'
import { resolveSecretKey, type SecretKeySettings, secretKeySource } from './secret-key-file.ts'

/**
 * The secret box of a command that seals or opens secrets (`serve`, `seed`): BERTH_SECRET_KEY or
 * the data dir's key file, checked against the key the database records.
 */
export async function serverSecretBox(db: Db, settings: SecretKeySettings, warn: (message: string) => void): Promise<SecretBox> {
  const recordedKeyId = await recordedSecretKeyId(db)
  const secrets = createSecretBox(await resolveSecretKey(settings, { recordedKeyId, warn }))
  await checkSecretKey(db, secrets, secretKeySource(settings))
  return secrets
}
