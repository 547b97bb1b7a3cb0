/**
 * Issue 48: the organization's on-premise credentials (CRUD, names unique case aside), which a
 * cluster uses once its cloud provider info names them; credentials a cluster uses are not deleted,
 * and listOrganizationCredentials lists each with the clusters using it.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createTestApp, type TestApp } from './helpers/app.ts'
import { factories } from './helpers/factories.ts'

describe('on-premise credentials', () => {
  let t: TestApp

  before(async () => {
    t = await createTestApp()
  })
  after(() => t.close())

  const call = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, authorization: string, payload?: object) =>
    t.app.inject({ method, url, headers: { authorization }, ...(payload ? { payload } : {}) })

  it('are created, listed, read, renamed and deleted; names are unique case aside; READ reads, WRITE writes', async () => {
    const f = factories(t.db)
    const { organization, tokens } = await f.organizationWithTokens()
    const base = `/organization/${organization.id}/onPremise/credentials`

    assert.equal((await call('POST', base, tokens.read.authorization, { name: 'rack' })).statusCode, 403)
    const created = await call('POST', base, tokens.write.authorization, { name: ' rack A ' })
    assert.equal(created.statusCode, 201, created.body)
    const credentials = created.json()
    assert.deepEqual(credentials, { id: credentials.id, name: 'rack A', object_type: 'OTHER' })
    assert.equal((await call('POST', base, tokens.write.authorization, { name: 'RACK a' })).statusCode, 409)
    assert.equal((await call('POST', base, tokens.write.authorization, { name: 'rack', secret: 'x', extra: 1 })).statusCode, 201)
    assert.equal((await call('POST', base, tokens.write.authorization, {})).statusCode, 400)

    const listed = await call('GET', base, tokens.read.authorization)
    assert.deepEqual(
      listed.json().results.map((item: { name: string }) => item.name),
      ['rack', 'rack A'],
    )
    assert.deepEqual((await call('GET', `${base}/${credentials.id}`, tokens.read.authorization)).json(), credentials)

    const renamed = await call('PUT', `${base}/${credentials.id}`, tokens.write.authorization, { name: 'rack B' })
    assert.equal(renamed.statusCode, 200, renamed.body)
    assert.equal(renamed.json().name, 'rack B')
    assert.equal((await call('PUT', `${base}/${credentials.id}`, tokens.write.authorization, { name: 'Rack' })).statusCode, 409)
    assert.equal((await call('GET', `${base}/${credentials.id}`, tokens.read.authorization)).json().name, 'rack B')

    const stranger = await f.organizationWithTokens()
    assert.equal(
      (await call('GET', `${base}/${credentials.id}`, stranger.tokens.admin.authorization)).statusCode,
      404,
      'another organization is not seen',
    )
    const theirs = `/organization/${stranger.organization.id}/onPremise/credentials/${credentials.id}`
    assert.equal((await call('GET', theirs, stranger.tokens.admin.authorization)).statusCode, 404)
    assert.equal((await call('DELETE', theirs, stranger.tokens.admin.authorization)).statusCode, 404)

    assert.equal((await call('DELETE', `${base}/${credentials.id}`, tokens.read.authorization)).statusCode, 403)
    assert.equal((await call('DELETE', `${base}/${credentials.id}`, tokens.write.authorization)).statusCode, 204)
    assert.equal((await call('GET', `${base}/${credentials.id}`, tokens.read.authorization)).statusCode, 404)
    assert.equal((await call('DELETE', `${base}/${credentials.id}`, tokens.write.authorization)).statusCode, 404)
  })

  it('a cluster naming them uses them: listed with them, and they are not deleted until it names others', async () => {
    const f = factories(t.db)
    const { organization, tokens } = await f.organizationWithTokens()
    const base = `/organization/${organization.id}/onPremise/credentials`
    const used = (await call('POST', base, tokens.write.authorization, { name: 'used' })).json()
    const spare = (await call('POST', base, tokens.write.authorization, { name: 'spare' })).json()
    const cluster = await f.cluster(organization.id, { name: 'on-prem' })
    const info = `/organization/${organization.id}/cluster/${cluster.id}/cloudProviderInfo`

    const foreign = await call('POST', info, tokens.write.authorization, {
      cloud_provider: 'ON_PREMISE',
      credentials: { id: '7b0a3b7e-3a54-4f56-9a2b-6f0f5b3f9d11', name: 'nobody' },
      region: 'lab',
    })
    assert.equal(foreign.statusCode, 400, foreign.body)
    assert.equal(foreign.json().errors[0].path, '/credentials/id')

    const named = await call('POST', info, tokens.write.authorization, {
      cloud_provider: 'ON_PREMISE',
      credentials: { id: used.id, name: 'used' },
      region: 'lab',
    })
    assert.equal(named.statusCode, 201, named.body)

    const listing = await call('GET', `/organization/${organization.id}/credentials`, tokens.read.authorization)
    assert.equal(listing.statusCode, 200, listing.body)
    assert.deepEqual(listing.json(), {
      results: [
        { credential: { id: spare.id, name: 'spare', object_type: 'OTHER' }, clusters: [] },
        {
          credential: { id: used.id, name: 'used', object_type: 'OTHER' },
          clusters: [{ id: cluster.id, name: 'on-prem', cloud_provider: 'ON_PREMISE' }],
        },
      ],
    })

    const refused = await call('DELETE', `${base}/${used.id}`, tokens.admin.authorization)
    assert.equal(refused.statusCode, 409, refused.body)
    assert.match(refused.json().message, /used by the cluster\(s\) "on-prem"/)
    assert.equal((await call('GET', `${base}/${used.id}`, tokens.read.authorization)).statusCode, 200)

    assert.equal(
      (await call('POST', info, tokens.write.authorization, { cloud_provider: 'ON_PREMISE', credentials: { id: spare.id, name: 'spare' } }))
        .statusCode,
      201,
    )
    assert.equal((await call('DELETE', `${base}/${used.id}`, tokens.admin.authorization)).statusCode, 204)
    assert.equal((await call('DELETE', `${base}/${spare.id}`, tokens.admin.authorization)).statusCode, 409)
  })
})
