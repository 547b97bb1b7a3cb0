import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { ClustersApi, Configuration, EnvironmentMainCallsApi, EnvironmentsApi } from 'qovery-typescript-axios'
import { createTestApp, type TestApp } from './helpers/app.ts'
import { assertError, assertValidationError, rejectedStatus } from './helpers/assertions.ts'
import { factories, uniqueName } from './helpers/factories.ts'

// Clusters through HTTP and the official client: CRUD, where environments go, the 409 while they
// use one, and the kubeconfig: stored sealed, returned to ADMIN only.

const KUBECONFIG = `apiVersion: v1
kind: Config
clusters:
- name: lab
  cluster: { server: 'https://203.0.114.10:6443' }
users:
- name: admin
  user: { token: 'secret-token-do-not-leak' }
contexts:
- name: lab
  context: { cluster: lab, user: admin }
current-context: lab
`

describe('clusters', () => {
  let t: TestApp
  let basePath: string
  before(async () => {
    t = await createTestApp()
    basePath = await t.listen()
  })
  after(async () => {
    await t?.close()
  })

  it('creates, lists, edits and deletes clusters through the official client; the default cluster comes first', async () => {
    const { organization, tokens } = await factories(t.db).organizationWithTokens()
    const api = new ClustersApi(new Configuration({ basePath, apiKey: tokens.write.authorization }))
    const name = uniqueName('k8s')
    const { data: created, status } = await api.createCluster(organization.id, {
      name,
      region: 'lab',
      cloud_provider: 'ON_PREMISE',
      kubernetes: 'SELF_MANAGED',
      description: 'the lab',
      min_running_nodes: 3,
    })
    assert.equal(status, 201)
    assert.equal(created.name, name)
    assert.equal(created.kubernetes, 'SELF_MANAGED')
    assert.equal(created.organization.id, organization.id)
    assert.equal(created.is_default, false)
    assert.equal((created as unknown as { executor: string }).executor, 'KUBERNETES')
    assert.equal(created.status, 'INVALID_CREDENTIALS', 'a Kubernetes cluster without a kubeconfig cannot take deployments')

    const { data: list } = await api.listOrganizationCluster(organization.id)
    assert.deepEqual(
      list.results?.map((c) => [c.name, c.is_default]),
      [
        ['default', true],
        [name, false],
      ],
    )

    const { data: edited } = await api.editCluster(organization.id, created.id, {
      name: `${name} renamed`,
      region: 'lab-2',
      cloud_provider: 'ON_PREMISE',
      executor: 'DOCKER',
    } as never)
    assert.equal(edited.name, `${name} renamed`)
    assert.equal(edited.region, 'lab-2')
    assert.equal((edited as unknown as { executor: string }).executor, 'DOCKER')
    assert.equal(edited.status, 'DEPLOYED')

    const { data: statuses } = await api.getOrganizationClusterStatus(organization.id)
    assert.equal(statuses.results?.length, 2)
    const { data: one } = await api.getClusterStatus(organization.id, created.id)
    assert.deepEqual([one.cluster_id, one.status, one.is_deployed], [created.id, 'DEPLOYED', true])

    const clash = await t.app.inject({
      method: 'POST',
      url: `/organization/${organization.id}/cluster`,
      headers: { authorization: tokens.write.authorization },
      payload: { name: `${name} RENAMED`, region: 'x', cloud_provider: 'AWS' },
    })
    assertError(clash, 409, 'conflict')

    assert.equal((await api.deleteCluster(organization.id, created.id)).status, 204)
    assert.equal(await rejectedStatus(api.getClusterStatus(organization.id, created.id)), 404)
  })

  it('puts environments on the cluster they name, and refuses to delete a cluster while environments use it', async () => {
    const f = factories(t.db)
    const { organization, tokens } = await f.organizationWithTokens()
    const project = await f.project(organization.id)
    const configuration = new Configuration({ basePath, apiKey: tokens.write.authorization })
    const clusters = new ClustersApi(configuration)
    const { data: cluster } = await clusters.createCluster(organization.id, {
      name: 'docker',
      region: 'here',
      cloud_provider: 'ON_PREMISE',
      executor: 'DOCKER',
    } as never)
    const { data: environment } = await new EnvironmentsApi(configuration).createEnvironment(project.id, {
      name: 'on-docker',
      mode: 'DEVELOPMENT',
      cluster: cluster.id,
    })
    assert.equal(environment.cluster_id, cluster.id)
    assert.equal(environment.cluster_name, 'docker')
    const executor = await t.db
      .selectFrom('environments as e')
      .innerJoin('clusters as c', 'c.id', 'e.clusterId')
      .select('c.executor')
      .where('e.id', '=', environment.id)
      .executeTakeFirstOrThrow()
    assert.equal(executor.executor, 'DOCKER', 'the runner deploys the environment with the cluster’s executor')

    const refused = await t.app.inject({
      method: 'DELETE',
      url: `/organization/${organization.id}/cluster/${cluster.id}`,
      headers: { authorization: tokens.write.authorization },
    })
    assert.match(assertError(refused, 409, 'conflict').message, /used by 1 environment/)

    const { data: list } = await clusters.listOrganizationCluster(organization.id)
    const defaultCluster = list.results!.find((c) => c.is_default)!
    const protectedDefault = await t.app.inject({
      method: 'DELETE',
      url: `/organization/${organization.id}/cluster/${defaultCluster.id}`,
      headers: { authorization: tokens.write.authorization },
    })
    assertError(protectedDefault, 409, 'conflict')

    await new EnvironmentMainCallsApi(configuration).deleteEnvironment(environment.id)
    // An environment's delete is a deployment; once it is gone the cluster can go.
    for (let i = 0; i < 100; i++) {
      const left = await t.db.selectFrom('environments').select('id').where('clusterId', '=', cluster.id).execute()
      if (left.length === 0) break
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    assert.equal((await clusters.deleteCluster(organization.id, cluster.id)).status, 204)
  })

  it('stores the kubeconfig sealed and returns it to ADMIN only', async () => {
    const { organization, tokens } = await factories(t.db).organizationWithTokens()
    const writer = new ClustersApi(new Configuration({ basePath, apiKey: tokens.write.authorization }))
    const { data: cluster } = await writer.createCluster(organization.id, {
      name: 'lab',
      region: 'lab',
      cloud_provider: 'ON_PREMISE',
      kubernetes: 'SELF_MANAGED',
    })
    const put = await t.app.inject({
      method: 'PUT',
      url: `/organization/${organization.id}/cluster/${cluster.id}/kubeconfig`,
      headers: { authorization: tokens.write.authorization, 'content-type': 'application/x-yaml' },
      payload: KUBECONFIG,
    })
    assert.equal(put.statusCode, 204, put.body)
    const asJson = await t.app.inject({
      method: 'PUT',
      url: `/organization/${organization.id}/cluster/${cluster.id}/kubeconfig`,
      headers: { authorization: tokens.write.authorization },
      payload: { kubeconfig: KUBECONFIG },
    })
    assertError(asJson, 415, 'unsupported_media_type')
    const empty = await t.app.inject({
      method: 'PUT',
      url: `/organization/${organization.id}/cluster/${cluster.id}/kubeconfig`,
      headers: { authorization: tokens.write.authorization, 'content-type': 'application/x-yaml' },
      payload: '',
    })
    assert.equal(empty.statusCode, 400, empty.body)

    const stored = await t.db.selectFrom('clusters').select('kubeconfigSealed').where('id', '=', cluster.id).executeTakeFirstOrThrow()
    assert.ok(stored.kubeconfigSealed)
    assert.ok(!stored.kubeconfigSealed.toString('latin1').includes('secret-token-do-not-leak'), 'sealed, not stored in clear')

    for (const role of ['read', 'deploy', 'write'] as const) {
      const res = await t.app.inject({
        method: 'GET',
        url: `/organization/${organization.id}/cluster/${cluster.id}/kubeconfig`,
        headers: { authorization: tokens[role].authorization },
      })
      assertError(res, 403, 'forbidden')
      assert.ok(!res.body.includes('secret-token'))
    }
    const listed = await writer.listOrganizationCluster(organization.id)
    assert.ok(!JSON.stringify(listed.data).includes('secret-token'))
    assert.equal((listed.data.results!.find((c) => c.id === cluster.id) as unknown as { has_kubeconfig: boolean }).has_kubeconfig, true)
    assert.equal(listed.data.results!.find((c) => c.id === cluster.id)!.status, 'DEPLOYED')

    const admin = new ClustersApi(new Configuration({ basePath, apiKey: tokens.admin.authorization }))
    const { data: kubeconfig, headers } = await admin.getClusterKubeconfig(organization.id, cluster.id)
    assert.equal(kubeconfig, KUBECONFIG)
    assert.match(String(headers['content-type']), /application\/x-yaml/)
  })

  it('validates requests and answers 404 for another organization’s cluster', async () => {
    const f = factories(t.db)
    const mine = await f.organizationWithTokens()
    const theirs = await f.organizationWithTokens()
    const theirCluster = await t.app.inject({
      method: 'POST',
      url: `/organization/${theirs.organization.id}/cluster`,
      headers: { authorization: theirs.tokens.write.authorization },
      payload: { name: 'theirs', region: 'r', cloud_provider: 'AWS' },
    })
    const { id } = theirCluster.json()
    for (const url of [`/organization/${mine.organization.id}/cluster/${id}`, `/organization/${mine.organization.id}/cluster/${id}/status`]) {
      assertError(await t.app.inject({ method: 'GET', url, headers: { authorization: mine.tokens.admin.authorization } }), 404, 'not_found')
    }
    const bad = await t.app.inject({
      method: 'POST',
      url: `/organization/${mine.organization.id}/cluster`,
      headers: { authorization: mine.tokens.write.authorization },
      payload: { name: '', region: 'r', cloud_provider: 'MARS', executor: 'NOMAD' },
    })
    assert.deepEqual(
      assertValidationError(bad)
        .map((e) => e.path)
        .sort(),
      ['/cloud_provider', '/executor', '/name'],
    )
    const environment = await t.app.inject({
      method: 'POST',
      url: `/project/${(await f.project(mine.organization.id)).id}/environment`,
      headers: { authorization: mine.tokens.write.authorization },
      payload: { name: 'x', mode: 'DEVELOPMENT', cluster: id },
    })
    assert.deepEqual(
      assertValidationError(environment).map((e) => e.path),
      ['/cluster'],
    )
  })
})
