import { sql } from 'kysely'
import type { Db } from '#src/platform/db/database.ts'
import type { SecretBox } from './secret-box.ts'

/** The id of the key this database's secrets are sealed with, once a server has recorded it. */
export async function recordedSecretKeyId(db: Db): Promise<string | undefined> {
  const { rows } = await sql<{ value: string }>`select value from server_settings where name = 'secret_key_id'`.execute(db)
  return rows[0]?.value
}

/**
 * Records which key seals this database's secrets on first use, and refuses a process whose key
 * differs, so that replicas or commands with another BERTH_SECRET_KEY (or another data dir's key
 * file) fail at start instead of failing later on every secret they read. `source` says where the
 * key came from (BERTH_SECRET_KEY or the key file's path).
 */
export async function checkSecretKey(db: Db, secrets: SecretBox, source = 'BERTH_SECRET_KEY'): Promise<void> {
  await sql`insert into server_settings (name, value) values ('secret_key_id', ${secrets.keyId}) on conflict (name) do nothing`.execute(db)
  const expected = await recordedSecretKeyId(db)
  if (expected !== secrets.keyId) {
    throw new Error(
      `the secret key from ${source} (id ${secrets.keyId}) is not the one this database's secrets are sealed with (id ${expected}): ` +
        'give every process on this database the same BERTH_SECRET_KEY, or restore the key file the secrets were sealed with from a backup',
    )
  }
}
