import assert from 'node:assert/strict'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { createDeploymentsApp, type DeploymentsTestApp, deploymentCalls } from './helpers/deployments.ts'
import { factories } from './helpers/factories.ts'
import { helmBinary } from './helpers/helm-binary.ts'
import { UNREACHABLE_KUBECONFIG } from './helpers/kubeconfig.ts'

// Issue 31, item 2: a helm repository whose host leads into the server's own network is refused
// when a deployment fetches its chart (the name may have led elsewhere when it was stored), the
// deployment saying why, and helm never connects there.

const KUBECONFIG = UNREACHABLE_KUBECONFIG

describe('the address guard at chart fetch time', () => {
  let t: DeploymentsTestApp
  let charts: Server
  const requests: string[] = []
  before(async () => {
    // A real helm: the runner asks its version before anything else, and the guard must refuse after that.
    t = await createDeploymentsApp(0, { BERTH_RUNNER_POLL_MS: '50', BERTH_HELM_PATH: helmBinary() })
    charts = createServer((req, res) => {
      requests.push(`${req.method} ${req.url}`)
      res.writeHead(404)
      res.end()
    })
    await new Promise<void>((resolve) => charts.listen(0, '127.0.0.1', resolve))
  })
  after(async () => {
    await t?.close()
    await new Promise<void>((resolve) => charts?.close(() => resolve()))
  })

  it('fails the deployment saying the chart fetch was refused, without a request to the repository', async () => {
    const f = factories(t.db)
    const { organization, tokens } = await f.organizationWithTokens()
    // The factories skip the write-time rules: the repository and the kubeconfig as if stored while their names led elsewhere.
    const cluster = await f.cluster(organization.id, { kubernetes: 'SELF_MANAGED', executor: 'KUBERNETES' }, KUBECONFIG)
    const project = await f.project(organization.id)
    const environment = await f.environment(project.id, { clusterId: cluster.id })
    const repository = await f.helmRepository(organization.id, {
      url: `https://127.0.0.1:${(charts.address() as AddressInfo).port}`,
      config: { username: 'robot' },
      secrets: { password: 'chart-password' },
    })
    const helm = await f.helmService(environment.id, {
      name: 'web',
      source: { helm_repository: { repository: repository.id, chart_name: 'webapp', chart_version: '1.2.3' } },
    } as never)
    const calls = deploymentCalls(t.app)
    await calls.trigger(`/helm/${helm.id}/deploy`, tokens.deploy.authorization, {})
    const [entry] = await calls.waitUntilIdle(environment.id, tokens.read.authorization)
    assert.equal(entry!.status, 'DEPLOYMENT_ERROR', JSON.stringify(entry))
    const message = entry!.stages.flatMap((stage) => stage.services)[0]!.message ?? ''
    assert.match(message, /chart fetch refused: 127\.0\.0\.1 leads to a loopback/)
    assert.deepEqual(requests, [], 'helm connected to the repository')
  })
})
