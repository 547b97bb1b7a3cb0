import assert from 'node:assert/strict'
import { mkdtemp, rm } from 'node:fs/promises'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import { type Browser, chromium, type Page } from 'playwright-core'
import { createTestApp, type TestApp } from './helpers/app.ts'
import { CHROMIUM, CHROMIUM_ARGS, ensureConsoleBuilt, HOST_NETWORK_CHANGED } from './helpers/console-browser.ts'
import { factories } from './helpers/factories.ts'

// Issue 46's console: a service's Metrics tab (CPU, memory, network, restarts over the last hour, day
// or week, read through get-cluster-metrics' query_range) and the organization's Alerts page (rules
// with their live state, receivers, "Send a test"). Prometheus and Alertmanager are a stand-in on
// loopback answering what the real engines answer (test/docker-alerting.test.ts runs the real ones):
// a matrix for each query_range, a firing and notified rule; it also takes the Slack-style test
// notification. What Berth sends Prometheus is checked: every query limited to the organization.

const WAIT = { timeout: 30_000 }
let t: TestApp
let base: string
let browser: Browser
let engines: Server
let dir: string
const firing = new Set<string>()
/** The rule ids the stand-in Prometheus runs, firing or not. */
const running = new Set<string>()
/** The query_range requests the stand-in Prometheus took. */
const ranges: URLSearchParams[] = []
/** The bodies posted to the Slack-style hook. */
const hooked: string[] = []

/** What the stand-in answers for a query: a constant line per series name. */
const VALUES: [RegExp, number][] = [
  [/container_cpu_usage_seconds_total/, 0.25],
  [/container_memory_working_set_bytes/, 80e6],
  [/container_network_receive_bytes_total/, 2_000],
  [/container_network_transmit_bytes_total/, 500],
  [/container_restarts_total/, 2],
]

function startEngines(): Promise<Server> {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://engines')
    if (url.pathname === '/hook') {
      let body = ''
      req.on('data', (chunk) => {
        body += chunk
      })
      req.on('end', () => {
        hooked.push(body)
        res.end('ok')
      })
      return
    }
    res.setHeader('content-type', 'application/json')
    const activeAt = new Date(Date.now() - 3_600_000).toISOString()
    if (url.pathname === '/api/v1/query_range') {
      ranges.push(url.searchParams)
      const query = url.searchParams.get('query') ?? ''
      const [start, end, step] = ['start', 'end', 'step'].map((key) => Number(url.searchParams.get(key)))
      const value = VALUES.find(([pattern]) => pattern.test(query))?.[1]
      const values: [number, string][] = []
      // The first half of the range has no sample: the charts leave it blank.
      if (value !== undefined) for (let at = start! + (end! - start!) / 2; at <= end!; at += step!) values.push([at, String(value)])
      const result = values.length > 0 ? [{ metric: {}, values }] : []
      return res.end(JSON.stringify({ status: 'success', data: { resultType: 'matrix', result } }))
    }
    if (url.pathname === '/api/v1/rules') {
      const rules = [...running].map((id) =>
        firing.has(id)
          ? { state: 'firing', labels: { berth_rule_id: id, berth_rule_version: '1' }, alerts: [{ activeAt, state: 'firing' }] }
          : { state: 'inactive', labels: { berth_rule_id: id, berth_rule_version: '1' }, alerts: [] },
      )
      return res.end(JSON.stringify({ status: 'success', data: { groups: [{ rules }] } }))
    }
    if (url.pathname === '/api/v2/alerts') {
      const alerts = [...firing].map((id) => ({
        labels: { berth_rule_id: id },
        startsAt: activeAt,
        status: { state: 'active' },
        receivers: [{ name: `berth-${id}` }],
      }))
      return res.end(JSON.stringify(alerts))
    }
    res.end('{}')
  })
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)))
}

