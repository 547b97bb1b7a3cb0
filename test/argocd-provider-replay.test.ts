import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { ArgoCDApi, ClustersApi, Configuration } from 'qovery-typescript-axios'
import { createTestApp, type TestApp } from './helpers/app.ts'
import { type ArgoCdStandIn, startArgoCdStandIn } from './helpers/argocd-standin.ts'
import { factories } from './helpers/factories.ts'

// The Terraform provider's two Argo CD resources replayed call for call through the official client,
// as its source sequences them (internal/infrastructure/repositories/qoveryapi/argocd_*_qoveryapi.go,
// on qovery-client-go): qovery_argocd_credentials checks the connection before each save, reads by
// cluster, and keeps the token it wrote (the API answers REDACTED); qovery_argocd_destination_cluster_mapping
// saves, and reads by listing the organization's instances and finding its URL among the linked
// clusters. The read after a delete answers 404 (credentials) or no longer lists the mapping.

const TOKEN = 'argocd-token-of-the-terraform-run'

/** The HTTP status a call answered, refused or not. */
const answered = (call: Promise<{ status: number }>) =>
  call.then(
    (res) => res.status,
    (error: { response?: { status?: number } }) => error.response?.status,
  )

describe("the Terraform provider's Argo CD resources replayed through the official client", () => {
  let t: TestApp
  let argo: ArgoCdStandIn
  let configuration: Configuration
  let organizationId: string

  before(async () => {
    argo = await startArgoCdStandIn()
    argo.tokens.set(TOKEN, 'admin')
    argo.tokens.set(`${TOKEN}-rotated`, 'admin')
    argo.addApp('web', 'shop')
    t = await createTestApp({ BERTH_ALLOW_PRIVATE_URLS: 'true' })
    const basePath = await t.listen()
    const { organization, tokens } = await factories(t.db).organizationWithTokens()
    organizationId = organization.id
    configuration = new Configuration({ basePath, apiKey: tokens.admin.authorization })
  })
  after(async () => {
    await t?.close()
    await argo?.close()
  })

  it('qovery_argocd_credentials: check + save, refresh, check + update, refresh, import, delete, read → 404', async () => {
    const api = new ArgoCDApi(configuration)
    const cluster = await new ClustersApi(configuration).createCluster(organizationId, {
      name: `argocd-agent-${Date.now()}`,
      region: 'lab',
      cloud_provider: 'ON_PREMISE',
      kubernetes: 'SELF_MANAGED',
    })
    const clusterId = cluster.data.id
    const plan = { argocd_url: `${argo.url}/`, argocd_token: TOKEN }

    // Create: the connection check first; an error status would stop the apply.
    const checked = await api.checkArgoCdConnection(clusterId, plan)
    assert.equal(checked.data.status, 'connected')
    const created = await api.saveArgoCdCredentials(clusterId, plan)
    assert.equal(created.status, 200)
    assert.equal(created.data.cluster_id, clusterId)
    assert.equal(created.data.argocd_url, plan.argocd_url, 'what the provider wrote is what it reads back')
    assert.equal(created.data.argocd_token, 'REDACTED')
    const id = created.data.id

    // Refresh.
    const read = await api.getArgoCdCredentials(clusterId)
    assert.deepEqual([read.data.id, read.data.cluster_id, read.data.argocd_url], [id, clusterId, plan.argocd_url])

    // Update: a rotated token, checked then saved.
    const rotated = { ...plan, argocd_token: `${TOKEN}-rotated` }
    assert.equal((await api.checkArgoCdConnection(clusterId, rotated)).data.status, 'connected')
    const updated = await api.saveArgoCdCredentials(clusterId, rotated)
    assert.equal(updated.data.id, id)
    assert.equal((await api.getArgoCdCredentials(clusterId)).data.argocd_url, plan.argocd_url)

    // A token Argo CD refuses: the check says why, and the provider stops before saving.
    const refused = await api.checkArgoCdConnection(clusterId, { ...plan, argocd_token: 'revoked' })
    assert.deepEqual(refused.data, { status: 'error', reason: 'authentication_failed' })

    // Import: by cluster id, the same read.
    assert.equal((await api.getArgoCdCredentials(clusterId)).data.id, id)

    // Delete, then the read answers 404 (the resource leaves the state).
    assert.equal((await api.deleteArgoCdCredentials(clusterId)).status, 204)
    assert.equal(await answered(api.getArgoCdCredentials(clusterId)), 404)
  })

  it('qovery_argocd_destination_cluster_mapping: save, refresh through the list, update, import, delete, read → gone', async () => {
    const api = new ArgoCDApi(configuration)
    const clusters = new ClustersApi(configuration)
    const cluster = async (name: string) =>
      (
        await clusters.createCluster(organizationId, {
          name: `${name}-${Date.now()}`,
          region: 'lab',
          cloud_provider: 'ON_PREMISE',
          kubernetes: 'SELF_MANAGED',
        })
      ).data.id
    const agent = await cluster('agent')
    const staging = await cluster('staging')
    const production = await cluster('production')
    await api.saveArgoCdCredentials(agent, { argocd_url: argo.url, argocd_token: TOKEN })
    const url = 'https://staging.k8s.example.com'

    const findLinked = async () => {
      const list = await api.listArgoCdDestinationClusterMappings(organizationId)
      const instance = list.data.results.find((entry) => entry.agent_cluster_id === agent)
      return { agentFound: instance !== undefined, linked: instance?.linked_clusters.find((linked) => linked.argocd_cluster_url === url) }
    }

    const created = await api.saveArgoCdDestinationClusterMapping(organizationId, {
      agent_cluster_id: agent,
      argocd_cluster_url: url,
      cluster_id: staging,
    })
    assert.deepEqual(created.data, { agent_cluster_id: agent, argocd_cluster_url: url, cluster_id: staging })

    // Refresh (and import, "agent,url"): the list's linked clusters.
    const read = await findLinked()
    assert.ok(read.agentFound)
    assert.equal(read.linked?.qovery_cluster_id, staging)

    // Update: the same (agent, url) to another cluster.
    const updated = await api.saveArgoCdDestinationClusterMapping(organizationId, {
      agent_cluster_id: agent,
      argocd_cluster_url: url,
      cluster_id: production,
    })
    assert.equal(updated.data.cluster_id, production)
    assert.equal((await findLinked()).linked?.qovery_cluster_id, production)

    // Delete; the read finds the agent but not the mapping: a genuine deletion (ErrNotFound).
    assert.equal((await api.deleteArgoCdDestinationClusterMapping(organizationId, agent, url)).status, 204)
    const gone = await findLinked()
    assert.ok(gone.agentFound)
    assert.equal(gone.linked, undefined)
    assert.equal(await answered(api.deleteArgoCdDestinationClusterMapping(organizationId, agent, url)), 404)
  })
})
