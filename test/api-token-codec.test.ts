import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import path from 'node:path'
import { describe, it } from 'node:test'
import { parseDuration } from '#src/cli/duration.ts'
import { ConfigError, loadConfig } from '#src/config.ts'
import { apiTokenStart, digestApiToken, generateApiToken, isWellFormedApiToken, TOKEN_PREFIX } from '#src/platform/auth/api-token-codec.ts'
import { hasRole, isRole, ROLE_IDS, ROLES, roleById } from '#src/platform/auth/roles.ts'

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'

/** The token with the character at `index` replaced by another base62 character. */
function withCharacterChanged(token: string, index: number): string {
  const current = token[index]!
  const replacement = BASE62[(BASE62.indexOf(current) + 1) % BASE62.length]!
  return token.slice(0, index) + replacement + token.slice(index + 1)
}

describe('API token codec', () => {
  it('generates "berth_" followed by 49 base62 characters', () => {
    for (let i = 0; i < 50; i++) {
      const token = generateApiToken()
      assert.equal(TOKEN_PREFIX, 'berth_')
      assert.match(token, /^berth_[0-9A-Za-z]{49}$/)
    }
  })

  it('recognises every generated token as well formed', () => {
    for (let i = 0; i < 200; i++) assert.equal(isWellFormedApiToken(generateApiToken()), true)
  })

  it('rejects a token with any single character after the prefix changed (checksum)', () => {
    const token = generateApiToken()
    for (let index = TOKEN_PREFIX.length; index < token.length; index++) {
      const changed = withCharacterChanged(token, index)
      assert.notEqual(changed, token)
      assert.equal(isWellFormedApiToken(changed), false, `change at ${index} went unnoticed`)
    }
  })

  it('rejects a token with a wrong prefix', () => {
    const body = generateApiToken().slice(TOKEN_PREFIX.length)
    for (const prefix of ['Berth_', 'berth-', 'qovery_', 'berth', '']) {
      assert.equal(isWellFormedApiToken(`${prefix}${body}`), false, `prefix "${prefix}" accepted`)
    }
  })

  it('rejects a token that is too short or too long', () => {
    const token = generateApiToken()
    assert.equal(isWellFormedApiToken(token.slice(0, -1)), false)
    assert.equal(isWellFormedApiToken(`${token}0`), false)
    assert.equal(isWellFormedApiToken(`${token.slice(0, 10)}0${token.slice(10)}`), false)
    assert.equal(isWellFormedApiToken(''), false)
  })

  it('rejects characters outside base62 and surrounding whitespace', () => {
    const token = generateApiToken()
    assert.equal(isWellFormedApiToken(`${token.slice(0, -1)}-`), false)
    assert.equal(isWellFormedApiToken(` ${token}`), false)
    assert.equal(isWellFormedApiToken(`${token}\n`), false)
  })

  it('never generates the same token twice', () => {
    const tokens = new Set(Array.from({ length: 2000 }, () => generateApiToken()))
    assert.equal(tokens.size, 2000)
  })

  it('digests a token to the 32 bytes of its SHA-256', () => {
    const token = generateApiToken()
    const digest = digestApiToken(token)
    assert.ok(Buffer.isBuffer(digest))
    assert.equal(digest.length, 32)
    assert.deepEqual(digest, createHash('sha256').update(token, 'utf8').digest())
    assert.deepEqual(digestApiToken(token), digest, 'the digest is not deterministic')
    assert.notDeepEqual(digestApiToken(generateApiToken()), digest)
  })

  it('shows only the prefix and four characters as the token start', () => {
    const token = generateApiToken()
    assert.equal(apiTokenStart(token), token.slice(0, 10))
    assert.ok(apiTokenStart(token).startsWith('berth_'))
  })
})

