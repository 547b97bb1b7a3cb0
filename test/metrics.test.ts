import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { promqlProblem } from '#src/modules/alerting/promql-check.ts'
import { scopePromql } from '#src/modules/alerting/promql-scope.ts'
import { readContainerStats } from '#src/modules/metrics/container-stats.ts'
import { createTestApp, type TestApp } from './helpers/app.ts'
import { busyboxImage, docker } from './helpers/docker.ts'
import { factories } from './helpers/factories.ts'

// /metrics (docs/metrics.md): who may read it, what it says of Berth, the Docker engine's stats of
// Berth's containers under cAdvisor's names, and the PromQL scoping that keeps an organization's
// rules on its own series (checked by Prometheus' promtool).

const ORG = '11111111-2222-3333-4444-555555555555'

describe('PromQL scoped to an organization', () => {
  const cases: [string, string][] = [
    [
      'container_memory_working_set_bytes{service_id="a"} > 50e6',
      `container_memory_working_set_bytes{organization_id="${ORG}",service_id="a"} > 50e6`,
    ],
    [
      'sum(rate(container_cpu_usage_seconds_total[5m])) by (service_id)',
      `sum(rate(container_cpu_usage_seconds_total{organization_id="${ORG}"}[5m])) by (service_id)`,
    ],
    [
      'sum by (replica) (foo) / on (replica) group_left(x) bar offset 5m',
      `sum by (replica) (foo{organization_id="${ORG}"}) / on (replica) group_left(x) bar{organization_id="${ORG}"} offset 5m`,
    ],
    ['{__name__=~"container_.*"}', `{organization_id="${ORG}",__name__=~"container_.*"}`],
    [
      'time() - container_start_time_seconds > 3600 and foo{organization_id="other"}',
      `time() - container_start_time_seconds{organization_id="${ORG}"} > 3600 and foo{organization_id="${ORG}",organization_id="other"}`,
    ],
    ['label_replace(up, "a", "$1", "b", "(.*)") == Inf', `label_replace(up{organization_id="${ORG}"}, "a", "$1", "b", "(.*)") == Inf`],
  ]
  for (const [given, expected] of cases) {
    it(`scopes ${given}`, async () => {
      const scoped = scopePromql(given, 'organization_id', ORG)
      assert.equal(scoped, expected)
      assert.equal(await promqlProblem('promtool', scoped, 10), undefined)
    })
  }

  it("refuses a broken expression with Prometheus' message", async () => {
    const problem = await promqlProblem('promtool', 'foo{ > 3', 10)
    assert.match(problem ?? '', /parse error/)
  })
})

describe('GET /metrics', () => {
  let t: TestApp
  before(async () => {
    t = await createTestApp({ BERTH_METRICS_TOKEN: 'metrics-secret-token' })
  })
  after(() => t.close())

  it('answers loopback callers in the text format, with Berth’s own metrics', async () => {
    await t.app.inject({ method: 'GET', url: '/healthz' })
    const res = await t.app.inject({ method: 'GET', url: '/metrics', remoteAddress: '127.0.0.1' })
    assert.equal(res.statusCode, 200, res.body)
    assert.match(res.headers['content-type'] as string, /^text\/plain; version=0.0.4/)
    assert.match(res.body, /^# TYPE berth_http_requests_total counter$/m)
    assert.match(res.body, /^berth_http_requests_total\{method="GET",route="\/healthz",code="200"\} \d+$/m)
    assert.match(res.body, /^# TYPE berth_database_backup_last_success_timestamp_seconds gauge$/m)
    assert.match(res.body, /^# TYPE berth_deployment_queue_depth gauge$/m)
  })

  it('refuses other callers without the token, and answers them with it', async () => {
    const refused = await t.app.inject({ method: 'GET', url: '/metrics', remoteAddress: '10.1.2.3' })
    assert.equal(refused.statusCode, 403)
    assert.equal(refused.json().code, 'forbidden')
    const wrong = await t.app.inject({ method: 'GET', url: '/metrics', remoteAddress: '10.1.2.3', headers: { authorization: 'Bearer nope' } })
    assert.equal(wrong.statusCode, 403)
    const allowed = await t.app.inject({
      method: 'GET',
      url: '/metrics',
      remoteAddress: '10.1.2.3',
      headers: { authorization: 'Bearer metrics-secret-token' },
    })
    assert.equal(allowed.statusCode, 200)
  })
})

describe("the Docker engine's stats of Berth's containers", () => {
  let t: TestApp
  let containerId: string | undefined
  before(async () => {
    t = await createTestApp()
  })
  after(async () => {
    if (containerId) await docker.getContainer(containerId).remove({ force: true })
    await t.close()
  })

  it('reads each running container of a service under cAdvisor’s names, labelled with the service', async () => {
    const f = factories(t.db)
    const { organization } = await f.organizationWithTokens()
    const project = await f.project(organization.id)
    const environment = await f.environment(project.id)
    const service = await f.containerService(environment.id, { name: 'stats-probe' })
    const image = await busyboxImage()
    const container = await docker.createContainer({
      Image: image,
      Cmd: ['sh', '-c', 'x=$(/bin/busybox head -c 20000000 /dev/zero | /bin/busybox tr "\\0" a); while :; do sleep 60; done'],
      Labels: { 'berth.service-id': service.id, 'berth.environment-id': environment.id, 'berth.instance': '0' },
    })
    containerId = container.id
    await container.start()
    let reading: Awaited<ReturnType<typeof readContainerStats>>[number] | undefined
    for (let attempt = 0; attempt < 50 && !(reading && reading.workingSetBytes > 15e6); attempt++) {
      reading = (await readContainerStats(docker, t.db)).find((r) => r.labels.service_id === service.id)
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
    assert.ok(reading, 'the container was read')
    assert.deepEqual(
      { ...reading.labels, container: undefined },
      {
        service_id: service.id,
        service_name: 'stats-probe',
        environment_id: environment.id,
        project_id: project.id,
        organization_id: organization.id,
        replica: '0',
        container: undefined,
      },
    )
    assert.ok(reading.workingSetBytes > 15e6, `working set ${reading.workingSetBytes}`)
    assert.ok(reading.startTimeSeconds > 0)
    assert.equal(reading.restarts, 0)
  })
})
