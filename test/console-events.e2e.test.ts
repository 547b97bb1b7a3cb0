import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { type Browser, chromium, type Page } from 'playwright-core'
import { baseEnv, processScenario } from './helpers/berth-processes.ts'
import { CHROMIUM, CHROMIUM_ARGS, ensureConsoleBuilt, HOST_NETWORK_CHANGED } from './helpers/console-browser.ts'
import { factories } from './helpers/factories.ts'
import { type RunningServer, startServer } from './helpers/process.ts'
import { startWebhookReceiver, type WebhookReceiver } from './helpers/webhook-receiver.ts'

// Issue 45's console pages, in Debian's Chromium against a real `berth serve`: an ADMIN creates a
// webhook on the Webhooks page, which sends it a test delivery whose attempt the page then lists;
// the Activity page shows that change, made from the console, as a diff, and filters by origin.

const WAIT = { timeout: 30_000 }
const scenario = processScenario()
let server: RunningServer
let receiver: WebhookReceiver
let browser: Browser
let page: Page
const problems: string[] = []
const world = {} as { organizationId: string; admin: { token: string; name: string } }

describe("an organization's Webhooks and Activity pages (issue 45)", () => {
  // Inside the suite, so that they run after the scenario's own (its database).
  before(async () => {
    await ensureConsoleBuilt()
    receiver = await startWebhookReceiver()
    server = await scenario.group.add(
      startServer(baseEnv(scenario.database, { BERTH_PROXY: 'off', BERTH_GIT_ALLOW_PRIVATE_URLS: 'true', BERTH_LOG_LEVEL: 'info' })),
    )
    const { organization, tokens } = await factories(scenario.db).organizationWithTokens()
    Object.assign(world, { organizationId: organization.id, admin: tokens.admin })
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS })
    page = await (await browser.newContext({ viewport: { width: 1440, height: 900 } })).newPage()
    page.on('console', (message) => {
      if (message.type() === 'error' && !HOST_NETWORK_CHANGED.test(message.text())) problems.push(message.text())
    })
    page.on('pageerror', (error) => problems.push(error.message))
  })

  after(async () => {
    await browser?.close()
    await receiver?.close()
  })

  it('creates a webhook that gets a test delivery, lists its attempt, and shows the change in the activity, made from the console', async () => {
    await page.goto(`${server.baseUrl}/console/`)
    await page.fill('#token', world.admin.token)
    await page.click('button[type=submit]')
    await page.locator('.organization-page.page-overview').waitFor(WAIT)

    await page.goto(`${server.baseUrl}/console/#/organization/${world.organizationId}/webhooks`)
    const form = page.locator('form.new-webhook')
    await form.waitFor(WAIT)
    await form.getByLabel('Target URL').fill(receiver.url('/console-hook'))
    await form.getByLabel('Secret').fill('console-secret')
    await form.getByRole('button', { name: 'Create and send a test' }).click()
    const [delivered] = await receiver.waitFor('/console-hook', 1)
    assert.equal(delivered!.body.test, true)
    assert.equal(delivered!.headers['qovery-signature'], 'console-secret')

    const webhook = page.locator('[data-testid=webhook]')
    await webhook.waitFor(WAIT)
    // The delivery's attempt is recorded just after the receiver answered: look again until it shows.
    for (let tries = 0; tries < 20 && (await page.locator('[data-testid=attempt]').count()) === 0; tries++) {
      await webhook.getByRole('button', { name: /attempts/i }).click()
      await page.waitForTimeout(250)
    }
    const attempt = page.locator('[data-testid=attempt]').first()
    await attempt.waitFor(WAIT)
    assert.match(await attempt.innerText(), /200/)
    assert.match(await attempt.innerText(), /answer 200/)

    await page.goto(`${server.baseUrl}/console/#/organization/${world.organizationId}/activity`)
    const created = page.locator('[data-testid=event]').filter({ hasText: 'webhook' }).first()
    await created.waitFor(WAIT)
    const text = await created.innerText()
    assert.match(text, /create/i)
    assert.match(text, /console/i, 'made from the console')
    assert.ok(text.includes(world.admin.name))
    assert.ok(text.includes(`${receiver.base}/console-hook`), 'the diff shows the target URL')
    assert.equal(text.includes('console-secret'), false)

    await page.getByLabel('Origin').selectOption('API')
    await page.locator('.activity').getByText('No change matches.').waitFor(WAIT)
    await page.getByLabel('Origin').selectOption('CONSOLE')
    await page.locator('[data-testid=event]').first().waitFor(WAIT)
    assert.deepEqual(problems, [])
  })
})
