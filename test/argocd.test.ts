import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { withArgoCdTables } from '#src/modules/argocd/argocd.tables.ts'
import { createTestApp, type TestApp } from './helpers/app.ts'
import { type ArgoCdStandIn, startArgoCdStandIn } from './helpers/argocd-standin.ts'
import { assertError, assertValidationError } from './helpers/assertions.ts'
import { factories } from './helpers/factories.ts'

// The reference's ArgoCD family against a stand-in Argo CD on loopback (test/helpers/argocd-standin.ts):
// credentials sealed and answered REDACTED, the connection check that really calls Argo CD, the
// destination mappings, and the roles and organizations that may do each.

const TOKEN = 'argocd-token-of-the-qovery-account'

describe('the ArgoCD operations', () => {
  let t: TestApp
  let argo: ArgoCdStandIn
  before(async () => {
    argo = await startArgoCdStandIn()
    argo.tokens.set(TOKEN, 'admin')
    argo.tokens.set('no-rights', 'none')
    argo.addApp('web', 'shop')
    argo.addApp('worker', 'shop')
    argo.addApp('grafana', 'monitoring')
    // The stand-in is on loopback: an in-cluster URL is what the platform's documentation recommends.
    t = await createTestApp({ BERTH_ALLOW_PRIVATE_URLS: 'true' })
  })
  after(async () => {
    await t?.close()
    await argo?.close()
  })

  const call = (authorization: string, method: 'GET' | 'POST' | 'DELETE', url: string, payload?: object) =>
    t.app.inject({ method, url, headers: { authorization }, ...(payload ? { payload } : {}) })

  it('checks a connection: connected with the application count, authentication failed, insufficient permissions, unreachable', async () => {
    const { organization, tokens } = await factories(t.db).organizationWithTokens()
    const cluster = await factories(t.db).cluster(organization.id)
    const check = (body: object) => call(tokens.admin.authorization, 'POST', `/cluster/${cluster.id}/argoCdConfig/check`, body)

    const connected = await check({ argocd_url: argo.url, argocd_token: TOKEN })
    assert.equal(connected.statusCode, 200)
    assert.deepEqual(connected.json(), { status: 'connected', app_count: 3 })
    const asked = argo.calls.filter((c) => c.authorization === `Bearer ${TOKEN}`).map((c) => c.path)
    assert.ok(asked.includes('/api/version') && asked.includes('/api/v1/applications'), 'the check called Argo CD with the token')

    assert.deepEqual((await check({ argocd_url: argo.url, argocd_token: 'wrong' })).json(), { status: 'error', reason: 'authentication_failed' })
    assert.deepEqual((await check({ argocd_url: argo.url, argocd_token: 'no-rights' })).json(), {
      status: 'error',
      reason: 'insufficient_permissions',
    })
    // A port nothing listens on.
    assert.deepEqual((await check({ argocd_url: 'http://127.0.0.1:9', argocd_token: TOKEN })).json(), { status: 'error', reason: 'unreachable' })
  })

  it('saves credentials sealed, answers the token REDACTED, replaces and deletes them; a token Argo CD refuses is a 400', async () => {
    const { organization, tokens } = await factories(t.db).organizationWithTokens()
    const cluster = await factories(t.db).cluster(organization.id)
    const url = `/cluster/${cluster.id}/argoCdConfig`
    const admin = tokens.admin.authorization

    assertError(await call(admin, 'GET', url), 404, 'not_found')
    const refused = await call(admin, 'POST', url, { argocd_url: argo.url, argocd_token: 'wrong' })
    assert.equal(assertValidationError(refused)[0]?.path, '/argocd_token')

    const saved = await call(admin, 'POST', url, { argocd_url: `${argo.url}/`, argocd_token: TOKEN })
    assert.equal(saved.statusCode, 200)
    const body = saved.json()
    assert.equal(body.cluster_id, cluster.id)
    assert.equal(body.argocd_url, `${argo.url}/`, 'answered as given')
    assert.equal(body.argocd_token, 'REDACTED')
    assert.ok(body.last_checked_at)

    const stored = await withArgoCdTables(t.db)
      .selectFrom('argocdCredentials')
      .selectAll()
      .where('clusterId', '=', cluster.id)
      .executeTakeFirstOrThrow()
    assert.ok(!stored.tokenSealed.toString('latin1').includes(TOKEN), 'the token is not stored in clear')

    const read = await call(tokens.read.authorization, 'GET', url)
    assert.equal(read.statusCode, 200)
    assert.equal(read.json().argocd_token, 'REDACTED')
    assert.equal(read.json().id, body.id)

    const replaced = await call(admin, 'POST', url, { argocd_url: argo.url, argocd_token: TOKEN })
    assert.equal(replaced.json().id, body.id, 'a second save replaces the cluster’s credentials')

    assert.equal((await call(admin, 'DELETE', url)).statusCode, 204)
    assertError(await call(admin, 'GET', url), 404, 'not_found')
    assertError(await call(admin, 'DELETE', url), 404, 'not_found')
  })

  it('READ and WRITE cannot save, check or delete; another organization gets 404 on every operation', async () => {
    const { organization, tokens } = await factories(t.db).organizationWithTokens()
    const cluster = await factories(t.db).cluster(organization.id)
    const url = `/cluster/${cluster.id}/argoCdConfig`
    const body = { argocd_url: argo.url, argocd_token: TOKEN }
    for (const token of [tokens.read, tokens.write]) {
      assertError(await call(token.authorization, 'POST', url, body), 403, 'forbidden')
      assertError(await call(token.authorization, 'POST', `${url}/check`, body), 403, 'forbidden')
    }
    assert.equal((await call(tokens.admin.authorization, 'POST', url, body)).statusCode, 200)
    assertError(await call(tokens.read.authorization, 'DELETE', url), 403, 'forbidden')

    const other = await factories(t.db).organizationWithTokens()
    const stranger = other.tokens.admin.authorization
    assertError(await call(stranger, 'GET', url), 404, 'not_found')
    assertError(await call(stranger, 'POST', url, body), 404, 'not_found')
    assertError(await call(stranger, 'POST', `${url}/check`, body), 404, 'not_found')
    assertError(await call(stranger, 'DELETE', url), 404, 'not_found')
    assertError(await call(stranger, 'GET', `/cluster/${cluster.id}/argocdApps/associatedServices`), 404, 'not_found')
    const mapping = { agent_cluster_id: cluster.id, argocd_cluster_url: 'https://kubernetes.default.svc', cluster_id: cluster.id }
    assertError(await call(stranger, 'POST', `/organization/${other.organization.id}/argoCdDestinationClusterMapping`, mapping), 404, 'not_found')
    assertError(await call(stranger, 'GET', `/organization/${organization.id}/argoCdDestinationClusterMapping`), 404, 'not_found')
    assert.equal((await call(tokens.read.authorization, 'GET', url)).statusCode, 200, 'its own READ still reads')
  })

  it('refuses a private address without the operator’s opt-in', async () => {
    const guarded = await createTestApp()
    try {
      const { organization, tokens } = await factories(guarded.db).organizationWithTokens()
      const cluster = await factories(guarded.db).cluster(organization.id)
      for (const argocdUrl of [argo.url, 'http://argocd-server.argocd.svc.cluster.local/', 'https://169.254.169.254/']) {
        const res = await guarded.app.inject({
          method: 'POST',
          url: `/cluster/${cluster.id}/argoCdConfig`,
          headers: { authorization: tokens.admin.authorization },
          payload: { argocd_url: argocdUrl, argocd_token: TOKEN },
        })
        assert.equal(assertValidationError(res)[0]?.path, '/argocd_url', argocdUrl)
      }
    } finally {
      await guarded.close()
    }
  })

  it('saves, lists and deletes destination mappings; the list shows each instance with its linked clusters', async () => {
    const { organization, tokens } = await factories(t.db).organizationWithTokens()
    const agent = await factories(t.db).cluster(organization.id)
    const target = await factories(t.db).cluster(organization.id, { production: true })
    const admin = tokens.admin.authorization
    await call(admin, 'POST', `/cluster/${agent.id}/argoCdConfig`, { argocd_url: argo.url, argocd_token: TOKEN })
    const base = `/organization/${organization.id}/argoCdDestinationClusterMapping`
    const mapping = { agent_cluster_id: agent.id, argocd_cluster_url: 'https://kubernetes.default.svc', cluster_id: agent.id }

    assertError(await call(tokens.write.authorization, 'POST', base, mapping), 403, 'forbidden')
    const saved = await call(admin, 'POST', base, mapping)
    assert.equal(saved.statusCode, 200)
    assert.deepEqual(saved.json(), mapping)
    // The same (agent, url) again is an update.
    assert.deepEqual((await call(admin, 'POST', base, { ...mapping, cluster_id: target.id })).json(), { ...mapping, cluster_id: target.id })

    const list = await call(tokens.read.authorization, 'GET', base)
    assert.equal(list.statusCode, 200)
    const [instance] = list.json().results
    assert.equal(instance.agent_cluster_id, agent.id)
    assert.equal(instance.argocd_url, argo.url)
    assert.equal(instance.status, 'connected')
    assert.deepEqual(
      instance.linked_clusters.map((c: { argocd_cluster_url: string; qovery_cluster_id: string }) => [c.argocd_cluster_url, c.qovery_cluster_id]),
      [['https://kubernetes.default.svc', target.id]],
    )

    const other = await factories(t.db).organizationWithTokens()
    const foreign = await factories(t.db).cluster(other.organization.id)
    assert.equal(assertValidationError(await call(admin, 'POST', base, { ...mapping, cluster_id: foreign.id }))[0]?.path, '/cluster_id')

    const query = `?agentClusterId=${agent.id}&argocdClusterUrl=${encodeURIComponent(mapping.argocd_cluster_url)}`
    assertError(await call(tokens.read.authorization, 'DELETE', `${base}${query}`), 403, 'forbidden')
    assert.equal((await call(admin, 'DELETE', `${base}${query}`)).statusCode, 204)
    assertError(await call(admin, 'DELETE', `${base}${query}`), 404, 'not_found')
    assert.deepEqual((await call(admin, 'GET', base)).json().results[0].linked_clusters, [])
  })
})
