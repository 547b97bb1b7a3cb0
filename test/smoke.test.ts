import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createTestApp, type TestApp } from './helpers/app.ts'
import { factories } from './helpers/factories.ts'

describe('GET /organization', () => {
  let t: TestApp
  before(async () => {
    t = await createTestApp()
  })
  after(async () => t.close())

  it('lists the organization of the calling token', async () => {
    const { organization, tokens } = await factories(t.db).organizationWithTokens()
    const res = await t.app.inject({ method: 'GET', url: '/organization', headers: { authorization: tokens.read.authorization } })
    assert.equal(res.statusCode, 200)
    assert.deepEqual(
      res.json().results.map((o: { id: string }) => o.id),
      [organization.id],
    )
  })
})
