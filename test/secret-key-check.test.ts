import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { type Db, openDatabase } from '#src/platform/db/database.ts'
import { createSecretBox } from '#src/platform/secrets/secret-box.ts'
import { checkSecretKey } from '#src/platform/secrets/secret-key-check.ts'
import { TEST_SECRET_KEY, testDatabaseUrl, testSecretBox } from './helpers/app.ts'
import { runCli } from './helpers/process.ts'

describe('one secret key per database', () => {
  let db: Db
  before(() => {
    db = openDatabase(testDatabaseUrl(), 2)
  })
  after(() => db.destroy())

  it('accepts the key the database recorded, again and again', async () => {
    await checkSecretKey(db, testSecretBox())
    await checkSecretKey(db, testSecretBox())
  })

  it('refuses another key, naming BERTH_SECRET_KEY and never the key', async () => {
    await checkSecretKey(db, testSecretBox())
    const other = randomBytes(32)
    await assert.rejects(checkSecretKey(db, createSecretBox(other)), (error: Error) => {
      assert.match(error.message, /not the one this database's secrets are sealed with.*BERTH_SECRET_KEY/)
      assert.ok(!error.message.includes(other.toString('hex')) && !error.message.includes(TEST_SECRET_KEY))
      return true
    })
  })

  it('keeps berth serve with another key from starting', async () => {
    await checkSecretKey(db, testSecretBox())
    const result = await runCli(['serve'], { DATABASE_URL: testDatabaseUrl(), BERTH_SECRET_KEY: 'c'.repeat(64), PORT: '0' }, { timeoutMs: 60_000 })
    assert.equal(result.code, 1, result.stderr)
    assert.match(result.stderr, /BERTH_SECRET_KEY/)
  })
})
