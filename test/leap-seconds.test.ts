/**
 * Issue 23: a leap second (`23:59:60Z`) is a valid RFC 3339 time that JavaScript's Date cannot
 * hold. Every date-time a request carries is refused with 400 at its field, never a 500.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createTestApp, type TestApp } from './helpers/app.ts'
import { assertValidationError } from './helpers/assertions.ts'
import { factories, uniqueName } from './helpers/factories.ts'

const LEAP_SECONDS = ['2016-12-31T23:59:60Z', '2099-06-30T23:59:60.5Z', '2099-07-01T01:59:60+02:00']

describe('leap seconds in date-times', () => {
  let t: TestApp
  before(async () => {
    t = await createTestApp()
  })
  after(async () => t.close())

  for (const leap of LEAP_SECONDS) {
    it(`answers 400 at /expired_at for an API token expiring at ${leap}`, async () => {
      const { organization, tokens } = await factories(t.db).organizationWithTokens()
      const res = await t.app.inject({
        method: 'POST',
        url: `/organization/${organization.id}/apiToken`,
        headers: { authorization: tokens.admin.authorization },
        payload: { name: uniqueName('leap'), expired_at: leap },
      })
      const errors = assertValidationError(res)
      assert.deepEqual(
        errors.map((e) => [e.path, e.location]),
        [['/expired_at', 'body']],
      )
    })

    for (const field of ['from', 'to']) {
      it(`answers 400 at the ${field} query value ${leap} of a deployment history`, async () => {
        const f = factories(t.db)
        const { environment, tokens } = await f.environmentWithTokens()
        const helm = await f.helmService(environment.id)
        for (const url of [`/environment/${environment.id}/deploymentHistoryV2`, `/helm/${helm.id}/deploymentHistoryV2`]) {
          const res = await t.app.inject({
            method: 'GET',
            url: `${url}?${field}=${encodeURIComponent(leap)}`,
            headers: { authorization: tokens.read.authorization },
          })
          const errors = assertValidationError(res)
          assert.deepEqual(
            errors.map((e) => [e.path, e.location]),
            [[`/${field}`, 'query']],
          )
        }
      })
    }
  }

  it('still takes the second before a leap second', async () => {
    const { organization, tokens } = await factories(t.db).organizationWithTokens()
    const res = await t.app.inject({
      method: 'POST',
      url: `/organization/${organization.id}/apiToken`,
      headers: { authorization: tokens.admin.authorization },
      payload: { name: uniqueName('almost leap'), expired_at: '2099-12-31T23:59:59.999Z' },
    })
    assert.equal(res.statusCode, 201, res.body)
    assert.equal(res.json().expired_at, '2099-12-31T23:59:59.999Z')
  })
})
