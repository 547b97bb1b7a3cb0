/**
 * Issue 48: what clusters answer beyond their records. A locked cluster refuses deployments with a
 * clear 409 until it is unlocked or its lock's time runs out, while other clusters deploy; the
 * organization's locks; a cluster's environments with their services; and readiness asked of the
 * engine (the simulator; a Kubernetes API server, the recording stand-in, through the real kubectl).
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { withClusterLockTables } from '#src/modules/clusters/cluster-locks.tables.ts'
import { createDeploymentsApp, type DeploymentCalls, type DeploymentsTestApp, deploymentCalls } from './helpers/deployments.ts'
import { factories } from './helpers/factories.ts'
import { type FakeKubeApi, startFakeKubeApi } from './helpers/fake-kube-api.ts'
import { kubectlBinary } from './helpers/helm-binary.ts'
import { UNREACHABLE_KUBECONFIG } from './helpers/kubeconfig.ts'

describe('cluster operations', () => {
  let t: DeploymentsTestApp
  let calls: DeploymentCalls
  let f: ReturnType<typeof factories>
  let kube: FakeKubeApi

  before(async () => {
    kube = await startFakeKubeApi()
    t = await createDeploymentsApp(0, { BERTH_KUBECTL_PATH: kubectlBinary(3), BERTH_GIT_ALLOW_PRIVATE_URLS: 'true' })
    calls = deploymentCalls(t.app)
    f = factories(t.db)
  })
  after(async () => {
    await t?.close()
    await kube?.close()
  })

  it('a locked cluster refuses deployments until unlocked or until its lock runs out; other clusters deploy', async () => {
    const w = await f.environmentWithTokens()
    const { admin, write, read, deploy } = w.tokens
    await f.containerService(w.environment.id)
    const other = await f.environment(w.project.id, { clusterId: (await f.cluster(w.organization.id)).id })
    await f.containerService(other.id)
    const clusterId = w.environment.clusterId

    assert.equal((await calls.inject('POST', `/cluster/${clusterId}/lock`, read.authorization, { reason: 'upgrade' })).statusCode, 403)
    const stranger = await f.organizationWithTokens()
    assert.equal((await calls.inject('POST', `/cluster/${clusterId}/lock`, stranger.tokens.admin.authorization, { reason: 'x' })).statusCode, 404)
    const locked = await calls.inject('POST', `/cluster/${clusterId}/lock`, write.authorization, { reason: 'node upgrade' })
    assert.equal(locked.statusCode, 200, locked.body)
    assert.equal(locked.json().cluster_id, clusterId)
    assert.equal(locked.json().reason, 'node upgrade')
    assert.match(locked.json().owner_name, /^API token /)
    assert.equal(locked.json().ttl_in_days, undefined)

    const listed = await calls.inject('GET', `/organization/${w.organization.id}/lock`, read.authorization)
    assert.deepEqual(
      listed.json().results.map((lock: { cluster_id: string }) => lock.cluster_id),
      [clusterId],
    )

    const refused = await calls.inject('POST', `/environment/${w.environment.id}/deploy`, deploy.authorization)
    assert.equal(refused.statusCode, 409, refused.body)
    assert.match(refused.json().message, /cluster "default" is locked until it is unlocked by API token .* \(node upgrade\)/)
    assert.equal(
      (await calls.inject('GET', `/organization/${w.organization.id}/cluster/${clusterId}/isReady`, read.authorization)).json().is_ready,
      false,
    )
    // Another cluster of the organization is not concerned.
    await calls.trigger(`/environment/${other.id}/deploy`, deploy.authorization)

    assert.equal((await calls.inject('DELETE', `/cluster/${clusterId}/lock`, write.authorization)).statusCode, 204)
    // Unlocked already: a retried unlock changes nothing.
    assert.equal((await calls.inject('DELETE', `/cluster/${clusterId}/lock`, write.authorization)).statusCode, 204)
    assert.deepEqual((await calls.inject('GET', `/organization/${w.organization.id}/lock`, read.authorization)).json().results, [])
    await calls.trigger(`/environment/${w.environment.id}/deploy`, deploy.authorization)
    await calls.waitUntilIdle(w.environment.id, admin.authorization)

    // A lock for a day, whose day has passed: it no longer holds, nor is it listed.
    const day = await calls.inject('POST', `/cluster/${clusterId}/lock`, admin.authorization, { reason: 'freeze', ttl_in_days: 1 })
    assert.equal(day.json().ttl_in_days, 1)
    assert.equal(Date.parse(day.json().expires_at) - Date.parse(day.json().locked_at), 24 * 3_600_000)
    assert.equal((await calls.inject('POST', `/environment/${w.environment.id}/redeploy`, deploy.authorization)).statusCode, 409)
    await withClusterLockTables(t.db)
      .updateTable('clusterLocks')
      .set({ lockedAt: new Date(Date.now() - 25 * 3_600_000), expiresAt: new Date(Date.now() - 3_600_000) })
      .where('clusterId', '=', clusterId)
      .execute()
    assert.deepEqual((await calls.inject('GET', `/organization/${w.organization.id}/lock`, read.authorization)).json().results, [])
    await calls.trigger(`/environment/${w.environment.id}/redeploy`, deploy.authorization)
  })

  it("lists a cluster's environments with their services", async () => {
    const w = await f.environmentWithTokens()
    const cluster = await f.cluster(w.organization.id)
    const first = await f.environment(w.project.id, { name: 'alpha', clusterId: cluster.id })
    const second = await f.environment(w.project.id, { name: 'beta', clusterId: cluster.id })
    const web = await f.containerService(first.id, { name: 'web' })
    const job = await f.job(first.id, { name: 'nightly' })
    const listed = await calls.inject('GET', `/cluster/${cluster.id}/environments`, w.tokens.read.authorization)
    assert.equal(listed.statusCode, 200, listed.body)
    assert.deepEqual(listed.json().results, [
      {
        environment_id: first.id,
        environment_name: 'alpha',
        project_id: w.project.id,
        project_name: w.project.name,
        services: [
          { id: job.id, name: 'nightly', type: 'JOB' },
          { id: web.id, name: 'web', type: 'CONTAINER' },
        ],
      },
      { environment_id: second.id, environment_name: 'beta', project_id: w.project.id, project_name: w.project.name, services: [] },
    ])
    const stranger = await f.organizationWithTokens()
    assert.equal((await calls.inject('GET', `/cluster/${cluster.id}/environments`, stranger.tokens.admin.authorization)).statusCode, 404)
  })

  it('says a cluster is ready when its engine answers: the simulator, a Kubernetes API server reached with its kubeconfig', async () => {
    const w = await f.organizationWithTokens()
    const isReady = async (clusterId: string) => {
      const res = await calls.inject('GET', `/organization/${w.organization.id}/cluster/${clusterId}/isReady`, w.tokens.read.authorization)
      assert.equal(res.statusCode, 200, res.body)
      return res.json().is_ready as boolean
    }
    assert.equal(await isReady((await f.cluster(w.organization.id)).id), true)
    assert.equal(await isReady((await f.cluster(w.organization.id, { executor: 'KUBERNETES' })).id), false, 'no kubeconfig')
    assert.equal(await isReady((await f.cluster(w.organization.id, { executor: 'KUBERNETES' }, UNREACHABLE_KUBECONFIG)).id), false, 'nothing answers')
    const reachable = await f.cluster(w.organization.id, { executor: 'KUBERNETES' }, kube.kubeconfig('kube-token'))
    assert.equal(await isReady(reachable.id), true)
    assert.ok(kube.requests.some((request) => request.url.startsWith('/version') && request.authorization === 'Bearer kube-token'))
  })

  it("lists a Kubernetes cluster's events from its API server, in the window and by the filters asked", async () => {
    const w = await f.organizationWithTokens()
    const event = (name: string, at: string, involved: object, extra: object = {}) => ({
      metadata: { name, namespace: 'z1', creationTimestamp: at },
      involvedObject: { namespace: 'z1', ...involved },
      reason: 'BackOff',
      message: `${name} happened`,
      type: 'Warning',
      count: 2,
      lastTimestamp: at,
      source: { component: 'kubelet', host: 'node-a' },
      ...extra,
    })
    kube.events([
      event('early', '2026-12-01T08:00:00Z', { kind: 'Pod', name: 'web-1' }),
      event('pod', '2026-12-01T10:00:00Z', { kind: 'Pod', name: 'web-1' }),
      event(
        'node',
        '2026-12-01T10:30:00Z',
        { kind: 'Node', name: 'node-b' },
        { source: { component: 'node-controller', host: 'node-b' }, type: 'Normal' },
      ),
    ])
    const cluster = await f.cluster(w.organization.id, { executor: 'KUBERNETES' }, kube.kubeconfig('kube-token'))
    const events = async (query: string) => {
      const res = await calls.inject('GET', `/cluster/${cluster.id}/events?${query}`, w.tokens.read.authorization)
      assert.equal(res.statusCode, 200, res.body)
      return res.json().results as { name: string; kind: string; reason: string; reporting_component: string; count: number; type: string }[]
    }
    const window = 'from_date_time=2026-12-01T09:00:00%2B00:00&to_date_time=2026-12-01T11:00:00%2B00:00'
    assert.deepEqual(await events(window), [
      {
        created_at: '2026-12-01T10:00:00.000Z',
        kind: 'Pod',
        namespace: 'z1',
        name: 'web-1',
        reason: 'BackOff',
        message: 'pod happened',
        type: 'Warning',
        reporting_component: 'kubelet',
        count: 2,
      },
      {
        created_at: '2026-12-01T10:30:00.000Z',
        kind: 'Node',
        namespace: 'z1',
        name: 'node-b',
        reason: 'BackOff',
        message: 'node happened',
        type: 'Normal',
        reporting_component: 'node-controller',
        count: 2,
      },
    ])
    assert.deepEqual(
      (await events(`${window}&pod_name=web-1`)).map((found) => found.name),
      ['web-1'],
    )
    assert.deepEqual(
      (await events(`${window}&node_name=node-b`)).map((found) => found.name),
      ['node-b'],
    )
    assert.deepEqual(
      (await events(`${window}&reporting_component=kubelet`)).map((found) => found.name),
      ['web-1'],
    )
    const bad = await calls.inject('GET', `/cluster/${cluster.id}/events?from_date_time=yesterday&to_date_time=now`, w.tokens.read.authorization)
    assert.equal(bad.statusCode, 400)
    // The simulator runs nothing: no events.
    assert.deepEqual(
      (await calls.inject('GET', `/cluster/${(await f.cluster(w.organization.id)).id}/events?${window}`, w.tokens.read.authorization)).json().results,
      [],
    )
  })
})
