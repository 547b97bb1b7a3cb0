import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { type Browser, chromium, type Page } from 'playwright-core'
import { baseEnv, call, processScenario } from './helpers/berth-processes.ts'
import { CHROMIUM, CHROMIUM_ARGS, ensureConsoleBuilt, HOST_NETWORK_CHANGED } from './helpers/console-browser.ts'
import { until } from './helpers/deployments.ts'
import { buildScriptImage, type LoopbackRegistry, removeEnvironments, startRegistry } from './helpers/docker.ts'
import { DOCKER_APP_ENV, fetchText, serviceInstances } from './helpers/docker-world.ts'
import { factories } from './helpers/factories.ts'
import { type RunningServer, startServer } from './helpers/process.ts'

// Issue 38, "Done means": a person operates a container from the console, in Debian's Chromium,
// against a real `berth serve` deploying into this machine's Docker engine: creates it, deploys
// it, sees it become healthy, opens its address, reads its logs, changes its tag in the form (a
// field error first, then someone else's edit refused with 412), rolls back, stops and deletes it.
// Every wait is on something the page shows, with room for a loaded machine.

/** Serves its version on 8080, says a line on stderr, then a numbered line each second. */
const webScript = (version: string) => `#!/bin/sh
mkdir -p /tmp/www
echo "console-web ${version}" > /tmp/www/index.html
trap 'exit 0' TERM
echo "starting ${version} with a warning" >&2
httpd -f -p 8080 -h /tmp/www &
i=0
while true; do i=$((i+1)); echo "hello from ${version} tick-$i"; sleep 1 & wait $!; done
`

/** How long a step that waits for Docker (a pull, a readiness check, a replacement) may take on a loaded machine. */
const DOCKER_WAIT = { timeout: 120_000 }
const WAIT = { timeout: 30_000 }

let registry: LoopbackRegistry | undefined
let server: RunningServer
let browser: Browser
const environments: string[] = []

/** A signed-in tab at `#/<route>`, collecting what the page reports as errors (4xx of fetches aside). */
async function openTab(token: string, route: string, viewport = { width: 1280, height: 800 }) {
  const context = await browser.newContext({ viewport })
  await context.addInitScript(
    (value) =>
      (globalThis as unknown as { sessionStorage: { setItem(k: string, v: string): void } }).sessionStorage.setItem('berth.console.token', value),
    token,
  )
  const page = await context.newPage()
  const problems: string[] = []
  page.on('console', (message) => {
    if (message.type() === 'error' && !/status of (304|400|404|409|412)/.test(message.text()) && !HOST_NETWORK_CHANGED.test(message.text()))
      problems.push(message.text())
  })
  page.on('pageerror', (error) => problems.push(error.message))
  await page.goto(`${server.baseUrl}/console/#/${route}`)
  return { page, context, problems }
}

const state = (page: Page, value: string) => page.locator(`[data-testid=service-state][data-state="${value}"]`)
/** A tab of the page (a service's Overview, Deployments, Logs, Settings…), by its id. */
const tab = (page: Page, id: string) => page.locator(`nav.tabs a[data-tab="${id}"]`)
const logLine = (page: Page, text: string) => page.locator('.service-log-lines li.line', { hasText: text })

