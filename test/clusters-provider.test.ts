import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { isDeepStrictEqual } from 'node:util'
import { ClustersApi, Configuration } from 'qovery-typescript-axios'
import { createTestApp, type TestApp } from './helpers/app.ts'
import { assertError, assertValidationError, rejectedStatus } from './helpers/assertions.ts'
import { factories, uniqueName } from './helpers/factories.ts'

// The Terraform provider's qovery_cluster, call by call as its client makes them (client/cluster.go,
// cluster_deployment.go, cluster_status.go, cluster_routing_table.go, waiter.go and the cluster
// advanced settings service), through the official client: create, refresh, update, import, delete.
// Berth provisions nothing: deploy and stop record the state the provider then polls for.

type Settings = Record<string, unknown>

/** The provider's ReadClusterAdvancedSettings on import: the keys whose value is not the default. */
const overridden = (current: Settings, defaults: Settings): Settings =>
  Object.fromEntries(Object.entries(current).filter(([key, value]) => !isDeepStrictEqual(value, defaults[key])))

describe('clusters: the Terraform provider’s qovery_cluster', () => {
  let t: TestApp
  let basePath: string
  before(async () => {
    t = await createTestApp()
    basePath = await t.listen()
  })
  after(async () => {
    await t?.close()
  })

  const clientOf = (authorization: string) => new ClustersApi(new Configuration({ basePath, apiKey: authorization }))

  /** client.getClusterByID: the provider finds its cluster in the organization's list. */
  async function listed(api: ClustersApi, organizationId: string, clusterId: string) {
    const { data } = await api.listOrganizationCluster(organizationId)
    return data.results?.find((cluster) => cluster.id === clusterId)
  }

  /** client.updateCluster after createCluster or editCluster: cloud info, routes, settings, then the desired state. */
  async function upsertRest(
    api: ClustersApi,
    organizationId: string,
    clusterId: string,
    plan: {
      credentials?: { id: string; name: string }
      routes: { destination: string; target: string; description: string }[]
      settings: Settings
      state: 'DEPLOYED' | 'STOPPED'
    },
  ) {
    if (plan.credentials) {
      const specified = await api.specifyClusterCloudProviderInfo(organizationId, clusterId, {
        cloud_provider: 'AWS',
        region: 'eu-west-3',
        credentials: plan.credentials,
      })
      assert.equal(specified.status, 201)
    }
    await api.getOrganizationCloudProviderInfo(organizationId, clusterId)
    if (plan.routes.length > 0) {
      const { data, status } = await api.editRoutingTable(organizationId, clusterId, { routes: plan.routes })
      assert.equal(status, 201)
      assert.deepEqual(data.results, plan.routes)
    }
    // UpdateClusterAdvancedSettings: read every key, overlay the plan's, send them all back.
    const { data: current } = await api.getClusterAdvancedSettings(organizationId, clusterId)
    const edited = await api.editClusterAdvancedSettings(organizationId, clusterId, { ...current, ...plan.settings })
    assert.equal(edited.status, 201)

    // updateClusterStatus: wait for a final state, then deploy (always, to apply the edit) or stop.
    const { data: before } = await api.getClusterStatus(organizationId, clusterId)
    assert.ok(!/ING$|_WAITING|_QUEUED/.test(before.status), `${before.status} is not final`)
    if (plan.state === 'DEPLOYED') {
      const deployed = await api.deployCluster(organizationId, clusterId)
      assert.equal(deployed.status, 201)
    } else if (before.status !== 'STOPPED') {
      const stopped = await api.stopCluster(organizationId, clusterId)
      assert.equal(stopped.status, 202)
    }
    const { data: after } = await api.getClusterStatus(organizationId, clusterId)
    assert.equal(after.status, plan.state, 'the provider polls getClusterStatus until it reads the desired state')
    assert.equal(after.is_deployed, plan.state === 'DEPLOYED')
    return listed(api, organizationId, clusterId)
  }

  /** client.GetCluster: every read a refresh (or an import, or the data source) makes. */
  async function refresh(api: ClustersApi, organizationId: string, clusterId: string) {
    const cluster = await listed(api, organizationId, clusterId)
    assert.ok(cluster, 'the cluster is in the list')
    const { data: info } = await api.getOrganizationCloudProviderInfo(organizationId, clusterId)
    assert.ok(info.credentials, 'credentials are always present: the provider reads credentials.id unchecked')
    const { data: routes } = await api.getRoutingTable(organizationId, clusterId)
    const { data: defaults } = await api.getDefaultClusterAdvancedSettings()
    const { data: settings } = await api.getClusterAdvancedSettings(organizationId, clusterId)
    return { cluster, info, routes: routes.results, settings: overridden(settings as Settings, defaults as Settings) }
  }

  it('creates, refreshes, updates, imports and deletes a cluster as the provider does, reading back what it wrote', async () => {
    const { organization, tokens } = await factories(t.db).organizationWithTokens()
    const api = clientOf(tokens.write.authorization)
    const credentials = { id: '7b0a3b7e-3a54-4f56-9a2b-6f0f5b3f9d11', name: 'aws-prod' }
    const name = uniqueName('prod')

    // Create.
    const { data: created, status } = await api.createCluster(organization.id, {
      name,
      cloud_provider: 'AWS',
      region: 'eu-west-3',
      kubernetes: 'MANAGED',
      production: true,
      instance_type: 'KARPENTER',
      min_running_nodes: 1,
      max_running_nodes: 3,
      disk_size: 50,
      features: [],
      cloud_provider_credentials: { cloud_provider: 'AWS', region: 'eu-west-3', credentials },
    } as never)
    assert.equal(status, 201)
    const routes = [{ destination: '10.1.0.0/16', target: 'pcx-0123', description: 'peering' }]
    const settings = { 'loki.log_retention_in_week': 4, 'database.postgresql.allowed_cidrs': ['10.0.0.0/8'] }
    const afterCreate = await upsertRest(api, organization.id, created.id, { credentials, routes, settings, state: 'DEPLOYED' })
    assert.equal(afterCreate?.status, 'DEPLOYED')

    // Refresh: what the provider compares equals what it wrote.
    let read = await refresh(api, organization.id, created.id)
    assert.deepEqual(read.info, { cloud_provider: 'AWS', credentials, region: 'eu-west-3' })
    assert.deepEqual(read.routes, routes)
    assert.deepEqual(read.settings, settings)
    assert.deepEqual([read.cluster.name, read.cluster.region, read.cluster.production, read.cluster.status], [name, 'eu-west-3', true, 'DEPLOYED'])

    // Update: editCluster (after the list that gives it disk_size), new routes and settings, then stop.
    assert.ok(await listed(api, organization.id, created.id))
    const edited = await api.editCluster(organization.id, created.id, {
      name,
      cloud_provider: 'AWS',
      region: 'eu-west-3',
      kubernetes: 'MANAGED',
      description: 'updated',
      production: true,
      features: [],
    } as never)
    assert.equal(edited.status, 200)
    const routes2 = [
      { destination: '10.2.0.0/16', target: 'pcx-0456', description: '' },
      { destination: 'fd00::/8', target: 'tgw-0789', description: 'v6' },
    ]
    const settings2 = { 'loki.log_retention_in_week': 4, 'nginx.hpa.max_number_instances': 10, 'loki.deployment_mode': 'simple_scalable' }
    const afterStop = await upsertRest(api, organization.id, created.id, { routes: routes2, settings: settings2, state: 'STOPPED' })
    assert.equal(afterStop?.status, 'STOPPED')

    read = await refresh(api, organization.id, created.id)
    assert.deepEqual(read.routes, routes2)
    // The keys the plan no longer names keep their value (the provider sends every key it read).
    assert.deepEqual(read.settings, { ...settings, ...settings2 })
    assert.equal(read.cluster.description, 'updated')
    assert.equal(read.cluster.status, 'STOPPED')
    assert.deepEqual(read.info.credentials, credentials, 'unchanged credentials are not sent again, and stay')

    // Back to DEPLOYED; a default value sent back is no longer an override.
    await upsertRest(api, organization.id, created.id, {
      routes: routes2,
      settings: { 'loki.deployment_mode': 'single_binary' },
      state: 'DEPLOYED',
    })

    // Import by id (organization_id,cluster_id): the same reads, with nothing in state to compare.
    const imported = await refresh(clientOf(tokens.read.authorization), organization.id, created.id)
    assert.deepEqual(imported.settings, { ...settings, 'nginx.hpa.max_number_instances': 10 })
    assert.equal(imported.cluster.status, 'DEPLOYED')
    assert.deepEqual(imported.routes, routes2)

    // Delete: wait for a final state, delete, then poll the status until it is gone.
    assert.equal((await api.getClusterStatus(organization.id, created.id)).data.status, 'DEPLOYED')
    assert.equal((await api.deleteCluster(organization.id, created.id)).status, 204)
    assert.equal(await rejectedStatus(api.getClusterStatus(organization.id, created.id)), 404)
    // Refresh after delete: the list no longer has it, and each read is a 404.
    assert.equal(await listed(api, organization.id, created.id), undefined)
    const reads: (() => Promise<unknown>)[] = [
      () => api.getOrganizationCloudProviderInfo(organization.id, created.id),
      () => api.getRoutingTable(organization.id, created.id),
      () => api.getClusterAdvancedSettings(organization.id, created.id),
    ]
    for (const read of reads) assert.equal(await rejectedStatus(read()), 404)
  })

  it('answers defaults for a cluster given nothing, with the reference’s defaults', async () => {
    const { organization, tokens } = await factories(t.db).organizationWithTokens()
    const api = clientOf(tokens.read.authorization)
    const { data: list } = await api.listOrganizationCluster(organization.id)
    const cluster = list.results![0]!
    const { data: defaults } = await api.getDefaultClusterAdvancedSettings()
    const { data: settings } = await api.getClusterAdvancedSettings(organization.id, cluster.id)
    assert.deepEqual(settings, defaults)
    assert.equal(defaults['aws.eks.enable_alb_controller'], true)
    assert.equal(defaults['aws.eks.efs.throughput_mode'], 'elastic')
    assert.equal(defaults['aws.eks.ec2.ami'], 'AmazonLinux2023')
    assert.equal(defaults['registry.mirroring_mode'], 'Service')
    assert.equal(defaults['envoy.gateway_api.retry.num_retries'], null)
    const own = Object.keys(defaults).filter((key) => key.startsWith('berth.'))
    assert.equal(Object.keys(defaults).length - own.length, 59, 'every key of the reference’s ClusterAdvancedSettings')
    // Berth's own (docs/front-door.md, "Kubernetes"): the Ingress's apps domain and cert-manager issuer, unset.
    assert.deepEqual(own.sort(), ['berth.ingress.apps_domain', 'berth.ingress.cert_manager_cluster_issuer'])
    assert.ok(own.every((key) => (defaults as Record<string, unknown>)[key] === null))
    assert.deepEqual((await api.getRoutingTable(organization.id, cluster.id)).data, { results: [] })
    assert.deepEqual((await api.getOrganizationCloudProviderInfo(organization.id, cluster.id)).data, {
      credentials: {},
      region: cluster.region,
      ...(['AWS', 'SCW', 'GCP', 'ON_PREMISE', 'AZURE'].includes(cluster.cloud_provider) ? { cloud_provider: cluster.cloud_provider } : {}),
    })
  })

  it('refuses unknown settings, values out of range and bad routes with a 400 naming each, and changes nothing', async () => {
    const { organization, tokens } = await factories(t.db).organizationWithTokens()
    const created = await t.app.inject({
      method: 'POST',
      url: `/organization/${organization.id}/cluster`,
      headers: { authorization: tokens.write.authorization },
      payload: { name: uniqueName('c'), region: 'r', cloud_provider: 'AWS' },
    })
    const base = `/organization/${organization.id}/cluster/${created.json().id}`
    const put = (path: string, payload: unknown) =>
      t.app.inject({ method: 'PUT', url: `${base}/${path}`, headers: { authorization: tokens.write.authorization }, payload: payload as object })

    const settings = await put('advancedSettings', {
      'loki.log_retention_in_week': -1,
      'nginx.hpa.cpu_utilization_percentage_threshold': 101,
      'loki.deployment_mode': 'distributed',
      'aws.eks.enable_alb_controller': 'yes',
      'envoy.gateway_api.retry.per_try_timeout_seconds': 0,
      'nginx.nope': 1,
      'registry.image_retention_time': 60,
    })
    const errors = assertValidationError(settings)
    assert.deepEqual(errors.map((e) => e.path).sort(), [
      '/aws.eks.enable_alb_controller',
      '/envoy.gateway_api.retry.per_try_timeout_seconds',
      '/loki.deployment_mode',
      '/loki.log_retention_in_week',
      '/nginx.hpa.cpu_utilization_percentage_threshold',
      '/nginx.nope',
    ])
    assert.equal(errors.find((e) => e.path === '/nginx.nope')?.message, 'is not a known key')
    const read = await t.app.inject({ method: 'GET', url: `${base}/advancedSettings`, headers: { authorization: tokens.read.authorization } })
    assert.equal(read.json()['registry.image_retention_time'], 31_536_000, 'nothing of a refused edit is kept')

    for (const [routes, path] of [
      [[{ destination: '10.0.0.0', target: 'x', description: '' }], '/routes/0/destination'],
      [[{ destination: '10.0.0.0/33', target: 'x', description: '' }], '/routes/0/destination'],
      [[{ destination: '999.0.0.0/8', target: 'x', description: '' }], '/routes/0/destination'],
      [
        [
          { destination: '10.0.0.0/8', target: 'x', description: '' },
          { destination: '10.0.0.0/8', target: 'y', description: '' },
        ],
        '/routes/1/destination',
      ],
      [[{ destination: '10.0.0.0/8', target: '', description: '' }], '/routes/0/target'],
      [[{ destination: '10.0.0.0/8', target: 'x' }], '/routes/0/description'],
    ] as const) {
      assert.deepEqual(
        assertValidationError(await put('routingTable', { routes })).map((e) => e.path),
        [path],
      )
    }
    const table = await t.app.inject({ method: 'GET', url: `${base}/routingTable`, headers: { authorization: tokens.read.authorization } })
    assert.deepEqual(table.json(), { results: [] })

    const info = await t.app.inject({
      method: 'POST',
      url: `${base}/cloudProviderInfo`,
      headers: { authorization: tokens.write.authorization },
      payload: { cloud_provider: 'MARS', credentials: { id: 'nope' } },
    })
    assert.deepEqual(
      assertValidationError(info)
        .map((e) => e.path)
        .sort(),
      ['/cloud_provider', '/credentials/id'],
    )
  })

  it('records deploy and stop: stop twice is a 409, a dry run changes nothing, a Kubernetes cluster without kubeconfig is not deployed', async () => {
    const { organization, tokens } = await factories(t.db).organizationWithTokens()
    const api = clientOf(tokens.write.authorization)
    const { data: cluster } = await api.createCluster(organization.id, { name: uniqueName('c'), region: 'r', cloud_provider: 'AWS' })
    assert.equal((await api.stopCluster(organization.id, cluster.id)).data.status, 'STOPPED')
    assert.equal(await rejectedStatus(api.stopCluster(organization.id, cluster.id)), 409)
    const dry = await api.deployCluster(organization.id, cluster.id, true)
    assert.deepEqual([dry.status, dry.data.status], [201, 'STOPPED'])
    assert.equal((await api.getClusterStatus(organization.id, cluster.id)).data.status, 'STOPPED')
    const deployed = await api.deployCluster(organization.id, cluster.id)
    assert.deepEqual([deployed.data.status, deployed.data.is_deployed, deployed.data.cluster_id], ['DEPLOYED', true, cluster.id])

    const { data: lab } = await api.createCluster(organization.id, {
      name: uniqueName('k'),
      region: 'lab',
      cloud_provider: 'ON_PREMISE',
      kubernetes: 'SELF_MANAGED',
    })
    const res = await t.app.inject({
      method: 'POST',
      url: `/organization/${organization.id}/cluster/${lab.id}/deploy`,
      headers: { authorization: tokens.write.authorization },
    })
    assert.match(assertError(res, 400, 'bad_request').message, /kubeconfig/)
    assert.equal((await api.getClusterStatus(organization.id, lab.id)).data.status, 'INVALID_CREDENTIALS')
  })

  it('lets READ read and WRITE change, and answers 404 for another organization’s cluster', async () => {
    const f = factories(t.db)
    const { organization, tokens } = await f.organizationWithTokens()
    const other = await f.organizationWithTokens()
    const created = await clientOf(tokens.write.authorization).createCluster(organization.id, {
      name: uniqueName('c'),
      region: 'r',
      cloud_provider: 'AWS',
    })
    const base = `/organization/${organization.id}/cluster/${created.data.id}`
    const reads = ['advancedSettings', 'routingTable', 'cloudProviderInfo'].map((path) => ({ method: 'GET' as const, url: `${base}/${path}` }))
    const writes = [
      { method: 'PUT' as const, url: `${base}/advancedSettings`, payload: { 'loki.log_retention_in_week': 2 } },
      { method: 'PUT' as const, url: `${base}/routingTable`, payload: { routes: [] } },
      { method: 'POST' as const, url: `${base}/cloudProviderInfo`, payload: { region: 'r' } },
      { method: 'POST' as const, url: `${base}/stop` },
      { method: 'POST' as const, url: `${base}/deploy` },
    ]
    for (const request of reads) {
      const res = await t.app.inject({ ...request, headers: { authorization: tokens.read.authorization } })
      assert.equal(res.statusCode, 200, `${request.method} ${request.url}`)
      assertError(await t.app.inject({ ...request, headers: { authorization: other.tokens.admin.authorization } }), 404, 'not_found')
    }
    for (const request of writes) {
      for (const role of ['read', 'deploy'] as const)
        assertError(await t.app.inject({ ...request, headers: { authorization: tokens[role].authorization } }), 403, 'forbidden')
      assertError(await t.app.inject({ ...request, headers: { authorization: other.tokens.admin.authorization } }), 404, 'not_found')
      const res = await t.app.inject({ ...request, headers: { authorization: tokens.write.authorization } })
      assert.ok([201, 202].includes(res.statusCode), `${request.method} ${request.url}: ${res.statusCode} ${res.body}`)
    }
    const defaults = await t.app.inject({
      method: 'GET',
      url: '/defaultClusterAdvancedSettings',
      headers: { authorization: tokens.read.authorization },
    })
    assert.equal(defaults.statusCode, 200)
    assert.equal((await t.app.inject({ method: 'GET', url: '/defaultClusterAdvancedSettings' })).statusCode, 401)
  })
})
