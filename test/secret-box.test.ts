import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { chmod, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { after, describe, it } from 'node:test'
import { loadConfig, secretKeySettings } from '#src/config.ts'
import { createSecretBox, parseSecretKey, SecretBoxError } from '#src/platform/secrets/secret-box.ts'
import { loadOrCreateSecretKey, resolveSecretKey, SECRET_KEY_FILE } from '#src/platform/secrets/secret-key-file.ts'

const key = () => randomBytes(32)

describe('secret box', () => {
  it('opens what it sealed, unicode included, with a fresh ciphertext every time', () => {
    const box = createSecretBox(key())
    for (const text of ['ghp_0123456789abcdef', '', 'mot de passe é 🔐', 'x'.repeat(10_000)]) {
      const first = box.seal(text)
      const second = box.seal(text)
      assert.notDeepEqual(first, second)
      assert.equal(box.open(first), text)
      assert.equal(box.open(second), text)
      if (text.length > 0) assert.ok(!first.toString('latin1').includes(text))
    }
  })

  it('detects a change to any part of a sealed value', () => {
    const box = createSecretBox(key())
    const sealed = box.seal('a secret worth protecting')
    // The IV, the tag and the ciphertext: each byte is covered by the authentication tag.
    for (const index of [5, 17, 21, 33, sealed.length - 1]) {
      const tampered = Buffer.from(sealed)
      tampered[index]! ^= 0x01
      assert.throws(
        () => box.open(tampered),
        (error: Error) => error instanceof SecretBoxError && /integrity/.test(error.message),
      )
    }
    assert.throws(() => box.open(sealed.subarray(0, 20)), SecretBoxError)
    const otherVersion = Buffer.from(sealed)
    otherVersion[0] = 9
    assert.throws(() => box.open(otherVersion), /known version/)
  })

  it('says plainly that a value was sealed with another key', () => {
    const sealed = createSecretBox(key()).seal('hunter2')
    assert.throws(
      () => createSecretBox(key()).open(sealed),
      (error: Error) => error instanceof SecretBoxError && /sealed with another key/.test(error.message) && !error.message.includes('hunter2'),
    )
  })

  it('refuses a key that is not 32 bytes', () => {
    for (const length of [0, 16, 31, 33, 64]) assert.throws(() => createSecretBox(Buffer.alloc(length)), /32 bytes/)
  })
})

describe('parseSecretKey', () => {
  const bytes = key()

  it('accepts 32 bytes as 64 hex digits, in either case and with surrounding white space', () => {
    for (const text of [bytes.toString('hex'), bytes.toString('hex').toUpperCase(), `  ${bytes.toString('hex')}\n`]) {
      assert.deepEqual(parseSecretKey(text), bytes)
    }
  })

  it('accepts 32 bytes as base64 and base64url', () => {
    assert.deepEqual(parseSecretKey(bytes.toString('base64')), bytes)
    assert.deepEqual(parseSecretKey(`${bytes.toString('base64url')}\n`), bytes)
  })

  it('rejects anything else', () => {
    const rejected = [
      '',
      'not a key at all',
      bytes.toString('hex').slice(0, 63),
      `${bytes.toString('hex')}00`,
      randomBytes(31).toString('base64'),
      randomBytes(33).toString('base64'),
      randomBytes(16).toString('hex'),
      `${bytes.toString('hex').slice(0, 63)}g`,
    ]
    for (const text of rejected) assert.equal(parseSecretKey(text), undefined, JSON.stringify(text))
  })
})

describe('the data dir key file', () => {
  const dirs: string[] = []
  const freshDir = async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'berth-key-'))
    dirs.push(dir)
    return path.join(dir, 'data')
  }
  after(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true })
  })

  it('is created once, as 64 hex digits readable by its owner only, and read back afterwards', async () => {
    const dataDir = await freshDir()
    const created = await loadOrCreateSecretKey(dataDir)
    assert.equal(created.length, 32)
    const file = path.join(dataDir, SECRET_KEY_FILE)
    assert.equal((await stat(file)).mode & 0o777, 0o600)
    assert.equal(await readFile(file, 'utf8'), `${created.toString('hex')}\n`)
    assert.deepEqual(await loadOrCreateSecretKey(dataDir), created)
    assert.equal(await readFile(file, 'utf8'), `${created.toString('hex')}\n`)
  })

  it('gives concurrent callers one and the same key', async () => {
    const dataDir = await freshDir()
    const keys = await Promise.all(Array.from({ length: 12 }, () => loadOrCreateSecretKey(dataDir)))
    for (const k of keys) assert.deepEqual(k, keys[0])
    assert.equal(await readFile(path.join(dataDir, SECRET_KEY_FILE), 'utf8'), `${keys[0]!.toString('hex')}\n`)
  })

  it('refuses a file that does not hold a key rather than replacing it', async () => {
    const dataDir = await freshDir()
    await loadOrCreateSecretKey(dataDir)
    const file = path.join(dataDir, SECRET_KEY_FILE)
    await writeFile(file, 'garbage\n')
    await assert.rejects(loadOrCreateSecretKey(dataDir), /does not hold a secret key/)
    assert.equal(await readFile(file, 'utf8'), 'garbage\n')
  })

  it('is not made anew when the database records a key: the refusal names the file and says to restore it', async () => {
    const dataDir = await freshDir()
    await assert.rejects(loadOrCreateSecretKey(dataDir, { recordedKeyId: 'abcd1234' }), (error: Error) => {
      assert.match(error.message, /secret\.key is missing, but this database's secrets are sealed with the key of id abcd1234: restore/)
      return true
    })
    await assert.rejects(stat(path.join(dataDir, SECRET_KEY_FILE)), { code: 'ENOENT' })
  })

  it('warns about a key file that others may read, and not about one mode 0600', async () => {
    const dataDir = await freshDir()
    const warnings: string[] = []
    const created = await loadOrCreateSecretKey(dataDir, { warn: (message) => warnings.push(message) })
    assert.equal(warnings.length, 0)
    const file = path.join(dataDir, SECRET_KEY_FILE)
    for (const mode of [0o644, 0o640, 0o604]) {
      await chmod(file, mode)
      assert.deepEqual(await loadOrCreateSecretKey(dataDir, { warn: (message) => warnings.push(message) }), created)
      assert.equal(warnings.length, 1, `no warning for mode ${mode.toString(8)}`)
      assert.match(warnings.pop()!, new RegExp(`mode 0${mode.toString(8)}.*chmod 600`))
    }
  })

  it('is not used when BERTH_SECRET_KEY is set', async () => {
    const dataDir = await freshDir()
    const configured = key()
    const config = loadConfig({ BERTH_SECRET_KEY: configured.toString('hex'), BERTH_DATA_DIR: dataDir })
    assert.deepEqual(await resolveSecretKey(secretKeySettings(config)), configured)
    await assert.rejects(stat(path.join(dataDir, SECRET_KEY_FILE)), { code: 'ENOENT' })
    const fromFile = await resolveSecretKey(secretKeySettings(loadConfig({ BERTH_DATA_DIR: dataDir })))
    assert.deepEqual(await loadOrCreateSecretKey(dataDir), fromFile)
  })
})