describe('operating a container from the console', () => {
  const scenario = processScenario()

  before(async () => {
    await ensureConsoleBuilt()
    registry = await startRegistry()
    for (const version of ['v1', 'v2']) {
      const local = `berth-test/console-web:${version}`
      await buildScriptImage(local, 'serve.sh', webScript(version))
      await registry.push(local, 'console-web', version.slice(1))
    }
    // No front door: its fixed ports would be another test's too (test/front-door.test.ts covers it).
    server = await scenario.group.add(startServer(baseEnv(scenario.database, { ...DOCKER_APP_ENV, BERTH_PROXY: 'off', BERTH_LOG_LEVEL: 'info' })))
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS })
  })

  after(async () => {
    await browser?.close()
    await removeEnvironments(environments).catch(() => undefined)
    await registry?.close()
  })

  it('creates, deploys, watches healthy, opens, reads logs, edits the tag (field error, then a 412), rolls back, stops and deletes it', async () => {
    const make = factories(scenario.db)
    const w = await make.environmentWithTokens()
    environments.push(w.environment.id)
    const created = await call(server.baseUrl, 'POST', `/organization/${w.organization.id}/containerRegistry`, w.tokens.admin.authorization, {
      body: {
        name: 'loopback',
        kind: 'GENERIC_CR',
        url: `http://${registry!.host}`,
        config: { username: registry!.username, password: registry!.password },
      },
    })
    assert.equal(created.status, 201, created.text)

    const { page, context, problems } = await openTab(w.tokens.write.token, `environment/${w.environment.id}`)
    await page.locator('section.services-glance').getByText('No service yet.').waitFor(WAIT)

    // Create (New service, then Container): a field error first (an empty tag), then the container.
    await page.click('[data-action=new-service]')
    await page.click('.kind-choice a[data-kind=container]')
    const form = '.create-form[data-kind=container]'
    await page.fill(`${form} [data-field="/name"]`, 'web')
    await page.fill(`${form} [data-field="/image_name"]`, 'console-web')
    await page.fill(`${form} [data-field="/ports/0/internal_port"]`, '8080')
    await page.click(`${form} [data-action=create]`)
    await page.locator(`${form} [data-error-for="/tag"]`).waitFor(WAIT)
    await page.fill(`${form} [data-field="/tag"]`, '1')
    await page.click(`${form} [data-action=create]`)
    await page.locator('.service-page[data-kind=container][data-tab=overview]').waitFor(WAIT)
    const containerId = (await page.locator('.service-page').getAttribute('data-service-id'))!
    await page.locator('[data-testid=configured-version]', { hasText: 'console-web:1' }).waitFor(WAIT)

    // Deploy, and watch it become healthy (DEPLOYED comes after the readiness check passes).
    await page.click('.service-actions [data-action=deploy]')
    await state(page, 'DEPLOYED').waitFor(DOCKER_WAIT)
    await page.locator('[data-testid=running-version]', { hasText: 'console-web:1' }).waitFor(WAIT)

    // Open its address: a port published on loopback, said to be one (for debugging), opened in a new tab.
    const address = page.locator('a[data-testid=address][href^="http://127.0.0.1:"]')
    await address.waitFor(WAIT)
    assert.equal(
      await page.locator('li[data-address-kind=published-port] a[data-testid=address]').getAttribute('href'),
      await address.getAttribute('href'),
    )
    const [opened] = await Promise.all([context.waitForEvent('page'), address.click()])
    await opened!.waitForLoadState()
    assert.equal((await opened!.locator('body').textContent())?.trim(), 'console-web v1')
    await opened!.close()

    // Its instance, by its container's name.
    const [instance] = await serviceInstances(containerId)
    await page.locator('[data-testid=instances] .instance-name', { hasText: instance!.Names[0]!.replace(/^\//, '') }).waitFor(WAIT)

    // Its logs, live: new ticks keep coming; the stderr line alone under stderr; a search.
    await tab(page, 'logs').click()
    await logLine(page, 'hello from v1 tick-3').waitFor(WAIT)
    await page.selectOption('[data-field=stream]', 'stderr')
    await logLine(page, 'starting v1 with a warning').waitFor(WAIT)
    assert.equal(await logLine(page, 'tick-').count(), 0, 'stderr shows no stdout line')
    await page.selectOption('[data-field=stream]', '')
    await page.selectOption('[data-field=instance]', '0')
    await page.fill('[data-field=search]', 'tick-2')
    await logLine(page, 'hello from v1 tick-2').waitFor(WAIT)
    assert.equal(await page.locator('.service-log-lines li.line').count(), 1, 'the search leaves one line')
    await page.fill('[data-field=search]', '')
    await page.click('[data-action=pause]')
    const frozen = await page.locator('.service-log-lines li.line').count()
    await page.locator('[data-action=resume]', { hasText: /Resume \([1-9]/ }).waitFor(WAIT)
    assert.equal(await page.locator('.service-log-lines li.line').count(), frozen, 'a paused view does not move')
    await page.click('[data-action=resume]')
    await page.locator('.service-log-lines li.line').nth(frozen).waitFor(WAIT)

    // Edit the tag in Settings: an empty one is refused next to its field; someone else's save first is a 412.
    await tab(page, 'settings').click()
    await page.fill('.service-form [data-field="/tag"]', '')
    await page.click('.service-form [data-action=save]')
    await page.locator('.service-form [data-error-for="/tag"]').waitFor(WAIT)
    const other = await openTab(w.tokens.write.token, `container/${containerId}/settings`)
    await other.page.fill('.service-form [data-field="/cpu"]', '300')
    await other.page.click('.service-form [data-action=save]')
    await other.page.locator('.service-form .saved').waitFor(WAIT)
    await other.context.close()
    await page.fill('.service-form [data-field="/tag"]', '2')
    await page.click('.service-form [data-action=save]')
    await page.locator('.service-form .error', { hasText: 'Someone else changed this service' }).waitFor(WAIT)
    await page.click('.service-form [data-action=reload]')
    await until(
      () => page.inputValue('.service-form [data-field="/cpu"]'),
      (cpu) => cpu === '300',
      { what: 'the reload showing their edit', timeoutMs: 30_000, intervalMs: 100 },
    )
    await page.fill('.service-form [data-field="/tag"]', '2')
    await page.click('.service-form [data-action=save]')
    await page.locator('.service-form .saved').waitFor(WAIT)
    await tab(page, 'overview').click()
    await page.click('.service-actions [data-action=deploy]')
    await page.locator('[data-testid=running-version]', { hasText: 'console-web:2' }).waitFor(DOCKER_WAIT)
    await state(page, 'DEPLOYED').waitFor(DOCKER_WAIT)
    await until(
      () => servedBy(containerId),
      (text) => text === 'console-web v2',
      { what: 'v2 served', timeoutMs: 60_000, intervalMs: 500 },
    )

    // The version chooser offers the tags deployed before, newest first.
    assert.deepEqual(await page.locator('#version-choices option').evaluateAll((options) => options.map((o) => o.getAttribute('value'))), ['2', '1'])

    // A dry run of tag 1: recorded apart, its logs say what a deploy would change, and v2 keeps running.
    await page.fill('.service-actions [data-field=version]', '1')
    await page.click('.service-actions [data-action=dry-run]')
    await page.locator('.service-actions .saved', { hasText: 'Dry run: queued.' }).waitFor(WAIT)
    await tab(page, 'deployments').click()
    const dryRun = page.locator('.service-deployments tr[data-dry-run=true][data-status=SUCCESS]')
    await dryRun.waitFor(DOCKER_WAIT)
    await dryRun.locator('[data-action=logs]').click()
    await page.locator('.service-deployments .logs-row li.log-line', { hasText: 'a deploy would run' }).waitFor(WAIT)
    assert.equal(await servedBy(containerId), 'console-web v2', 'the dry run changed nothing running')
    assert.equal(await dryRun.locator('.version').textContent(), 'would deploy console-web:1')
    await tab(page, 'overview').click()
    await page.locator('[data-testid=running-version]', { hasText: 'console-web:2' }).waitFor(WAIT)

    // Roll back to the first deployment: v1 runs again, and the history says so.
    await tab(page, 'deployments').click()
    const first = page.locator('.service-deployments tr[data-dry-run=false][data-status=SUCCESS]', { hasText: 'console-web:1' }).last()
    await first.locator('[data-action=rollback]').click()
    await until(
      () => servedBy(containerId),
      (text) => text === 'console-web v1',
      { what: 'v1 served again', timeoutMs: 120_000, intervalMs: 500 },
    )
    await page.locator('.service-deployments tr[data-rollback=true]', { hasText: 'Rollback to the deploy of' }).first().waitFor(WAIT)
    await tab(page, 'overview').click()
    await page.locator('[data-testid=running-version]', { hasText: 'console-web:1' }).waitFor(DOCKER_WAIT)
    await page.locator('[data-testid=deployment-status]', { hasText: 'runs 1, not the configured 2' }).waitFor(WAIT)

    // The project's list of environments shows each one's health.
    const list = await openTab(w.tokens.read.token, `project/${w.project.id}`)
    await list.page.locator('ul.links li', { hasText: w.environment.name }).locator('.badge[data-state=DEPLOYED]').waitFor(WAIT)
    await list.context.close()

    // Stop it.
    await page.click('.service-actions [data-action=stop]')
    await state(page, 'STOPPED').waitFor(DOCKER_WAIT)
    assert.equal((await serviceInstances(containerId)).length, 0, 'nothing of it runs')

    // Delete it, after typing its name: back on the environment page, which no longer lists it.
    await page.click('.service-actions [data-action=delete]')
    assert.ok(await page.locator('[data-action=confirm-delete]').isDisabled(), 'not without the name')
    await page.fill('[data-field=confirm-name]', 'web')
    await page.click('[data-action=confirm-delete]')
    await page.locator('section.services-glance').waitFor(WAIT)
    await until(
      async () => (await call(server.baseUrl, 'GET', `/container/${containerId}`, w.tokens.read.authorization)).status,
      (status) => status === 404,
      { what: 'the container deleted', timeoutMs: 120_000, intervalMs: 500 },
    )
    await page.reload()
    await page.locator('section.services-glance').getByText('No service yet.').waitFor(WAIT)
    assert.deepEqual(problems, [], 'the page reported errors')
    await context.close()
  })

  it('offers a READ token no action on a service page and a DEPLOY token no delete nor edit, reachable by Tab; a long name fits a narrow window', async () => {
    const make = factories(scenario.db)
    const w = await make.environmentWithTokens()
    const helm = await make.helmService(w.environment.id)
    const reader = await openTab(w.tokens.read.token, `helm/${helm.id}`)
    await reader.page.locator('.service-page[data-kind=helm] [data-testid=service-state]').waitFor(WAIT)
    assert.equal(await reader.page.locator('.service-actions').count(), 0)
    await tab(reader.page, 'deployments').click()
    await reader.page.locator('.service-deployments .empty-state').waitFor(WAIT)
    assert.equal(await reader.page.locator('[data-action=rollback]').count(), 0)
    await tab(reader.page, 'settings').click()
    await reader.page.getByText('Editing the configuration needs the WRITE role.').waitFor(WAIT)
    assert.equal(await reader.page.locator('.service-form').count(), 0)
    await reader.context.close()
    const deployer = await openTab(w.tokens.deploy.token, `helm/${helm.id}`)
    await deployer.page.locator('.service-actions [data-action=deploy]').waitFor(WAIT)
    assert.equal(await deployer.page.locator('.service-actions [data-action=delete]').count(), 0)
    assert.equal(await deployer.page.locator('.service-actions [data-field=version]').getAttribute('placeholder'), 'the configured version')
    // Reachable with the keyboard alone: Tab gets to the Deploy button.
    let focused: string | null = null
    for (let presses = 0; presses < 100 && focused !== 'deploy'; presses++) {
      await deployer.page.keyboard.press('Tab')
      focused = await deployer.page.evaluate('document.activeElement && document.activeElement.getAttribute("data-action")')
    }
    assert.equal(focused, 'deploy', 'Tab reaches Deploy')
    await tab(deployer.page, 'settings').click()
    await deployer.page.getByText('Editing the configuration needs the WRITE role.').waitFor(WAIT)
    assert.equal(await deployer.page.locator('.service-form').count(), 0, 'DEPLOY may not edit it')
    await deployer.context.close()

    // A narrow window and a long name: nothing wider than the window.
    const long = await make.helmService(w.environment.id, { name: `a-helm-service-with-a-very-long-name-${'x'.repeat(60)}` })
    const narrow = await openTab(w.tokens.write.token, `helm/${long.id}`, { width: 400, height: 800 })
    await narrow.page.locator('.service-page [data-testid=service-state]').waitFor(WAIT)
    assert.ok(
      (await narrow.page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')) === true,
      'its overview is no wider than a 400 px window',
    )
    await tab(narrow.page, 'deployments').click()
    await narrow.page.locator('.service-deployments .empty-state, .service-deployments table').first().waitFor(WAIT)
    assert.ok(
      (await narrow.page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')) === true,
      'the page is no wider than a 400 px window',
    )
    await narrow.context.close()
  })
})

/** What the container's one running instance serves on its published port. */
async function servedBy(serviceId: string): Promise<string | undefined> {
  const running = (await serviceInstances(serviceId)).filter((info) => info.State === 'running')
  if (running.length !== 1) return undefined
  const port = running[0]!.Ports.find((p) => p.PrivatePort === 8080 && p.PublicPort)?.PublicPort
  return port ? fetchText(`http://127.0.0.1:${port}/`) : undefined
}
