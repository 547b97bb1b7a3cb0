import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { type ArgoCdStandIn, startArgoCdStandIn } from './helpers/argocd-standin.ts'
import { assertError } from './helpers/assertions.ts'
import { createDeploymentsApp, type DeploymentsTestApp, until } from './helpers/deployments.ts'
import { factories } from './helpers/factories.ts'

// An Argo CD's applications as GITOPS_APP services (docs/argocd.md), against the stand-in Argo CD:
// the poller makes an environment per destination namespace, each sync Argo CD performed is one
// history entry, a deploy from Berth asks Argo CD to sync (a rollback to roll back, a dry run for
// the diff), the manifest and logs come from Argo CD, an unreachable Argo CD leaves its services
// with an unknown status, and deleting the credentials removes them.

const TOKEN = 'argocd-token-of-the-qovery-account'
const DESTINATION = 'https://kubernetes.default.svc'

interface HistoryEntry {
  identifier: { execution_id: string }
  auditing_data: { triggered_by: string; origin: string }
  status: string
  trigger_action: string
  stages: { services: { identifier: { service_id: string; name: string }; status: string; details: { git_commit_id?: string } }[] }[]
}

describe('Argo CD applications as GITOPS_APP services', () => {
  let t: DeploymentsTestApp
  let argo: ArgoCdStandIn
  let admin: string
  let read: string
  let organizationId: string
  let agentId: string
  let targetId: string

  const call = (authorization: string, method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: object) =>
    t.app.inject({ method, url, headers: { authorization }, ...(payload ? { payload } : {}) })
  const associated = async () =>
    (await call(read, 'GET', `/cluster/${agentId}/argocdApps/associatedServices`)).json().results as {
      environment_id: string
      environment_name: string
      project_name: string
      service_id: string
      service_name: string
      service_type: string
    }[]
  const serviceOf = async (name: string) => (await associated()).find((row) => row.service_name === name)!
  const history = async (environmentId: string) =>
    (await call(read, 'GET', `/environment/${environmentId}/deploymentHistoryV2`)).json().results as HistoryEntry[]
  const app = async (serviceId: string) => (await call(read, 'GET', `/argocdApp/${serviceId}`)).json()

  before(async () => {
    argo = await startArgoCdStandIn()
    argo.tokens.set(TOKEN, 'admin')
    argo.addApp('web', 'shop')
    argo.addApp('worker', 'shop', { health: 'Progressing' })
    argo.addApp('grafana', 'monitoring')
    argo.addApp('elsewhere', 'shop', { server: 'https://other-cluster.example' })
    // A poll holds a connection for its lock: a lease longer than the helper's 2 s keeps a busy machine from interrupting runs.
    t = await createDeploymentsApp(5, { BERTH_ALLOW_PRIVATE_URLS: 'true', BERTH_ARGOCD_POLL_INTERVAL_MS: '300', BERTH_RUNNER_LEASE_MS: '15000' })
    const { organization, tokens } = await factories(t.db).organizationWithTokens()
    organizationId = organization.id
    admin = tokens.admin.authorization
    read = tokens.read.authorization
    agentId = (await factories(t.db).cluster(organizationId, { kubernetes: 'SELF_MANAGED', executor: 'KUBERNETES' })).id
    targetId = (await factories(t.db).cluster(organizationId, { kubernetes: 'SELF_MANAGED', executor: 'KUBERNETES', production: true })).id
    assert.equal((await call(admin, 'POST', `/cluster/${agentId}/argoCdConfig`, { argocd_url: argo.url, argocd_token: TOKEN })).statusCode, 200)
    const mapping = { agent_cluster_id: agentId, argocd_cluster_url: DESTINATION, cluster_id: targetId }
    assert.equal((await call(admin, 'POST', `/organization/${organizationId}/argoCdDestinationClusterMapping`, mapping)).statusCode, 200)
  })
  after(async () => {
    await t?.close()
    await argo?.close()
  })

  it('shows the three mapped applications as GITOPS_APP services in an environment per namespace, with their status', async () => {
    const rows = await until(associated, (r) => r.length === 3, { what: 'three services', timeoutMs: 20_000 })
    assert.deepEqual(
      rows.map((r) => [r.environment_name, r.service_name, r.service_type, r.project_name]),
      [
        ['monitoring', 'grafana', 'GITOPS_APP', 'ArgoCD Integration'],
        ['shop', 'web', 'GITOPS_APP', 'ArgoCD Integration'],
        ['shop', 'worker', 'GITOPS_APP', 'ArgoCD Integration'],
      ],
    )
    const shop = rows.find((r) => r.service_name === 'web')!.environment_id
    const environment = (await call(read, 'GET', `/environment/${shop}`)).json()
    assert.equal(environment.mode, 'PRODUCTION', 'the mapped cluster is a production one')
    assert.equal(environment.cluster_id, targetId)
    const services = (await call(read, 'GET', `/environment/${shop}/services`)).json().results
    assert.deepEqual(services.map((s: { name: string; service_type: string }) => [s.name, s.service_type]).sort(), [
      ['web', 'GITOPS_APP'],
      ['worker', 'GITOPS_APP'],
    ])

    const web = await app(rows.find((r) => r.service_name === 'web')!.service_id)
    assert.equal(web.service_type, 'GITOPS_APP')
    assert.equal(web.namespace, 'shop')
    assert.equal(web.cluster_id, targetId)
    assert.equal(web.sync_status, 'Synced')
    assert.equal(web.health_status, 'Healthy')
    assert.equal(web.manifest_revision, argo.apps.get('web')!.revision)
    assert.equal(web.git_repository.url, 'https://github.com/example/gitops.git')
    assert.equal((await app(rows.find((r) => r.service_name === 'worker')!.service_id)).health_status, 'Progressing')

    // The unmapped application is the poll's last.
    const [instance] = await until(
      async () => (await call(read, 'GET', `/organization/${organizationId}/argoCdDestinationClusterMapping`)).json().results,
      (results) => results[0]?.unlinked_clusters.length === 1,
      { what: 'the unmapped destination' },
    )
    assert.deepEqual(
      instance.linked_clusters.map((c: { applications_count: number }) => c.applications_count),
      [3],
    )
    assert.deepEqual(instance.unlinked_clusters, [
      { argocd_cluster_url: 'https://other-cluster.example', argocd_cluster_name: 'https://other-cluster.example', applications_count: 1 },
    ])

    // Another organization sees none of it.
    const stranger = (await factories(t.db).organizationWithTokens()).tokens.admin.authorization
    assertError(await call(stranger, 'GET', `/argocdApp/${web.id}`), 404, 'not_found')
    assertError(await call(stranger, 'GET', `/argocdApp/${web.id}/manifest`), 404, 'not_found')
  })

  it('writes each sync Argo CD performed as one entry of the environment’s history, with its revision', async () => {
    const web = await until(
      () => serviceOf('web'),
      (row) => row !== undefined,
      { what: 'web' },
    )
    const first = await until(
      () => history(web.environment_id),
      (entries) => entries.length === 2 && entries.every((e) => e.status === 'DEPLOYED'),
      { what: 'the first syncs of web and worker', timeoutMs: 20_000 },
    )
    assert.ok(first.every((e) => e.auditing_data.origin === 'GIT'))

    argo.syncInArgoCd('web', 'c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00', 'alice')
    const entries = await until(
      () => history(web.environment_id),
      (list) => list.length === 3 && list[0]!.status === 'DEPLOYED',
      { what: 'the sync done in Argo CD', timeoutMs: 20_000 },
    )
    const newest = entries[0]!
    assert.equal(newest.auditing_data.triggered_by, 'alice (Argo CD)')
    const part = newest.stages.flatMap((stage) => stage.services).find((s) => s.identifier.service_id === web.service_id)!
    assert.equal(part.details.git_commit_id, 'c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00')
    // Polls that see nothing new write nothing.
    await new Promise((resolve) => setTimeout(resolve, 500))
    assert.equal((await history(web.environment_id)).length, 3)
  })

  it('deploys by asking Argo CD to sync, rolls back through Argo CD, diffs in a dry run; stop, create and edit are refused with 400', async () => {
    const web = await serviceOf('web')
    const before = argo.apps.get('web')!.history.length
    const deployed = await call(admin, 'POST', `/gitopsapp/${web.service_id}/deploy`, { revision: 'v2.0.0' })
    assert.equal(deployed.statusCode, 202, deployed.body)
    const sync = await until(
      () => argo.calls.find((c) => c.method === 'POST' && c.path === '/api/v1/applications/web/sync' && c.body?.revision === 'v2.0.0'),
      (found) => found !== undefined,
      { what: 'the sync at v2.0.0' },
    )
    assert.equal(sync!.authorization, `Bearer ${TOKEN}`)
    await until(
      async () => (await call(read, 'GET', `/gitopsapp/${web.service_id}/status`)).json().state,
      (state) => state === 'DEPLOYED',
      { what: 'the deploy done' },
    )
    assert.equal(argo.apps.get('web')!.history.length, before + 1)
    assert.equal(argo.apps.get('web')!.revision, 'v2.0.0')

    // A dry run asks Argo CD for a sync without applying it.
    assert.equal((await call(admin, 'POST', `/gitopsapp/${web.service_id}/deploy?dry_run=true`, {})).statusCode, 202)
    await until(
      () => argo.calls.some((c) => c.path === '/api/v1/applications/web/sync' && c.body?.dryRun === true),
      (found) => found,
      { what: 'the dry run' },
    )

    // A rollback to the first deployment Berth recorded asks Argo CD to roll back to that history id.
    const entries = await until(
      () => history(web.environment_id),
      (list) => list.every((e) => e.status !== 'QUEUED' && e.status !== 'DEPLOYING' && e.status !== 'DRY_RUN_QUEUED'),
      { what: 'no deployment under way' },
    )
    const oldest = entries.at(-1)!
    const rolled = await call(admin, 'POST', `/gitopsapp/${web.service_id}/rollback`, { execution_id: oldest.identifier.execution_id })
    assert.equal(rolled.statusCode, 202, rolled.body)
    const rollback = await until(
      () => argo.calls.find((c) => c.path === '/api/v1/applications/web/rollback'),
      (found) => found !== undefined,
      { what: 'the rollback' },
    )
    assert.equal(rollback!.body?.id, 0)

    const stop = await call(admin, 'POST', `/gitopsapp/${web.service_id}/stop`)
    assert.equal(stop.statusCode, 400)
    assert.match(stop.json().message, /Argo CD owns this application/)
    const created = await call(admin, 'POST', `/environment/${web.environment_id}/gitopsapp`, { name: 'mine' })
    assert.equal(created.statusCode, 400)
    assert.match(created.json().message, /Argo CD owns this application/)
    const edited = await call(admin, 'PUT', `/gitopsapp/${web.service_id}`, { name: 'renamed' })
    assert.equal(edited.statusCode, 400)
    assertError(await call(read, 'POST', `/gitopsapp/${web.service_id}/deploy`, {}), 403, 'forbidden')
  })

  it('answers the manifest and the logs from Argo CD', async () => {
    const web = await serviceOf('web')
    const manifest = await call(read, 'GET', `/argocdApp/${web.service_id}/manifest`)
    assert.equal(manifest.statusCode, 200)
    const [resource] = manifest.json().manifest_metadata.managed_resources
    assert.equal(resource.kind, 'Deployment')
    assert.equal(resource.name, 'web')
    assert.equal(JSON.parse(resource.liveState).metadata.name, 'web')
    assert.ok(JSON.parse(resource.targetState).spec)

    argo.apps.get('web')!.pods[0]!.lines.push(`connected with ${TOKEN}`)
    const logs = await call(read, 'GET', `/gitopsapp/${web.service_id}/log`)
    assert.equal(logs.statusCode, 200, logs.body)
    const messages = logs.json().results.map((line: { message: string }) => line.message)
    assert.ok(messages.includes('web started'), JSON.stringify(messages))
    assert.ok(!logs.body.includes(TOKEN), 'the token never reaches the logs')
    assert.ok(argo.calls.some((c) => c.path.startsWith('/api/v1/applications/web/pods/') && c.path.includes('namespace=shop')))
  })

  it('follows status changes; an unreachable Argo CD leaves the services with an unknown status', async () => {
    const worker = await serviceOf('worker')
    argo.apps.get('worker')!.health = 'Degraded'
    argo.apps.get('worker')!.sync = 'OutOfSync'
    await until(
      () => app(worker.service_id),
      (a) => a.health_status === 'Degraded' && a.sync_status === 'OutOfSync',
      { what: 'Degraded' },
    )

    argo.reachable = false
    await until(
      () => app(worker.service_id),
      (a) => a.sync_status === 'Unknown' && a.health_status === 'Unknown',
      { what: 'unknown' },
    )
    assert.equal((await associated()).length, 3, 'the services stay')
    const [instance] = (await call(read, 'GET', `/organization/${organizationId}/argoCdDestinationClusterMapping`)).json().results
    assert.equal(instance.status, 'error')
    argo.reachable = true
    await until(
      () => app(worker.service_id),
      (a) => a.health_status === 'Degraded',
      { what: 'known again' },
    )
  })

  it('removes a service whose application went, with the environment its namespace leaves empty', async () => {
    const grafana = await serviceOf('grafana')
    argo.apps.delete('grafana')
    await until(associated, (rows) => !rows.some((r) => r.service_name === 'grafana'), { what: 'grafana gone' })
    assertError(await call(read, 'GET', `/environment/${grafana.environment_id}`), 404, 'not_found')
  })

  it('deleting the credentials stops the polling and removes the services and their environments', async () => {
    const web = await serviceOf('web')
    assert.equal((await call(admin, 'DELETE', `/cluster/${agentId}/argoCdConfig`)).statusCode, 204)
    assert.deepEqual(await associated(), [])
    assertError(await call(read, 'GET', `/argocdApp/${web.service_id}`), 404, 'not_found')
    assertError(await call(read, 'GET', `/environment/${web.environment_id}`), 404, 'not_found')
    await new Promise((resolve) => setTimeout(resolve, 400))
    const count = argo.calls.length
    await new Promise((resolve) => setTimeout(resolve, 600))
    assert.equal(argo.calls.length, count, 'no poll reaches Argo CD any more')
  })
})
