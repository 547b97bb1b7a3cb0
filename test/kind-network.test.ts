import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createTestApp, type TestApp } from './helpers/app.ts'
import { assertError } from './helpers/assertions.ts'
import { factories } from './helpers/factories.ts'

// getContainerNetwork and editContainerNetwork (and the application's, the same routes) read and
// write the advanced setting network.ingress.enable_sticky_session.

describe("a container's network settings", () => {
  let t: TestApp

  before(async () => {
    t = await createTestApp()
  })
  after(() => t.close())

  const call = (method: 'GET' | 'PUT', url: string, authorization: string, payload?: object) =>
    t.app.inject({ method, url, headers: { authorization }, ...(payload ? { payload } : {}) })

  it('are the sticky session advanced setting, read and written', async () => {
    const f = factories(t.db)
    const { environment, tokens } = await f.environmentWithTokens()
    const container = await f.containerService(environment.id)
    const url = `/container/${container.id}/network`
    assert.deepEqual((await call('GET', url, tokens.read.authorization)).json(), { sticky_session: false })

    assertError(await call('PUT', url, tokens.deploy.authorization, { sticky_session: true }), 403, 'forbidden')
    const edited = await call('PUT', url, tokens.write.authorization, { sticky_session: true })
    assert.equal(edited.statusCode, 201, edited.body)
    assert.deepEqual(edited.json(), { sticky_session: true })
    assert.deepEqual((await call('GET', url, tokens.read.authorization)).json(), { sticky_session: true })
    const settings = (await call('GET', `/container/${container.id}/advancedSettings`, tokens.read.authorization)).json()
    assert.equal(settings['network.ingress.enable_sticky_session'], true)

    // Set through the advanced settings, it shows here too.
    const back = await call('PUT', `/container/${container.id}/advancedSettings`, tokens.write.authorization, {
      ...settings,
      'network.ingress.enable_sticky_session': false,
    })
    assert.equal(back.statusCode, 201, back.body)
    assert.deepEqual((await call('GET', url, tokens.read.authorization)).json(), { sticky_session: false })
    assertError(await call('GET', `/application/${container.id}/network`, tokens.read.authorization), 404, 'not_found')
  })
})