describe('roles', () => {
  it('orders the roles READ < DEPLOY < WRITE < ADMIN', () => {
    assert.deepEqual([...ROLES], ['READ', 'DEPLOY', 'WRITE', 'ADMIN'])
  })

  it('lets a role hold exactly itself and every weaker role', () => {
    for (const [i, held] of ROLES.entries()) {
      for (const [j, needed] of ROLES.entries()) {
        assert.equal(hasRole(held, needed), i >= j, `hasRole(${held}, ${needed})`)
      }
    }
    assert.equal(hasRole('ADMIN', 'READ'), true)
    assert.equal(hasRole('READ', 'DEPLOY'), false)
    assert.equal(hasRole('DEPLOY', 'WRITE'), false)
    assert.equal(hasRole('WRITE', 'ADMIN'), false)
  })

  it('recognises only the four role names, case-sensitively', () => {
    for (const role of ROLES) assert.equal(isRole(role), true)
    for (const other of ['admin', 'OWNER', '', null, 3]) assert.equal(isRole(other), false)
  })

  it('maps each built-in role id back to its role, ignoring case', () => {
    assert.equal(new Set(Object.values(ROLE_IDS)).size, ROLES.length)
    for (const role of ROLES) {
      assert.equal(roleById(ROLE_IDS[role]), role)
      assert.equal(roleById(ROLE_IDS[role].toUpperCase()), role)
    }
    assert.equal(roleById('00000000-0000-4000-8000-000000000000'), undefined)
  })
})

describe('parseDuration', () => {
  it('reads days, hours, minutes, seconds and weeks as milliseconds', () => {
    assert.equal(parseDuration('30d'), 30 * 24 * 3600 * 1000)
    assert.equal(parseDuration('12h'), 12 * 3600 * 1000)
    assert.equal(parseDuration('15m'), 15 * 60 * 1000)
    assert.equal(parseDuration('90s'), 90 * 1000)
    assert.equal(parseDuration('2w'), 14 * 24 * 3600 * 1000)
  })

  it('refuses a zero duration', () => {
    assert.throws(() => parseDuration('0d'), /longer than zero/)
  })

  it('refuses text that is not a number and a unit', () => {
    for (const text of ['abc', '30', 'd', '1.5h', '-1d', '10y', '']) {
      assert.throws(() => parseDuration(text), /not a duration/, `"${text}" accepted`)
    }
  })
})

describe('loadConfig', () => {
  it('defaults to 127.0.0.1:8080, an absolute ./.berth data directory and no external database', () => {
    const config = loadConfig({})
    assert.equal(config.http.port, 8080)
    assert.equal(config.http.host, '127.0.0.1')
    assert.ok(path.isAbsolute(config.database.dataDir))
    assert.equal(config.database.dataDir, path.resolve('.berth'))
    assert.equal(config.database.url, undefined)
    assert.equal(config.http.bodyLimit, 1024 * 1024)
    assert.equal(config.log.level, 'info')
  })

  it('reads PORT, HOST and BERTH_DATA_DIR from the environment', () => {
    const config = loadConfig({ PORT: '3000', HOST: '0.0.0.0', BERTH_DATA_DIR: 'some/dir' })
    assert.equal(config.http.port, 3000)
    assert.equal(config.http.host, '0.0.0.0')
    assert.equal(config.database.dataDir, path.resolve('some/dir'))
  })

  it('throws a ConfigError naming PORT when PORT is not a number', () => {
    assert.throws(
      () => loadConfig({ PORT: 'abc' }),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError)
        assert.match(error.message, /PORT/)
        return true
      },
    )
  })

  it('throws a ConfigError for an out-of-range PORT, a non-postgres DATABASE_URL and an unknown log level', () => {
    assert.throws(() => loadConfig({ PORT: '70000' }), ConfigError)
    assert.throws(() => loadConfig({ DATABASE_URL: 'mysql://localhost/db' }), ConfigError)
    assert.throws(() => loadConfig({ BERTH_LOG_LEVEL: 'loud' }), ConfigError)
  })
})