describe("the console's Metrics tab and Alerts page (issue 46)", () => {
  let enginesUrl: string

  before(async () => {
    await ensureConsoleBuilt()
    engines = await startEngines()
    dir = await mkdtemp(path.join(os.tmpdir(), 'berth-console-metrics-'))
    enginesUrl = `http://127.0.0.1:${(engines.address() as AddressInfo).port}`
    t = await createTestApp({
      BERTH_PROMETHEUS_URL: enginesUrl,
      BERTH_ALERTMANAGER_URL: enginesUrl,
      BERTH_ALERT_RULES_DIR: path.join(dir, 'rules'),
      BERTH_ALERTMANAGER_CONFIG_FILE: path.join(dir, 'alertmanager.yml'),
      // The Slack-style receiver is the stand-in on loopback.
      BERTH_ALLOW_PRIVATE_URLS: 'true',
    })
    base = await t.listen()
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS })
  })

  after(async () => {
    await browser?.close()
    await t?.close()
    await new Promise((resolve) => engines?.close(resolve))
    await rm(dir, { recursive: true, force: true })
  })

  async function open(token: string, route: string): Promise<{ page: Page; problems: string[]; close: () => Promise<void> }> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } })
    await context.addInitScript(
      (value) =>
        (globalThis as unknown as { sessionStorage: { setItem(k: string, v: string): void } }).sessionStorage.setItem('berth.console.token', value),
      token,
    )
    const page = await context.newPage()
    const problems: string[] = []
    page.on('console', (message) => {
      if (message.type() === 'error' && !HOST_NETWORK_CHANGED.test(message.text())) problems.push(message.text())
    })
    page.on('pageerror', (error) => problems.push(error.message))
    await page.goto(`${base}/console/${route}`)
    return { page, problems, close: () => context.close() }
  }

  it("draws the service's CPU, memory, network and restarts, from queries limited to the organization, over the period chosen", async () => {
    const make = factories(t.db)
    const { organization, environment, tokens } = await make.environmentWithTokens()
    const container = await make.containerService(environment.id, { name: 'metered' })
    const { page, problems, close } = await open(tokens.read.token, `#/container/${container.id}/metrics`)
    const now = (chart: string) => page.locator(`.metric-chart[data-chart=${chart}] .metric-now`)
    await now('restarts').waitFor(WAIT)
    await now('memory').waitFor(WAIT)
    await now('cpu').waitFor(WAIT)
    await now('network').waitFor(WAIT)
    assert.equal(await now('memory').innerText(), '80 MB')
    assert.equal(await now('cpu').innerText(), '0.25 cores')
    assert.equal(await now('network').innerText(), 'rx 2.0 kB/s, tx 500 B/s')
    assert.equal(await now('restarts').innerText(), '2')
    // uPlot drew each chart.
    assert.equal(await page.locator('.metric-chart .uplot canvas').count(), 4)
    assert.ok(await page.locator('[role=tab], nav a').filter({ hasText: 'Metrics' }).count(), 'Metrics is one of the tabs')

    const hour = ranges.filter((params) => params.get('query')!.includes(container.id))
    assert.ok(hour.length >= 5, 'a query a line')
    for (const params of hour) {
      assert.match(params.get('query')!, new RegExp(`service_id="${container.id}"`))
      assert.match(params.get('query')!, new RegExp(`organization_id="${organization.id}"`), 'Berth limits every query to the organization')
      assert.equal(params.get('step'), '30')
      assert.equal(Number(params.get('end')) - Number(params.get('start')), 3_600)
    }

    // The last week: the same charts, read again with an hour a point.
    ranges.length = 0
    await page.getByRole('button', { name: 'Last week' }).click()
    await page.waitForFunction(
      () =>
        (globalThis as unknown as { document: { querySelector(s: string): { getAttribute(name: string): string | null } | null } }).document
          .querySelector('[data-range=week]')
          ?.getAttribute('aria-pressed') === 'true',
    )
    const deadline = Date.now() + 30_000
    while (ranges.filter((params) => params.get('step') === '3600').length < 5 && Date.now() < deadline) await page.waitForTimeout(200)
    const week = ranges.filter((params) => params.get('step') === '3600')
    assert.ok(week.length >= 5, 'each line is read again for the week')
    assert.equal(Number(week[0]!.get('end')) - Number(week[0]!.get('start')), 604_800)
    await now('memory').waitFor(WAIT)
    assert.deepEqual(problems, [])
    await close()
  })

  it('lists the alert rules with their live state and the receivers, and sends a test through each', async () => {
    const make = factories(t.db)
    const { organization, environment, tokens } = await make.environmentWithTokens()
    const container = await make.containerService(environment.id, { name: 'watched' })
    const cluster = await make.cluster(organization.id)
    const post = async (url: string, payload: object) => {
      const res = await t.app.inject({ method: 'POST', url, headers: { authorization: tokens.admin.authorization }, payload })
      assert.equal(res.statusCode, 201, res.body)
      return res.json().id as string
    }
    const slack = await post('/alert-receivers', {
      organization_id: organization.id,
      name: 'team-slack',
      description: 'the team channel',
      type: 'SLACK',
      send_resolved: true,
      webhook_url: `${enginesUrl}/hook`,
    })
    const mail = await post('/alert-receivers', {
      organization_id: organization.id,
      name: 'on-call mail',
      description: '',
      type: 'EMAIL',
      send_resolved: false,
      to: 'oncall@example.com',
      from: 'berth@example.com',
      // Nothing listens there: the test says why it was not sent.
      smarthost: '127.0.0.1:9',
      auth_password: '',
      require_tls: false,
    })
    const rule = (name: string, receivers: string[]) =>
      post('/alert-rules', {
        organization_id: organization.id,
        cluster_id: cluster.id,
        name,
        description: '',
        tag: 'memory',
        condition: { kind: 'CUSTOM', promql: `container_memory_working_set_bytes{service_id="${container.id}"} > 50e6` },
        for_duration: 'PT10S',
        severity: 'HIGH',
        presentation: {},
        enabled: true,
        alert_receiver_ids: receivers,
        target: { target_type: 'CONTAINER', target_id: container.id },
      })
    const loud = await rule('memory above 50 MB', [slack, mail])
    firing.add(loud)
    const quiet = await rule('memory above 900 MB', [mail])
    running.add(loud).add(quiet)

    const { page, problems, close } = await open(tokens.write.token, `#/organization/${organization.id}/alerts`)
    const row = (id: string) => page.locator(`.alert-rules tr[data-rule="${id}"]`)
    await row(loud).waitFor(WAIT)
    assert.match(await row(loud).innerText(), /memory above 50 MB/)
    assert.match(await row(loud).locator('.badge').innerText(), /notified/i)
    assert.match(await row(loud).innerText(), /team-slack, on-call mail/)
    assert.match((await row(loud).locator('a').getAttribute('href')) ?? '', new RegExp(`#/container/${container.id}`))
    assert.match(await row(quiet).locator('.badge').innerText(), /^ok$/i)
    assert.ok(!(await row(loud).innerText()).includes('older version'), 'the engines run the current version')
    assert.ok(await page.locator('nav a').filter({ hasText: 'Alerts' }).count(), 'the navigation lists the Alerts page')

    const receiver = (id: string) => page.locator(`.alert-receivers li[data-receiver="${id}"]`)
    await receiver(slack).getByRole('button', { name: 'Send a test' }).click()
    await receiver(slack).locator('.test-result').waitFor(WAIT)
    assert.equal(await receiver(slack).locator('.test-result').innerText(), 'Sent.')
    assert.ok(hooked.some((body) => body.includes('A test notification from the Berth console to team-slack')))
    await receiver(mail).getByRole('button', { name: 'Send a test' }).click()
    await receiver(mail).locator('.test-result').waitFor(WAIT)
    assert.match(await receiver(mail).locator('.test-result').innerText(), /^Not sent: /)
    assert.deepEqual(problems, [])
    await close()

    // A reader sees the rules and receivers, without the test button (it needs WRITE).
    const reader = await open(tokens.read.token, `#/organization/${organization.id}/alerts`)
    await reader.page.locator(`.alert-receivers li[data-receiver="${slack}"]`).waitFor(WAIT)
    assert.equal(await reader.page.getByRole('button', { name: 'Send a test' }).count(), 0)
    await reader.close()
  })
})
