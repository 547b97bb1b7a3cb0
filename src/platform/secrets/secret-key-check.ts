import { sql } from 'kysely'
import type { Db } from '#src/platform/db/database.ts'
import type { SecretBox } from './secret-box.ts'

/**
 * Records which key seals this database's secrets on first use, and refuses a process whose key
 * differs, so that replicas or commands with another BERTH_SECRET_KEY (or another data dir's key
 * file) fail at start instead of failing later on every secret they read.
 */
export async function checkSecretKey(db: Db, secrets: SecretBox): Promise<void> {
  await sql`insert into server_settings (name, value) values ('secret_key_id', ${secrets.keyId}) on conflict (name) do nothing`.execute(db)
  const { rows } = await sql<{ value: string }>`select value from server_settings where name = 'secret_key_id'`.execute(db)
  const expected = rows[0]?.value
  if (expected !== secrets.keyId) {
    throw new Error(
      `the secret key (id ${secrets.keyId}) is not the one this database's secrets are sealed with (id ${expected}): ` +
        'give every process on this database the same BERTH_SECRET_KEY',
    )
  }
}
