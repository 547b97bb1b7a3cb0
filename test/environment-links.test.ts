/**
 * Issue 48: listEnvironmentServicesLinks answers every link of every service of the environment,
 * each exactly as the service's own listing answers it, in the order of their names; services
 * without links add none; READ suffices, another organization sees no environment.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createTestApp, type TestApp } from './helpers/app.ts'
import { factories } from './helpers/factories.ts'

describe('environment services links', () => {
  let t: TestApp
  before(async () => {
    t = await createTestApp()
  })
  after(async () => t?.close())

  it("lists each container's and helm service's links as their own listings do, databases' and jobs' none", async () => {
    const f = factories(t.db)
    const w = await f.environmentWithTokens()
    const read = w.tokens.read.authorization
    const get = async (url: string, authorization = read) => {
      const res = await t.app.inject({ method: 'GET', url, headers: { authorization } })
      assert.equal(res.statusCode, 200, res.body)
      return res.json().results as { service_id: string; service_type: string; url: string }[]
    }
    const web = await f.containerService(w.environment.id, {
      name: 'a-web',
      ports: [{ internal_port: 8080, external_port: 443, publicly_accessible: true, protocol: 'HTTP', is_default: true }],
    })
    const chart = await f.helmService(w.environment.id, {
      name: 'b-chart',
      ports: [{ internal_port: 80, external_port: 443, protocol: 'HTTP', is_default: true }],
    })
    await f.job(w.environment.id, { name: 'c-job' })

    const own = [...(await get(`/container/${web.id}/link`)), ...(await get(`/helm/${chart.id}/link`))]
    assert.ok(own.length >= 3, 'the container and the helm service have links')
    const listed = await get(`/environment/${w.environment.id}/link`)
    assert.deepEqual(listed, own)
    assert.deepEqual([...new Set(listed.map((link) => link.service_type))], ['CONTAINER', 'HELM'])

    const stranger = await f.organizationWithTokens()
    const hidden = await t.app.inject({
      method: 'GET',
      url: `/environment/${w.environment.id}/link`,
      headers: { authorization: stranger.tokens.admin.authorization },
    })
    assert.equal(hidden.statusCode, 404)
  })
})
