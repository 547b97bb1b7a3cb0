import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createTestApp, type TestApp } from './helpers/app.ts'
import { assertValidationError } from './helpers/assertions.ts'
import { factories } from './helpers/factories.ts'

// Issue 31, item 7: a kubeconfig is parsed when it is stored. Text that is no kubeconfig, or one
// whose server leads into the server's own network, is a 400 and nothing is stored.

const kubeconfig = (server: string) => `apiVersion: v1
kind: Config
clusters:
- name: c
  cluster: { server: '${server}' }
users:
- name: u
  user: { token: 'kube-secret-token' }
contexts:
- name: x
  context: { cluster: c, user: u }
current-context: x
`

describe('PUT /organization/{organizationId}/cluster/{clusterId}/kubeconfig checks what it stores', () => {
  let t: TestApp
  let open: TestApp
  before(async () => {
    t = await createTestApp()
    open = await createTestApp({ BERTH_GIT_ALLOW_PRIVATE_URLS: 'true' })
  })
  after(async () => {
    await t?.close()
    await open?.close()
  })

  const put = async (app: TestApp, body: string) => {
    const { organization, tokens } = await factories(app.db).organizationWithTokens()
    const cluster = await factories(app.db).cluster(organization.id, { kubernetes: 'SELF_MANAGED' })
    const res = await app.app.inject({
      method: 'PUT',
      url: `/organization/${organization.id}/cluster/${cluster.id}/kubeconfig`,
      headers: { authorization: tokens.write.authorization, 'content-type': 'application/x-yaml' },
      payload: body,
    })
    const row = await app.db.selectFrom('clusters').select('kubeconfigSealed').where('id', '=', cluster.id).executeTakeFirstOrThrow()
    return { res, stored: row.kubeconfigSealed !== null }
  }

  for (const [what, body, path] of [
    ['text that is not YAML', 'clusters: [unclosed\n  - {', ''],
    ['YAML without clusters', 'apiVersion: v1\nkind: Config\nusers: []\n', '/clusters'],
    ['a plain string', 'just some text', '/clusters'],
    ['a cluster without a server', 'clusters:\n- name: c\n  cluster: { insecure-skip-tls-verify: true }\n', '/clusters/0/cluster/server'],
    ['a server that is no URL', kubeconfig('not a url'), '/clusters/0/cluster/server'],
    ['a loopback server', kubeconfig('https://127.0.0.1:6443'), '/clusters/0/cluster/server'],
    ['the cloud metadata address', kubeconfig('http://169.254.169.254'), '/clusters/0/cluster/server'],
    ['a name of the server itself', kubeconfig('https://localhost:6443'), '/clusters/0/cluster/server'],
    ['a private address in IPv6 clothing', kubeconfig('https://[::ffff:10.0.0.1]:6443'), '/clusters/0/cluster/server'],
  ] as const) {
    it(`answers 400 at ${path || 'the body'} and stores nothing for ${what}`, async () => {
      const { res, stored } = await put(t, body)
      const errors = assertValidationError(res)
      assert.ok(
        errors.some((error) => error.path === path),
        res.body,
      )
      assert.ok(!res.body.includes('kube-secret-token'), 'the document is never quoted')
      assert.equal(stored, false)
    })
  }

  it('stores a kubeconfig whose server is a public address, and a loopback one where the operator allows private addresses', async () => {
    const publicServer = await put(t, kubeconfig('https://203.0.114.10:6443'))
    assert.equal(publicServer.res.statusCode, 204, publicServer.res.body)
    assert.equal(publicServer.stored, true)
    const allowed = await put(open, kubeconfig('https://127.0.0.1:6443'))
    assert.equal(allowed.res.statusCode, 204, allowed.res.body)
    // Not YAML stays refused whatever the operator allows.
    assertValidationError((await put(open, 'clusters: [unclosed\n  - {')).res)
  })
})
