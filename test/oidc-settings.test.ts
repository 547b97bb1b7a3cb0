import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { ConfigError, loadConfig } from '#src/config.ts'

describe('OpenID Connect settings', () => {
  const env = { DATABASE_URL: 'postgres://localhost/x' }

  it('enables Bearer only with both the issuer and the audience', () => {
    assert.equal(loadConfig(env).auth.oidc, undefined)
    const oidc = loadConfig({ ...env, BERTH_OIDC_ISSUER: 'https://id.example.com/realms/berth', BERTH_OIDC_AUDIENCE: 'berth' }).auth.oidc
    assert.deepEqual(oidc, { issuer: 'https://id.example.com/realms/berth', audience: 'berth', cooldownMs: 30_000 })
  })

  it('names the missing variable when only one is set', () => {
    assert.throws(
      () => loadConfig({ ...env, BERTH_OIDC_ISSUER: 'https://id.example.com' }),
      (e: Error) => {
        return e instanceof ConfigError && /BERTH_OIDC_AUDIENCE/.test(e.message)
      },
    )
    assert.throws(
      () => loadConfig({ ...env, BERTH_OIDC_AUDIENCE: 'berth' }),
      (e: Error) => e instanceof ConfigError && /BERTH_OIDC_ISSUER/.test(e.message),
    )
  })

  for (const issuer of ['id.example.com', 'ftp://id.example.com', 'https://id.example.com/?x=1', 'https://user:pw@id.example.com']) {
    it(`refuses the issuer "${issuer}"`, () => {
      assert.throws(
        () => loadConfig({ ...env, BERTH_OIDC_ISSUER: issuer, BERTH_OIDC_AUDIENCE: 'berth' }),
        (e: Error) => e instanceof ConfigError && /BERTH_OIDC_ISSUER/.test(e.message),
      )
    })
  }

  // Below a second, made-up `kid`s could make Berth fetch the issuer's keys on nearly every request.
  for (const cooldown of ['soon', '0', '999']) {
    it(`refuses the cooldown "${cooldown}", naming the variable`, () => {
      assert.throws(
        () => loadConfig({ ...env, BERTH_OIDC_ISSUER: 'https://id.example.com', BERTH_OIDC_AUDIENCE: 'berth', BERTH_OIDC_COOLDOWN_MS: cooldown }),
        (e: Error) => e instanceof ConfigError && /BERTH_OIDC_COOLDOWN_MS/.test(e.message),
      )
    })
  }

  it('accepts a cooldown of one second', () => {
    const oidc = loadConfig({ ...env, BERTH_OIDC_ISSUER: 'https://id.example.com', BERTH_OIDC_AUDIENCE: 'berth', BERTH_OIDC_COOLDOWN_MS: '1000' })
      .auth.oidc
    assert.equal(oidc?.cooldownMs, 1000)
  })
})
