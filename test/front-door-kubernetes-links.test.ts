import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createTestApp, type TestApp } from './helpers/app.ts'
import { factories } from './helpers/factories.ts'

// Issue 34: on a Kubernetes cluster whose advanced settings name an apps domain, the links of a
// container answer the names the built-in chart's Ingress serves (the front door's, on 443); on
// one without, the derived names as before.

describe('links on a Kubernetes cluster with an apps domain', () => {
  let t: TestApp
  before(async () => {
    t = await createTestApp()
  })
  after(() => t?.close())

  it('answers the Ingress names under the apps domain, then the custom domains', async () => {
    const make = factories(t.db)
    const { organization, tokens } = await make.organizationWithTokens()
    const project = await make.project(organization.id)
    const cluster = await make.cluster(organization.id, { executor: 'KUBERNETES' })
    const environment = await make.environment(project.id, { clusterId: cluster.id })
    const container = await make.containerService(environment.id, {
      ports: [{ name: 'web', internal_port: 8080, external_port: 443, publicly_accessible: true, protocol: 'HTTP' }],
    } as object)
    const links = async () =>
      (await t.app.inject({ method: 'GET', url: `/container/${container.id}/link`, headers: { authorization: tokens.read.authorization } })).json()
        .results as { url: string; is_default: boolean }[]
    const label = `z${container.id.replaceAll('-', '').slice(0, 8)}`
    assert.ok((await links()).every((link) => !link.url.includes('apps.k8s.example.com')))

    const edited = await t.app.inject({
      method: 'PUT',
      url: `/organization/${organization.id}/cluster/${cluster.id}/advancedSettings`,
      headers: { authorization: tokens.admin.authorization },
      payload: { 'berth.ingress.apps_domain': 'apps.k8s.example.com', 'berth.ingress.cert_manager_cluster_issuer': 'letsencrypt' },
    })
    assert.ok(edited.statusCode < 300, edited.body)
    assert.deepEqual(
      (await links()).map((link) => [link.url, link.is_default]),
      [
        [`https://${label}.apps.k8s.example.com`, true],
        [`https://p8080-${label}.apps.k8s.example.com`, false],
      ],
    )
  })
})
