/**
 * Validators and serializers compile on their first use (src/platform/http/compile-on-first-use.ts):
 * every one of the app's must still compile, which a start-up no longer shows.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { compileEverySchema } from '#src/platform/http/compile-on-first-use.ts'
import { createTestApp, type TestApp } from './helpers/app.ts'

describe("the app's schemas", () => {
  let t: TestApp
  before(async () => {
    t = await createTestApp()
  })
  after(async () => {
    await t?.close()
  })

  it('compile only when first used, and every one of them compiles', async () => {
    // One route used first: its validators and serializer compile then, and the rest waits.
    const health = await t.app.inject({ method: 'GET', url: '/healthz' })
    assert.equal(health.statusCode, 200)
    const refused = await t.app.inject({ method: 'GET', url: '/organization/not-a-uuid' })
    assert.ok(refused.statusCode === 400 || refused.statusCode === 401, refused.body)
    const compiled = compileEverySchema(t.app)
    assert.ok(compiled > 1000, `${compiled} validators and serializers were left to compile`)
    assert.equal(compileEverySchema(t.app), 0, 'each compiles once')
  })
})
