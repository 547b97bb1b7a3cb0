import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { releaseName } from '#src/modules/executors/kubernetes/helm-executor.ts'
import { createTestApp, type TestApp } from './helpers/app.ts'
import { assertError } from './helpers/assertions.ts'
import { factories } from './helpers/factories.ts'
import { type FakeKubeApi, startFakeKubeApi } from './helpers/fake-kube-api.ts'
import { kubectlBinary } from './helpers/helm-binary.ts'

// getHelmKubernetesServices: the Services of a helm service's release, read with the real kubectl
// from a loopback stand-in of the cluster's API server.

const service = (name: string, release: string, namespace: string, spec: object) => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: {
    name,
    namespace,
    labels: { 'app.kubernetes.io/managed-by': 'Helm' },
    annotations: { 'meta.helm.sh/release-name': release, 'meta.helm.sh/release-namespace': namespace },
  },
  spec,
})

describe("a helm release's Kubernetes Services", () => {
  let t: TestApp
  let kube: FakeKubeApi

  before(async () => {
    kube = await startFakeKubeApi()
    t = await createTestApp({ BERTH_KUBECTL_PATH: kubectlBinary(3), BERTH_ALLOW_PRIVATE_URLS: 'true' })
  })
  after(async () => {
    await t?.close()
    await kube?.close()
  })

  it("lists the release's Services from the API server, and none on a cluster that installs no release", async () => {
    const f = factories(t.db)
    const w = await f.environmentWithTokens()
    const cluster = await f.cluster(w.organization.id, { executor: 'KUBERNETES' }, kube.kubeconfig('kube-token'))
    const environment = await f.environment(w.project.id, { clusterId: cluster.id })
    const helm = await f.helmService(environment.id)
    const other = await f.helmService(environment.id)
    const namespace = `berth-${environment.id}`
    const release = releaseName({ name: helm.name, serviceId: helm.id })
    kube.services(namespace, [
      service('web', release, namespace, {
        type: 'ClusterIP',
        ports: [{ name: 'http', port: 80, targetPort: 8080, protocol: 'TCP' }],
        selector: { 'app.kubernetes.io/instance': release, 'app.kubernetes.io/name': 'web' },
      }),
      service('api', release, namespace, { type: 'LoadBalancer', ports: [{ port: 8443 }], selector: { app: 'api' } }),
      service('theirs', releaseName({ name: other.name, serviceId: other.id }), namespace, { type: 'ClusterIP', ports: [{ port: 1 }] }),
    ])
    const listed = await t.app.inject({
      method: 'GET',
      url: `/helm/${helm.id}/listServices`,
      headers: { authorization: w.tokens.read.authorization },
    })
    assert.equal(listed.statusCode, 200, listed.body)
    assert.deepEqual(listed.json(), {
      results: [
        { metadata: { name: 'api' }, service_spec: { type: 'LoadBalancer', ports: [{ port: 8443 }], selectors: [{ key: 'app', value: 'api' }] } },
        {
          metadata: { name: 'web' },
          service_spec: {
            type: 'ClusterIP',
            ports: [{ name: 'http', port: 80 }],
            selectors: [
              { key: 'app.kubernetes.io/instance', value: release },
              { key: 'app.kubernetes.io/name', value: 'web' },
            ],
          },
        },
      ],
    })
    assert.ok(kube.requests.some((request) => request.url.startsWith(`/api/v1/namespaces/${namespace}/services`)))

    // The default cluster (the simulator here) installs no release: nothing to list.
    const simulated = await f.helmService(w.environment.id)
    const none = await t.app.inject({
      method: 'GET',
      url: `/helm/${simulated.id}/listServices`,
      headers: { authorization: w.tokens.read.authorization },
    })
    assert.deepEqual(none.json(), { results: [] })
    const stranger = await f.environmentWithTokens()
    assertError(
      await t.app.inject({ method: 'GET', url: `/helm/${helm.id}/listServices`, headers: { authorization: stranger.tokens.read.authorization } }),
      404,
      'not_found',
    )
  })
})
