import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { chmodSync, mkdtempSync, rmSync, unlinkSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import { type Db, openDatabase } from '#src/platform/db/database.ts'
import { createSecretBox } from '#src/platform/secrets/secret-box.ts'
import { checkSecretKey } from '#src/platform/secrets/secret-key-check.ts'
import { TEST_SECRET_KEY, testDatabaseUrl, testSecretBox } from './helpers/app.ts'
import { createIsolatedDatabase, type IsolatedDatabase } from './helpers/isolated-database.ts'
import { runCli, startServer } from './helpers/process.ts'

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

describe('the data dir key file of berth serve', () => {
  let database: IsolatedDatabase
  let dataDir: string
  before(async () => {
    database = await createIsolatedDatabase()
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'berth-key-file-'))
  })
  after(async () => {
    rmSync(dataDir, { recursive: true, force: true })
    await database?.drop()
  })

  const env = () => ({ DATABASE_URL: database.url, BERTH_DATA_DIR: dataDir, BERTH_SECRET_KEY: undefined, BERTH_RUNNER_IN_SERVE: 'false' })

  it('warns about a key file others may read, and refuses to replace a deleted one, saying to restore it', async () => {
    // The first start makes the key and records its id in the database.
    const first = await startServer(env())
    assert.equal(await first.stop('SIGTERM', 15_000), 0, first.logs())
    assert.doesNotMatch(first.stdout(), /may be read by users other than its owner/)
    const keyFile = path.join(dataDir, 'secret.key')

    chmodSync(keyFile, 0o644)
    const loose = await startServer(env())
    assert.equal(await loose.stop('SIGTERM', 15_000), 0, loose.logs())
    const warning = loose
      .stdout()
      .split('\n')
      .filter((line) => line.includes('may be read by users other than its owner'))
      .map((line) => JSON.parse(line))
    assert.equal(warning.length, 1, loose.stdout())
    assert.equal(warning[0].level, 40)
    assert.match(warning[0].msg, /mode 0644.*chmod 600/)

    unlinkSync(keyFile)
    const result = await runCli(['serve'], { ...env(), PORT: '0' }, { timeoutMs: 60_000 })
    assert.equal(result.code, 1, result.stderr)
    assert.match(result.stderr, /secret\.key is missing, but this database's secrets are sealed with the key of id [0-9a-f]+: restore that file/)
    assert.throws(() => chmodSync(keyFile, 0o600), { code: 'ENOENT' })
  })
})
