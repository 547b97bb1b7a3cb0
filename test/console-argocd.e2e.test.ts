import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { type Browser, chromium, type Page } from 'playwright-core'
import { type ArgoCdStandIn, startArgoCdStandIn } from './helpers/argocd-standin.ts'
import { baseEnv, processScenario } from './helpers/berth-processes.ts'
import { CHROMIUM, CHROMIUM_ARGS, ensureConsoleBuilt, HOST_NETWORK_CHANGED } from './helpers/console-browser.ts'
import { until } from './helpers/deployments.ts'
import { factories } from './helpers/factories.ts'
import { type RunningServer, startServer } from './helpers/process.ts'

// Issue 47's console parts, in Debian's Chromium against a real `berth serve` and the stand-in Argo
// CD: a GITOPS_APP's "Argo CD" tab shows Argo CD's sync, health, revision and managed resources, and
// the organization's Argo CD page shows the connected instance and its mapped destination.

const WAIT = { timeout: 30_000 }
const TOKEN = 'argocd-token-of-the-console-test'
const DESTINATION = 'https://kubernetes.default.svc'
const scenario = processScenario()
let server: RunningServer
let argo: ArgoCdStandIn
let browser: Browser
const problems: string[] = []
const world = {} as { organizationId: string; serviceId: string; adminToken: string; readToken: string }

async function call(authorization: string, method: string, path: string, body?: object) {
  const res = await fetch(`${server.baseUrl}${path}`, {
    method,
    headers: { authorization, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  })
  return { status: res.status, body: (await res.json().catch(() => undefined)) as Record<string, unknown> }
}

async function signedIn(token: string, route: string): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } })
  await context.addInitScript(
    (value) =>
      (globalThis as unknown as { sessionStorage: { setItem(k: string, v: string): void } }).sessionStorage.setItem('berth.console.token', value),
    token,
  )
  const page = await context.newPage()
  page.on('console', (message) => {
    if (message.type() === 'error' && !HOST_NETWORK_CHANGED.test(message.text())) problems.push(message.text())
  })
  page.on('pageerror', (error) => problems.push(error.message))
  await page.goto(`${server.baseUrl}/console/#/${route}`)
  return page
}

describe("a GITOPS_APP's Argo CD tab and the organization's Argo CD page (issue 47)", () => {
  // Inside the suite, so that they run after the scenario's own (its database).
  before(async () => {
    await ensureConsoleBuilt()
    argo = await startArgoCdStandIn()
    argo.tokens.set(TOKEN, 'admin')
    argo.addApp('storefront', 'shop', { revision: 'c0ffee0123456789' })
    server = await scenario.group.add(
      startServer(
        baseEnv(scenario.database, {
          BERTH_PROXY: 'off',
          BERTH_ALLOW_PRIVATE_URLS: 'true',
          BERTH_ARGOCD_POLL_INTERVAL_MS: '300',
          BERTH_LOG_LEVEL: 'info',
        }),
      ),
    )
    const make = factories(scenario.db)
    const { organization, tokens } = await make.organizationWithTokens()
    const agent = await make.cluster(organization.id, { kubernetes: 'SELF_MANAGED', executor: 'KUBERNETES' })
    const target = await make.cluster(organization.id, { kubernetes: 'SELF_MANAGED', executor: 'KUBERNETES' })
    const admin = tokens.admin.authorization
    const saved = await call(admin, 'POST', `/cluster/${agent.id}/argoCdConfig`, { argocd_url: argo.url, argocd_token: TOKEN })
    assert.equal(saved.status, 200, JSON.stringify(saved.body))
    const mapping = { agent_cluster_id: agent.id, argocd_cluster_url: DESTINATION, cluster_id: target.id }
    assert.equal((await call(admin, 'POST', `/organization/${organization.id}/argoCdDestinationClusterMapping`, mapping)).status, 200)
    const rows = await until(
      async () => ((await call(admin, 'GET', `/cluster/${agent.id}/argocdApps/associatedServices`)).body?.results ?? []) as { service_id: string }[],
      (results) => results.length === 1,
      { what: 'the application as a service', timeoutMs: 30_000 },
    )
    Object.assign(world, {
      organizationId: organization.id,
      serviceId: rows[0]!.service_id,
      adminToken: tokens.admin.token,
      readToken: tokens.read.token,
    })
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS })
  })

  after(async () => {
    await browser?.close()
    await argo?.close()
  })

  it("shows Argo CD's sync, health, revision and managed resources on the application's Argo CD tab, to READ", async () => {
    const page = await signedIn(world.readToken, `gitopsapp/${world.serviceId}/argocd`)
    const tab = page.locator('section.argocd')
    await tab.locator('dd', { hasText: 'Synced' }).waitFor(WAIT)
    const facts = await tab.locator('dl.facts').innerText()
    assert.match(facts, /Sync\s+Synced/)
    assert.match(facts, /Health\s+Healthy/)
    assert.match(facts, /c0ffee0123456789/)
    assert.match(facts, /Namespace\s+shop/)
    const resource = tab.locator('table tbody tr', { hasText: 'Deployment' }).first()
    await resource.waitFor(WAIT)
    assert.match(await resource.innerText(), /storefront/)
    assert.deepEqual(problems, [])
  })

  it("lists the connected Argo CD with its status and mapped destination on the organization's Argo CD page", async () => {
    const page = await signedIn(world.adminToken, `organization/${world.organizationId}/argocd`)
    const instance = page.locator('section.panel[aria-label^="Argo CD of"]')
    await instance.waitFor(WAIT)
    const text = await instance.innerText()
    assert.ok(text.includes(argo.url), text)
    assert.ok(text.includes(DESTINATION), text)
    assert.deepEqual(problems, [])
  })
})
