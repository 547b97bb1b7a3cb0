import assert from 'node:assert/strict'
import { mkdtemp, rm } from 'node:fs/promises'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import { type Browser, chromium } from 'playwright-core'
import { createTestApp, type TestApp } from './helpers/app.ts'
import { CHROMIUM, CHROMIUM_ARGS, ensureConsoleBuilt, HOST_NETWORK_CHANGED } from './helpers/console-browser.ts'
import { factories } from './helpers/factories.ts'

// Issue 49's overview lists the alerts that fire (issue 46's rules). A rule's state is read from
// Prometheus' rules API and Alertmanager's alerts API: here both are a stand-in on loopback that
// answers what the real engines answer for a firing, notified rule (test/docker-alerting.test.ts
// makes one fire on the real engines).

const WAIT = { timeout: 30_000 }
let t: TestApp
let base: string
let browser: Browser
let engines: Server
let dir: string
/** The rule ids the stand-in engines say fire. */
const firing = new Set<string>()

function startEngines(): Promise<Server> {
  const server = createServer((req, res) => {
    res.setHeader('content-type', 'application/json')
    const activeAt = new Date(Date.now() - 3_600_000).toISOString()
    if (req.url?.startsWith('/api/v1/rules')) {
      const rules = [...firing].map((id) => ({ state: 'firing', labels: { berth_rule_id: id }, alerts: [{ activeAt, state: 'firing' }] }))
      return res.end(JSON.stringify({ status: 'success', data: { groups: [{ rules }] } }))
    }
    if (req.url?.startsWith('/api/v2/alerts')) {
      const alerts = [...firing].map((id) => ({
        labels: { berth_rule_id: id },
        startsAt: activeAt,
        status: { state: 'active' },
        receivers: [{ name: `berth-${id}` }],
      }))
      return res.end(JSON.stringify(alerts))
    }
    // Reloads and readiness: what the engines answer when all is well.
    res.end('{}')
  })
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)))
}

describe("the overview's Needs attention lists the alerts that fire (issues 46 and 49)", () => {
  before(async () => {
    await ensureConsoleBuilt()
    engines = await startEngines()
    dir = await mkdtemp(path.join(os.tmpdir(), 'berth-alerts-'))
    const url = `http://127.0.0.1:${(engines.address() as AddressInfo).port}`
    t = await createTestApp({
      BERTH_PROMETHEUS_URL: url,
      BERTH_ALERTMANAGER_URL: url,
      BERTH_ALERT_RULES_DIR: path.join(dir, 'rules'),
      BERTH_ALERTMANAGER_CONFIG_FILE: path.join(dir, 'alertmanager.yml'),
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

  it('shows a firing rule with its severity and the service it watches, linked to its page; a quiet one is not listed', async () => {
    const make = factories(t.db)
    const { organization, environment, tokens } = await make.environmentWithTokens()
    const container = await make.containerService(environment.id)
    const cluster = await make.cluster(organization.id)
    const post = async (url: string, payload: object) => {
      const res = await t.app.inject({ method: 'POST', url, headers: { authorization: tokens.admin.authorization }, payload })
      assert.equal(res.statusCode, 201, res.body)
      return res.json().id as string
    }
    const receiver = await post('/alert-receivers', {
      organization_id: organization.id,
      name: 'on-call',
      description: '',
      type: 'EMAIL',
      send_resolved: true,
      to: 'oncall@example.com',
      from: 'berth@example.com',
      smarthost: 'smtp.invalid:25',
      auth_password: '',
      require_tls: false,
    })
    const rule = (name: string) =>
      post('/alert-rules', {
        organization_id: organization.id,
        cluster_id: cluster.id,
        name,
        description: '',
        tag: 'memory',
        condition: { kind: 'CUSTOM', promql: `container_memory_working_set_bytes{service_id="${container.id}"} > 50e6` },
        for_duration: 'PT10S',
        severity: 'CRITICAL',
        presentation: {},
        enabled: true,
        alert_receiver_ids: [receiver],
        target: { target_type: 'CONTAINER', target_id: container.id },
      })
    firing.add(await rule('memory above 50 MB'))
    await rule('memory above 900 MB')

    const context = await browser.newContext({ viewport: { width: 1280, height: 860 } })
    await context.addInitScript(
      (value) =>
        (globalThis as unknown as { sessionStorage: { setItem(k: string, v: string): void } }).sessionStorage.setItem('berth.console.token', value),
      tokens.read.token,
    )
    const page = await context.newPage()
    const problems: string[] = []
    page.on('console', (message) => {
      if (message.type() === 'error' && !HOST_NETWORK_CHANGED.test(message.text())) problems.push(message.text())
    })
    page.on('pageerror', (error) => problems.push(error.message))
    await page.goto(`${base}/console/#/organization/${organization.id}`)
    const items = page.locator('.attention [data-source=firing-alerts] li')
    await items.first().waitFor(WAIT)
    assert.equal(await items.count(), 1)
    const text = await items.first().innerText()
    assert.match(text, /memory above 50 MB \(critical\)/)
    assert.match(text, /notified/)
    assert.match((await items.first().locator('a').getAttribute('href')) ?? '', new RegExp(container.id))
    assert.deepEqual(problems, [])
    await context.close()
  })
})
