import assert from 'node:assert/strict'
import path from 'node:path'
import { after, afterEach, before, describe, it } from 'node:test'
import { type Browser, type BrowserContext, chromium, type Page, type Request, type Response } from 'playwright-core'
import { createConfiguredRunner } from '#src/cli/deployment-engine.ts'
import { withBackupTables } from '#src/modules/backups/backups.tables.ts'
import type { DeploymentRunner } from '#src/modules/deployments/runner/deployment-runner.ts'
import { createDeploymentRunsRepository } from '#src/modules/deployments/runner/deployment-runs.repository.ts'
import { createTestApp, type TestApp } from './helpers/app.ts'
import { CHROMIUM, CHROMIUM_ARGS, ensureConsoleBuilt, HOST_NETWORK_CHANGED } from './helpers/console-browser.ts'
import { type DeploymentCalls, deploymentCalls, type EnvironmentEntry, until } from './helpers/deployments.ts'
import { factories } from './helpers/factories.ts'
import { createIsolatedDatabase, type IsolatedDatabase } from './helpers/isolated-database.ts'
import { repoRoot } from './helpers/process.ts'

// The web console at /console, driven in Debian's Chromium against the real app with a deployment
// runner. Chromium must be installed (`apt-get install chromium`): without it these tests fail.
// CONSOLE_SCREENSHOT=<file.png> also writes a screenshot of a history with a failed deployment.

const WAIT = { timeout: 20_000 }
/** The simulated step of the runner that runs a deployment whose logs are followed: slow enough to see them come. */
const SLOW_STEP_MS = 2_000
const FAIL = [['berth.simulate.fail', 'true']]

let database: IsolatedDatabase
let t: TestApp
let base: string
let browser: Browser
let runner: DeploymentRunner | undefined
let make: ReturnType<typeof factories>
let calls: DeploymentCalls
const contexts: BrowserContext[] = []

/**
 * The app's deployment runner, in this process; stopping it leaves queued deployments queued.
 * `simulatedStepMs` makes each simulated service take that long instead of the app's 250 ms.
 */
function startRunner(simulatedStepMs = t.config.runner.simulatedStepMs) {
  runner = createConfiguredRunner(createDeploymentRunsRepository(t.db), { ...t.config.runner, simulatedStepMs }, { info() {}, warn() {} })
  runner.start()
}

/**
 * Runs `during` with the runner stopped, so that what it queues stays queued however slow the
 * machine; `resume` starts the runner again, as does the end of `during`.
 */
async function withRunnerStopped(during: (resume: () => void) => Promise<void>) {
  await runner!.stop()
  let stopped = true
  const resume = () => {
    if (stopped) startRunner()
    stopped = false
  }
  try {
    await during(resume)
  } finally {
    resume()
  }
}

before(async () => {
  await ensureConsoleBuilt()
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS })
  // A runner takes every queued deployment of its database: this file's get a database of their own.
  database = await createIsolatedDatabase()
  t = await createTestApp({
    DATABASE_URL: database.url,
    BERTH_SIMULATED_STEP_MS: '250',
    BERTH_RUNNER_POLL_MS: '50',
    BERTH_RUNNER_LEASE_MS: '2000',
  })
  base = await t.listen()
  startRunner()
  make = factories(t.db)
  calls = deploymentCalls(t.app)
})

/** Each test's tabs are closed after it: open ones would go on polling. */
async function closeContexts() {
  for (const context of contexts.splice(0)) await context.close().catch(() => {})
}

afterEach(closeContexts)

after(async () => {
  await closeContexts()
  await browser?.close()
  await runner?.stop()
  await t?.close()
  await database?.drop()
})

interface Session {
  page: Page
  /** Console errors and uncaught exceptions, among them any content security policy violation. */
  problems: string[]
}

/**
 * A new tab with its own session storage, at `#/<route>`. Without `token` it shows the sign-in
 * form; with one it is signed in, the token put where the sign-in form keeps it (the first tests
 * sign in through the form).
 */
async function openTab({ token, route }: { token?: string; route?: string } = {}): Promise<Session> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 } })
  contexts.push(context)
  if (token !== undefined) {
    await context.addInitScript(
      (value) =>
        (globalThis as unknown as { sessionStorage: { setItem(k: string, v: string): void } }).sessionStorage.setItem('berth.console.token', value),
      token,
    )
  }
  const page = await context.newPage()
  const problems: string[] = []
  // Chromium logs every 4xx a fetch receives; the tests that cause them check what the page shows.
  // A 401 is expected only of a token typed into the sign-in form.
  const expected = token === undefined ? /status of (304|400|401|404|409|412)/ : /status of (304|400|404|409|412)/
  page.on('console', (message) => {
    if (message.type() === 'error' && !expected.test(message.text()) && !HOST_NETWORK_CHANGED.test(message.text())) problems.push(message.text())
  })
  page.on('pageerror', (error) => problems.push(error.message))
  await page.goto(`${base}/console/${route === undefined ? '' : `#/${route}`}`)
  if (token !== undefined) await page.locator('header.top').waitFor(WAIT)
  return { page, problems }
}

async function signIn(page: Page, token: string) {
  await page.fill('#token', token)
  await page.click('button[type=submit]')
  await page.locator('header.top').waitFor(WAIT)
}

/** Fails with what the page reported when it logged an error (a CSP violation, a crash). */
function assertNoProblems({ problems }: Session) {
  assert.deepEqual(problems, [], 'the page reported errors')
}

const cards = (page: Page) => page.locator('article.deployment')
const card = (page: Page, executionId: string) => page.locator(`article.deployment[data-execution-id="${executionId}"]`)

/** The execution ids of the cards shown, top to bottom. */
const shownIds = (page: Page) => cards(page).evaluateAll((nodes) => nodes.map((node) => node.getAttribute('data-execution-id') as string))

const executionIds = (entries: EnvironmentEntry[]) => entries.map((entry) => entry.identifier.execution_id)

/** Triggers `count` deploys of the environment at once (the API queues them in turn). */
const triggerMany = (environmentId: string, authorization: string, count: number) =>
  Promise.all(Array.from({ length: count }, () => calls.trigger(`/environment/${environmentId}/deploy`, authorization)))

/** The page's document, typed for the few calls these tests make in it (the tests are compiled without DOM types). */
interface TestDocument {
  querySelectorAll(selector: string): { length: number }
  querySelector(selector: string): { getAttribute(name: string): string | null } | null
}

/** Waits until the history shows at least `count` cards. */
const atLeastCards = (page: Page, count: number) =>
  page.waitForFunction(
    (least) => (globalThis as unknown as { document: TestDocument }).document.querySelectorAll('article.deployment').length >= least,
    count,
    WAIT,
  )

/** Scrolls to the end of the history one wheel at a time, each time waiting for what it loads, until nothing is older. */
async function scrollToEnd(page: Page) {
  const end = page.locator('.history-end')
  while ((await end.getAttribute('data-has-more')) !== 'false') {
    const shown = await cards(page).count()
    await page.mouse.wheel(0, 20_000)
    await page.waitForFunction(
      (before) => {
        const doc = (globalThis as unknown as { document: TestDocument }).document
        return (
          doc.querySelectorAll('article.deployment').length > before || doc.querySelector('.history-end')?.getAttribute('data-has-more') === 'false'
        )
      },
      shown,
      WAIT,
    )
  }
}

/** The history's newest page, as the console polls it. */
function isNewestPoll(request: Request) {
  const url = new URL(request.url())
  return url.pathname.endsWith('/deploymentHistoryV2') && url.searchParams.get('pageSize') === '20' && !url.searchParams.has('startId')
}

/** One entry below the newest page, read alone, as the console polls it while unfinished. */
function isDeepRead(response: Response) {
  const url = new URL(response.url())
  return url.pathname.endsWith('/deploymentHistoryV2') && url.searchParams.get('pageSize') === '1' && url.searchParams.has('startId')
}

/**
 * Makes the page's document say its tab is hidden or shown, as a switch of tabs does, and tells its
 * listeners. A string, not a function: the test's compiler would name the getter with a helper the
 * page does not have.
 */
const setVisibility = (page: Page, state: 'hidden' | 'visible') =>
  page.evaluate(
    `Object.defineProperty(document, 'visibilityState', { configurable: true, get() { return '${state}' } });` +
      ` document.dispatchEvent(new Event('visibilitychange'))`,
  )

/** The tabs of an environment's page and of a service's page, by their id. */
const tab = (page: Page, id: string) => page.locator(`nav.tabs a[data-tab="${id}"]`)

/** A new signed-in tab on one of the environment's tabs (its history unless told), once its role and that tab are loaded. */
async function environmentPage(token: string, environmentId: string, tabId = 'deployments'): Promise<Session> {
  const session = await openTab({ token, route: `environment/${environmentId}/${tabId}` })
  await session.page.locator('section.actions[data-role]').waitFor(WAIT)
  if (tabId === 'deployments') await session.page.locator('.history-end').waitFor(WAIT)
  return session
}

describe('web console', () => {
  it('signs in with a token, walks organization → project → environment, and shows a deploy going from queued to deployed in place', async () => {
    const { organization, project, environment, tokens } = await make.environmentWithTokens()
    const helm = await make.helmService(environment.id)
    const session = await openTab()
    const { page } = session
    await signIn(page, tokens.deploy.token)
    assert.deepEqual(
      await page.evaluate('[sessionStorage.getItem("berth.console.token"), localStorage.length, document.cookie]'),
      [tokens.deploy.token, 0, ''],
      'the token is kept in session storage only',
    )
    const conditional: number[] = []
    page.on('response', (response) => {
      if (response.url().includes('/deploymentHistoryV2') && response.request().headers()['if-none-match']) conditional.push(response.status())
    })

    // The token's one organization is the home: its overview, named in the navigation's switcher.
    await page.locator('.organization-page.page-overview h1', { hasText: organization.name }).waitFor(WAIT)
    assert.equal(await page.locator('#organization-switcher option:checked').textContent(), organization.name)
    await page.locator('nav.side').getByRole('link', { name: project.name, exact: true }).click()
    await page.locator('main').getByRole('link', { name: environment.name, exact: true }).click()
    await page.locator('section.actions[data-role="DEPLOY"]').waitFor(WAIT)
    await page.locator('section.services-glance').getByRole('link', { name: helm.name, exact: true }).waitFor(WAIT)
    assert.equal(
      await page.locator('section.services-glance').getByRole('link', { name: helm.name, exact: true }).count(),
      1,
      'the helm service is listed',
    )
    await tab(page, 'stages').click()
    await page.locator(`li.plan-service[data-service-id="${helm.id}"]`).waitFor(WAIT)
    await tab(page, 'deployments').click()
    await page.getByText('No deployment yet.').waitFor(WAIT)

    // With the runner stopped the deployment stays queued, however slow the machine.
    await withRunnerStopped(async (resume) => {
      await page.click('button[data-action=deploy]')
      await cards(page).first().waitFor(WAIT)
      assert.equal(await cards(page).count(), 1)
      const first = cards(page).first()
      assert.equal(await first.getAttribute('data-status'), 'DEPLOYMENT_QUEUED')
      assert.equal((await first.locator('[data-testid=status]').textContent())?.trim(), 'deployment queued')
      assert.match((await first.locator('.who').textContent()) ?? '', new RegExp(`by API token ${tokens.deploy.name} from API`))
      assert.equal(await first.locator('.trigger').textContent(), 'Deploy')

      const element = (await first.elementHandle())!
      // Every status the element shows from now on, as the page changes its attribute.
      await element.evaluate((node) => {
        const seen = [node.getAttribute('data-status')]
        Object.assign(node, { seen })
        new node.ownerDocument.defaultView.MutationObserver(() => seen.push(node.getAttribute('data-status'))).observe(node, {
          attributes: true,
          attributeFilter: ['data-status'],
        })
      })
      resume()

      await page.waitForFunction((node) => node.getAttribute('data-status') === 'DEPLOYED', element, WAIT)
      const executionId = await element.getAttribute('data-execution-id')
      assert.equal(await element.evaluate((node) => node.isConnected), true, 'the same element is still in the page')
      assert.equal(
        await page.evaluate(([node, id]) => node.ownerDocument.querySelector(`[data-execution-id="${id}"]`) === node, [
          element,
          executionId,
        ] as const),
        true,
        'the deployment was updated in place, not rendered anew',
      )
      const seen = (await element.evaluate((node) => (node as unknown as { seen: string[] }).seen)) as string[]
      assert.equal(seen[0], 'DEPLOYMENT_QUEUED')
      assert.equal(seen.at(-1), 'DEPLOYED')
      assert.ok(
        seen.every((status) => ['DEPLOYMENT_QUEUED', 'DEPLOYING', 'DEPLOYED'].includes(status)),
        seen.join(' → '),
      )
      assert.equal(await cards(page).count(), 1)
      const service = first.locator(`li.service[data-service-id="${helm.id}"]`)
      assert.equal(await service.getAttribute('data-status'), 'DEPLOYED')
      assert.equal(await service.locator('.service-name').textContent(), helm.name)
      assert.equal(await first.locator('li.stage').getAttribute('data-status'), 'DONE')
    })

    // Polls after the change ask with If-None-Match and get 304 while nothing changes.
    await until(
      () => conditional,
      (statuses) => statuses.includes(304),
      { timeoutMs: 20_000, what: 'a 304 to a conditional history poll' },
    )
    await page.getByText('1 deployment shown.', { exact: true }).waitFor(WAIT)
    assertNoProblems(session)
  })

  it('shows the API message of a refused token on the sign-in form, and of a refused action next to the buttons', async () => {
    const { environment, tokens } = await make.environmentWithTokens()
    const session = await openTab()
    const { page } = session
    const bogus = `${tokens.read.token.slice(0, -1)}${tokens.read.token.endsWith('a') ? 'b' : 'a'}`
    await page.fill('#token', bogus)
    await page.click('button[type=submit]')
    const refused = await t.app.inject({ method: 'GET', url: '/organization', headers: { authorization: `Token ${bogus}` } })
    assert.equal(refused.statusCode, 401)
    await page.locator('.sign-in .error').waitFor(WAIT)
    assert.equal(await page.locator('.sign-in .error').textContent(), refused.json().message)

    // Nothing to cancel: the API answers 409 and the console shows its message.
    await signIn(page, tokens.deploy.token)
    await page.goto(`${base}/console/#/environment/${environment.id}`)
    await page.locator('section.actions[data-role="DEPLOY"]').waitFor(WAIT)
    const expected = await t.app.inject({
      method: 'POST',
      url: `/environment/${environment.id}/cancelDeployment`,
      headers: { authorization: tokens.deploy.authorization },
      payload: {},
    })
    assert.equal(expected.statusCode, 409, expected.body)
    await page.click('button[data-action=cancel]')
    const alert = page.locator('section.actions .error')
    await alert.waitFor(WAIT)
    assert.equal(await alert.textContent(), expected.json().message)
    assertNoProblems(session)
  })

  it('pages back through 45 deployments by startId, one page each time the end comes into view, with 3 new ones joined on top: 48, once each, newest first', async () => {
    // No services: each deployment ends as soon as a runner claims it.
    const { environment, tokens } = await make.environmentWithTokens()
    await triggerMany(environment.id, tokens.deploy.authorization, 45)
    const older = executionIds(await calls.entries(environment.id, tokens.read.authorization))
    assert.equal(older.length, 45)

    const session = await environmentPage(tokens.read.token, environment.id)
    const { page } = session
    const startIds: string[] = []
    page.on('request', (request) => {
      const url = new URL(request.url())
      if (url.pathname.endsWith('/deploymentHistoryV2') && url.searchParams.get('pageSize') === '20' && url.searchParams.has('startId')) {
        startIds.push(url.searchParams.get('startId')!)
      }
    })
    await atLeastCards(page, 20)

    // Three more while the list is read: the polled newest page puts them on top of the 20 shown, losing none.
    await triggerMany(environment.id, tokens.deploy.authorization, 3)
    await atLeastCards(page, 23)

    // One wheel brings the end of the list into view once: one older page, not two. Two polls
    // later, a second page asked for because of that one sighting would have been asked for.
    await page.mouse.wheel(0, 20_000)
    await atLeastCards(page, 43)
    for (let polls = 0; polls < 2; polls++) await page.waitForResponse((response) => isNewestPoll(response.request()), WAIT)
    assert.deepEqual(startIds, [older[19]], 'one page for one sighting of the end of the list')
    assert.equal(await cards(page).count(), 43)

    await scrollToEnd(page)
    const expected = executionIds(await calls.entries(environment.id, tokens.read.authorization))
    assert.equal(expected.length, 48)
    const shown = await shownIds(page)
    assert.equal(new Set(shown).size, 48, 'no deployment shown twice')
    assert.deepEqual(shown, expected, 'newest first, as the API lists them')
    const times = await page.locator('article.deployment time').evaluateAll((nodes) => nodes.map((node) => Date.parse(node.getAttribute('datetime'))))
    assert.deepEqual(
      times,
      [...times].sort((a, b) => b - a),
    )
    assert.deepEqual(startIds, [older[19], older[39]], 'two more pages, each after the last entry shown')
    assert.equal(await page.locator('[data-testid=history-count]').textContent(), '48')
    await page.getByText('All 48 deployments shown.').waitFor(WAIT)
    assertNoProblems(session)
  })

  it('joins the deployments made while the tab was hidden, more than a page of them, to the list: none missing, none twice', async () => {
    const { environment, tokens } = await make.environmentWithTokens()
    await triggerMany(environment.id, tokens.deploy.authorization, 2)
    const session = await environmentPage(tokens.read.token, environment.id)
    const { page } = session
    await atLeastCards(page, 2)

    const inFlight = new Set<Request>()
    page.on('request', (request) => isNewestPoll(request) && inFlight.add(request))
    page.on('requestfinished', (request) => inFlight.delete(request))
    page.on('requestfailed', (request) => inFlight.delete(request))
    await setVisibility(page, 'hidden')
    // A poll sent just before hiding could still read some of the new deployments: wait for its
    // answer (after a frame of the page, so that its request has been seen).
    await page.evaluate(
      () =>
        new Promise((resolve) =>
          (globalThis as unknown as { requestAnimationFrame(f: () => void): void }).requestAnimationFrame(() => resolve(null)),
        ),
    )
    await until(
      () => inFlight.size,
      (size) => size === 0,
      { timeoutMs: 20_000, what: 'no newest-page poll under way' },
    )

    await triggerMany(environment.id, tokens.deploy.authorization, 25)
    const expected = executionIds(await calls.entries(environment.id, tokens.read.authorization))
    assert.equal(expected.length, 27)
    assert.equal(await cards(page).count(), 2, 'a hidden tab does not poll')

    await setVisibility(page, 'visible')
    await card(page, expected[0]!).waitFor(WAIT)
    await scrollToEnd(page)
    const shown = await shownIds(page)
    assert.equal(new Set(shown).size, shown.length, 'no deployment shown twice')
    assert.deepEqual(shown, expected, 'every deployment, newest first, as the API lists them')
    assertNoProblems(session)
  })

  it('updates a deployment running below the first page in place, reading it alone with If-None-Match', async () => {
    const { environment, tokens } = await make.environmentWithTokens()
    await withRunnerStopped(async (resume) => {
      await triggerMany(environment.id, tokens.deploy.authorization, 21)
      const oldest = executionIds(await calls.entries(environment.id, tokens.read.authorization)).at(-1)!
      const session = await environmentPage(tokens.read.token, environment.id)
      const { page } = session
      await scrollToEnd(page)
      assert.equal(await cards(page).count(), 21)
      const element = (await card(page, oldest).elementHandle())!
      assert.equal(await element.getAttribute('data-action-status'), 'QUEUED')

      // While it stays queued, each read sends the ETag of the last answer and gets a 304.
      await page.waitForResponse((response) => isDeepRead(response) && response.status() === 304, WAIT)
      resume()
      await page.waitForFunction((node) => node.getAttribute('data-action-status') === 'SUCCESS', element, WAIT)
      const entry = (await calls.entries(environment.id, tokens.read.authorization)).find((e) => e.identifier.execution_id === oldest)!
      assert.equal(await element.getAttribute('data-status'), entry.status)
      assert.equal(await element.evaluate((node) => node.isConnected), true, 'updated in place, not rendered anew')
      assertNoProblems(session)
    })
  })

  it('puts a new deployment above those shown, each card keeping its element and its deployment', async () => {
    const { environment, tokens } = await make.environmentWithTokens()
    await triggerMany(environment.id, tokens.deploy.authorization, 2)
    const before = executionIds(await calls.entries(environment.id, tokens.read.authorization))
    const session = await environmentPage(tokens.read.token, environment.id)
    const { page } = session
    await atLeastCards(page, 2)
    const elements = await Promise.all(before.map(async (id) => (await card(page, id).elementHandle())!))

    await calls.trigger(`/environment/${environment.id}/deploy`, tokens.deploy.authorization)
    const newest = executionIds(await calls.entries(environment.id, tokens.read.authorization))[0]!
    await card(page, newest).waitFor(WAIT)
    assert.deepEqual(await shownIds(page), [newest, ...before])
    for (const [index, element] of elements.entries()) {
      assert.equal(await element.getAttribute('data-execution-id'), before[index], 'the element still shows its deployment')
      assert.equal(
        await page.evaluate(([node, position]) => node.ownerDocument.querySelectorAll('article.deployment')[position] === node, [
          element,
          index + 1,
        ] as const),
        true,
        'the same element, one place down',
      )
    }
    assertNoProblems(session)
  })

  it('shows a failed deployment as failed, its failed stage and service standing out', async () => {
    // Fixed names, for docs/console.md's screenshot: this file's database is its own, so they are free.
    const { organization, tokens: roleTokens } = await make.organizationWithTokens('Acme')
    const environment = await make.environment((await make.project(organization.id, 'shop')).id, { name: 'production' })
    const tokens = { ...roleTokens, deploy: await make.apiToken(organization.id, 'DEPLOY', { name: 'ci-deployer' }) }
    const api = await make.helmService(environment.id, { name: 'api' })
    const web = await make.helmService(environment.id, { name: 'web' })
    await calls.trigger(`/environment/${environment.id}/deploy`, tokens.deploy.authorization)
    await calls.trigger(`/environment/${environment.id}/redeploy`, tokens.deploy.authorization)
    await calls.waitUntilIdle(environment.id, tokens.read.authorization)
    const worker = await make.helmService(environment.id, { name: 'worker', values_override: { set: FAIL } })
    await calls.trigger(`/environment/${environment.id}/deploy`, tokens.deploy.authorization)
    await calls.waitUntilIdle(environment.id, tokens.read.authorization)
    await calls.trigger(`/helm/${api.id}/deploy`, tokens.deploy.authorization)
    const [, failed] = await calls.waitUntilIdle(environment.id, tokens.read.authorization)
    assert.equal(failed!.status, 'DEPLOYMENT_ERROR')

    const session = await environmentPage(tokens.admin.token, environment.id)
    const { page } = session
    await page.getByText('All 4 deployments shown.').waitFor(WAIT)
    assert.deepEqual(await cards(page).evaluateAll((nodes) => nodes.map((node) => node.getAttribute('data-status'))), [
      'DEPLOYED',
      'DEPLOYMENT_ERROR',
      'RESTARTED',
      'DEPLOYED',
    ])

    const entry = card(page, failed!.identifier.execution_id)
    assert.match((await entry.getAttribute('class')) ?? '', /\bfailed\b/)
    assert.match((await entry.getAttribute('class')) ?? '', /\btone-error\b/)
    assert.equal((await entry.locator('[data-testid=status]').textContent())?.trim(), 'deployment error')
    const stage = entry.locator('li.stage')
    assert.equal(await stage.getAttribute('data-status'), 'ERROR')
    assert.match((await stage.getAttribute('class')) ?? '', /\bfailed\b/)
    const failing = entry.locator(`li.service[data-service-id="${worker.id}"]`)
    const fine = entry.locator(`li.service[data-service-id="${web.id}"]`)
    assert.equal(await failing.getAttribute('data-status'), 'DEPLOYMENT_ERROR')
    assert.match((await failing.getAttribute('class')) ?? '', /\bfailed\b/)
    assert.match((await failing.locator('.message').textContent()) ?? '', /simulated deploy failure/)
    assert.equal(await fine.getAttribute('data-status'), 'DEPLOYED')
    assert.doesNotMatch((await fine.getAttribute('class')) ?? '', /\bfailed\b/)
    const background = (locator: typeof fine) =>
      locator.evaluate((node) => node.ownerDocument.defaultView.getComputedStyle(node).backgroundColor as string)
    assert.notEqual(await background(failing), await background(fine), 'the failed service is coloured apart')
    const healthy = card(page, (await cards(page).first().getAttribute('data-execution-id'))!)
    assert.doesNotMatch((await healthy.getAttribute('class')) ?? '', /\bfailed\b/)

    // Its logs name the failure on a line of its own, which stands out from the others.
    await entry.locator('button[data-action=logs]').click()
    await entry.locator('section.logs[data-state=loaded]').waitFor(WAIT)
    const failure = entry.locator('li.log-line.log-error')
    assert.equal(await failure.count(), 2, 'the service failing, then the deployment')
    assert.equal(await failure.first().getAttribute('data-level'), 'ERROR')
    assert.equal(await failure.first().locator('.log-source').textContent(), 'worker')
    assert.match((await failure.first().locator('.log-text').textContent()) ?? '', /^worker: simulated deploy failure/)
    const plain = entry.locator('li.log-line:not(.log-error)').first()
    assert.notEqual(await background(failure.first()), await background(plain), 'the error lines are coloured apart')

    if (process.env.CONSOLE_SCREENSHOT) {
      await page.evaluate(() => (globalThis as unknown as { scrollTo(x: number, y: number): void }).scrollTo(0, 0))
      await page.screenshot({ path: path.resolve(repoRoot, process.env.CONSOLE_SCREENSHOT), fullPage: true })
    }
    assertNoProblems(session)
  })

  it("lists the environment's previews with their pull request, linked at the provider, and the preview's page", async () => {
    const { environment, tokens } = await make.environmentWithTokens({ autoPreview: true })
    const preview = await make.pullRequestPreview(environment.id, 42, 'A longer checkout')
    const reader = await environmentPage(tokens.read.token, environment.id, 'previews')
    const previews = reader.page.locator('section.previews')
    const pullRequest = previews.getByTestId('pull-request')
    await pullRequest.waitFor(WAIT)
    assert.equal(await pullRequest.textContent(), '#42 A longer checkout')
    assert.equal(await pullRequest.getAttribute('href'), 'https://github.com/acme/site/pull/42')
    assert.match((await previews.locator('li').textContent()) ?? '', /from feature at c0ffee1 by octocat/)
    assert.equal(await previews.getByRole('link', { name: preview.name }).getAttribute('href'), `#/environment/${preview.id}`)
    assertNoProblems(reader)
  })

  it("lists a database whose newest backup failed under the overview's Needs attention, with the store's words, linked to its Backups tab", async () => {
    const { organization, environment, tokens } = await make.environmentWithTokens()
    const database = await make.database(environment.id)
    // A backup that ended ERROR, as the backup worker records one (test/docker-database-backups.test.ts makes real ones).
    await withBackupTables(t.db)
      .insertInto('databaseBackups')
      .values({
        organizationId: organization.id,
        serviceId: database.id,
        destinationId: null,
        engine: 'POSTGRESQL',
        name: 'nightly',
        message: '',
        origin: 'SCHEDULED',
        status: 'ERROR',
        error: 'AccessDenied: the store refused the key',
        objectKey: 'nightly.pg.gz',
        sizeBytes: null,
        sha256: null,
        createdBy: 'schedule',
        leaseOwner: null,
        leaseExpiresAt: null,
        startedAt: new Date(),
        endedAt: new Date(),
      })
      .execute()
    const { page, problems } = await openTab({ token: tokens.read.token, route: `organization/${organization.id}` })
    const item = page.locator('.attention [data-source=failing-backups] li', { hasText: 'backup nightly failed: AccessDenied' })
    await item.waitFor(WAIT)
    assert.match((await item.locator('a').first().getAttribute('href')) ?? '', new RegExp(`${database.id}.*backups`))
    assert.deepEqual(problems, [])
  })

  it("reaches an IAC service's page from the environment: its configuration, its actions and the resources of its last apply; its history card links to it", async () => {
    const { environment, tokens } = await make.environmentWithTokens()
    const created = await t.app.inject({
      method: 'POST',
      url: `/environment/${environment.id}/terraform`,
      headers: { authorization: tokens.write.authorization },
      payload: {
        name: 'network',
        description: '',
        auto_deploy_config: { auto_deploy: false, terraform_action: 'DEFAULT' },
        terraform_files_source: { git_repository: { url: 'https://github.com/acme/infra', branch: 'main', root_path: '/net' } },
        terraform_variables_source: { tf_var_file_paths: [], tf_vars: [{ key: 'region', value: 'eu-west-3', secret: false }] },
        backend: { kubernetes: {} },
        engine: 'OPEN_TOFU',
        provider_version: { explicit_version: '1.9.4', read_from_terraform_block: false },
        job_resources: { cpu_milli: 500, ram_mib: 512, gpu: 0, storage_gib: 1 },
      },
    })
    assert.equal(created.statusCode, 201, created.body)
    const deployer = await environmentPage(tokens.deploy.token, environment.id, 'services')
    await deployer.page.locator('section.services-glance').getByRole('link', { name: 'network' }).click()
    const page = deployer.page.locator(`.service-page[data-kind=terraform][data-service-id="${created.json().id}"]`)
    await page.waitFor(WAIT)
    await page.getByText('OpenTofu 1.9.4').waitFor(WAIT)
    assert.equal(await page.locator('.service-actions [data-action=deploy]').count(), 1, 'DEPLOY may deploy it')
    assert.equal(await page.locator('.service-actions [data-action=restart]').count(), 0, 'an IAC service has no restart')
    await tab(deployer.page, 'resources').click()
    await page.locator('section.terraform-resources').getByText('No resource applied yet.').waitFor(WAIT)

    // Deployed, it is a service of the environment's history whose card links to its page.
    const id = created.json().id as string
    await calls.trigger(`/terraform/${id}/deploy`, tokens.deploy.authorization)
    await calls.waitUntilIdle(environment.id, tokens.read.authorization)
    await deployer.page.goto(`${base}/console/#/environment/${environment.id}/deployments`)
    const named = deployer.page.locator(`article.deployment li.service[data-service-id="${id}"] a.service-name`)
    await named.waitFor(WAIT)
    assert.equal(await named.getAttribute('href'), `#/terraform/${id}`)
    assertNoProblems(deployer)
  })

  it('shows the deploy, redeploy, stop and cancel buttons to DEPLOY and above only', async () => {
    const { environment, tokens } = await make.environmentWithTokens()
    const buttons = (page: Page) => page.getByRole('button', { name: /^(Deploy|Dry run|Redeploy|Stop|Cancel)$/ })

    const reader = await environmentPage(tokens.read.token, environment.id)
    await reader.page.locator('section.actions[data-role="READ"]').waitFor(WAIT)
    assert.equal(await buttons(reader.page).count(), 0, 'a READ token sees no trigger')
    assert.equal(await reader.page.locator('[data-action=deploy], [data-action=redeploy], [data-action=stop], [data-action=cancel]').count(), 0)

    const deployer = await environmentPage(tokens.deploy.token, environment.id)
    await deployer.page.locator('section.actions[data-role="DEPLOY"]').waitFor(WAIT)
    assert.deepEqual(await buttons(deployer.page).allTextContents(), ['Deploy', 'Dry run', 'Redeploy', 'Stop', 'Cancel'])
    assertNoProblems(deployer)
    assertNoProblems(reader)
  })

  it('rolls the environment back to a deployment that succeeded from its card ("Roll back to this"), offered to DEPLOY and above only', async () => {
    const { environment, tokens } = await make.environmentWithTokens()
    await make.helmService(environment.id, { name: 'api' })
    await calls.trigger(`/environment/${environment.id}/deploy`, tokens.deploy.authorization)
    await calls.waitUntilIdle(environment.id, tokens.read.authorization)
    await calls.trigger(`/environment/${environment.id}/deploy`, tokens.deploy.authorization)
    const [second, first] = await calls.waitUntilIdle(environment.id, tokens.read.authorization)
    const firstId = first!.identifier.execution_id

    const reader = await environmentPage(tokens.read.token, environment.id)
    await card(reader.page, firstId).waitFor(WAIT)
    assert.equal(await reader.page.locator('[data-action=rollback]').count(), 0, 'READ is offered no rollback')

    const session = await environmentPage(tokens.deploy.token, environment.id)
    const { page } = session
    await card(page, firstId).locator('[data-action=rollback]').click()
    const restored = await until(
      () => calls.entries(environment.id, tokens.read.authorization),
      (list) => list.length === 3 && list[0]!.status === 'DEPLOYED',
      { what: 'the rollback deployed', timeoutMs: 30_000 },
    )
    const rollbackId = restored[0]!.identifier.execution_id
    assert.notEqual(rollbackId, second!.identifier.execution_id)
    assert.equal(restored[0]!.trigger_action, 'DEPLOY')
    assert.equal(
      (restored[0]!.stages.flatMap((stage) => stage.services)[0]!.details as { restores_execution_id?: string }).restores_execution_id,
      firstId,
      'the history says which execution it restores',
    )
    await page.locator(`article.deployment[data-execution-id="${rollbackId}"][data-status=DEPLOYED]`).waitFor(WAIT)
    assertNoProblems(session)
    assertNoProblems(reader)
  })

  it('lets a WRITE token edit a helm service values override, with the API field errors next to the fields; READ only looks', async () => {
    const { environment, tokens } = await make.environmentWithTokens()
    const helm = await make.helmService(environment.id, {
      arguments: ['--wait'],
      values_override: { set: [['replicaCount', '1']] },
      ports: [{ internal_port: 8080, service_name: 'web' }],
    })
    const read = async () =>
      (await t.app.inject({ method: 'GET', url: `/helm/${helm.id}`, headers: { authorization: tokens.read.authorization } })).json()
    const before = await read()

    const writer = await environmentPage(tokens.write.token, environment.id, 'services')
    const { page } = writer
    await page.locator('section.services-glance').getByRole('link', { name: helm.name, exact: true }).click()
    await page.locator('.configuration [data-fact=Chart]').waitFor(WAIT)
    assert.equal(await page.locator('.configuration [data-fact=Chart]').textContent(), `app 1.0.0 from ${before.source.repository.repository.name}`)
    await tab(page, 'values').click()
    await page.locator('form.values[data-editable="true"]').waitFor(WAIT)

    // An invalid edit: the API's messages appear next to the fields they name, and nothing is saved.
    await page.click('[data-action=add-set]')
    await page.click('[data-action=add-set_json]')
    await page.fill('[data-field="/values_override/set_json/0/0"]', 'resources')
    await page.fill('[data-field="/values_override/set_json/0/1"]', '{not json')
    await page.click('[data-action=save]')
    const jsonError = page.locator('[data-field="/values_override/set_json/0/1"] + .field-error')
    await jsonError.waitFor(WAIT)
    assert.equal(await jsonError.textContent(), 'must be valid JSON')
    assert.equal(await page.locator('[data-field="/values_override/set/1/0"] + .field-error').textContent(), 'the key must not be empty')
    assert.equal(await page.locator('[data-field="/values_override/set_json/0/1"]').getAttribute('aria-invalid'), 'true')
    assert.deepEqual((await read()).values_override, before.values_override)

    // A valid edit is saved, and only the values override changes.
    await page.locator('fieldset[data-group=set] .row').nth(1).locator('[data-action=remove]').click()
    await page.fill('[data-field="/values_override/set/0/1"]', '3')
    await page.fill('[data-field="/values_override/set_json/0/1"]', '{"cpu":"500m"}')
    await page.click('[data-action=add-raw]')
    await page.fill('[data-field="/values_override/file/raw/values/0/content"]', 'image:\n  tag: v2\n')
    await page.click('[data-action=save]')
    await page.locator('.saved').waitFor(WAIT)
    assert.equal(await page.locator('.field-error').count(), 0)
    const after = await read()
    assert.deepEqual(after.values_override, {
      set: [['replicaCount', '3']],
      set_string: [],
      set_json: [['resources', '{"cpu":"500m"}']],
      file: { raw: { values: [{ name: 'values.yaml', content: 'image:\n  tag: v2\n' }] } },
    })
    const unchanged = (helmResponse: Record<string, unknown>) => ({ ...helmResponse, values_override: null, updated_at: null })
    assert.deepEqual(unchanged(after), unchanged(before), 'everything else is kept')

    // READ sees the configuration and the values, and nothing to edit them with.
    const reader = await openTab({ token: tokens.read.token, route: `helm/${helm.id}/values` })
    await reader.page.locator('form.values[data-editable="false"]').waitFor(WAIT)
    assert.equal(await reader.page.locator('form.values input, form.values textarea, form.values button').count(), 0)
    assert.equal(await reader.page.locator('[data-field="/values_override/set/0/1"]').textContent(), '3')

    // Someone else saves meanwhile: this page's save is refused (412, If-Match), and reloading is offered.
    const reload = page.locator('[data-action=reload]')
    assert.equal(await reload.count(), 0, 'no reload offered after field errors or a save')
    const other = await openTab({ token: tokens.write.token, route: `helm/${helm.id}/values` })
    await other.page.locator('form.values[data-editable="true"]').waitFor(WAIT)
    await other.page.fill('[data-field="/values_override/set/0/1"]', '4')
    await other.page.click('[data-action=save]')
    await other.page.locator('.saved').waitFor(WAIT)
    await page.fill('[data-field="/values_override/set/0/1"]', '5')
    await page.click('[data-action=save]')
    await reload.waitFor(WAIT)
    assert.match((await page.locator('form.values .error').textContent()) ?? '', /changed since you read it/)
    await reload.click()
    await until(
      () => page.inputValue('[data-field="/values_override/set/0/1"]'),
      (value) => value === '4',
      { timeoutMs: 20_000, what: 'the other save shown after reloading' },
    )
    assert.equal(await reload.count(), 0)
    assert.deepEqual((await read()).values_override.set, [['replicaCount', '4']], 'the other save was kept')

    // Any other refusal offers no reload: here the service is gone.
    const deleted = await t.app.inject({ method: 'DELETE', url: `/helm/${helm.id}`, headers: { authorization: tokens.admin.authorization } })
    assert.ok(deleted.statusCode < 300, deleted.body)
    await page.click('[data-action=save]')
    await page.locator('form.values .error').waitFor(WAIT)
    assert.equal(await reload.count(), 0, 'a 404 offers no reload')
    assertNoProblems(writer)
    assertNoProblems(reader)
    assertNoProblems(other)
  })

  it('shows the deployment stages in order with their services; a WRITE token moves a service to another stage, READ and DEPLOY only look', async () => {
    const { environment, tokens } = await make.environmentWithTokens()
    const api = await make.helmService(environment.id, { name: 'api' })
    const web = await make.helmService(environment.id, { name: 'web' })
    const stageOf = async (serviceId: string) => {
      const res = await calls.inject('GET', `/service/${serviceId}/deploymentStage`, tokens.read.authorization)
      assert.equal(res.statusCode, 200, res.body)
      return res.json() as { id: string; name: string }
    }
    const first = await stageOf(api.id)
    const created = await calls.inject('POST', `/environment/${environment.id}/deploymentStage`, tokens.write.authorization, {
      name: 'backend',
      description: 'deploys after the charts',
    })
    assert.equal(created.statusCode, 200, created.body)
    const backend = created.json() as { id: string }

    const stagesShown = (page: Page) =>
      page.locator('li.plan-stage').evaluateAll((nodes) =>
        nodes.map((node) => ({
          name: node.getAttribute('data-stage-name'),
          services: [...node.querySelectorAll('li.plan-service')].map((service) => service.querySelector('.service-name')?.textContent),
        })),
      )
    const inStage = (page: Page, stageId: string, serviceId: string) =>
      page.locator(`li.plan-stage[data-stage-id="${stageId}"] li.plan-service[data-service-id="${serviceId}"]`)

    const writer = await environmentPage(tokens.write.token, environment.id, 'stages')
    const { page } = writer
    await page.locator('section.deployment-stages[data-editable="true"] li.plan-stage').first().waitFor(WAIT)
    assert.deepEqual(await stagesShown(page), [
      { name: first.name, services: ['api', 'web'] },
      { name: 'backend', services: [] },
    ])
    assert.equal(await inStage(page, first.id, api.id).locator('.chip').textContent(), 'Helm service')
    assert.equal(await page.locator('select[data-action=move-stage]').count(), 2, 'one stage select per service')

    const moves: string[] = []
    page.on('request', (request) => request.method() === 'PUT' && moves.push(new URL(request.url()).pathname))
    await inStage(page, first.id, api.id).locator('select[data-action=move-stage]').selectOption(backend.id)
    await inStage(page, backend.id, api.id).waitFor(WAIT)
    assert.deepEqual(moves, [`/deploymentStage/${backend.id}/service/${api.id}`])
    assert.deepEqual(await stagesShown(page), [
      { name: first.name, services: ['web'] },
      { name: 'backend', services: ['api'] },
    ])
    assert.equal(await inStage(page, backend.id, api.id).locator('select').inputValue(), backend.id)
    assert.equal((await stageOf(api.id)).id, backend.id, 'the server has the service in its new stage')
    assert.equal((await stageOf(web.id)).id, first.id, 'and the other where it was')

    // READ and DEPLOY see the stages as the server has them, with nothing to move a service with.
    for (const token of [tokens.read.token, tokens.deploy.token]) {
      const looker = await environmentPage(token, environment.id, 'stages')
      await looker.page.locator('section.deployment-stages[data-editable="false"] li.plan-stage').first().waitFor(WAIT)
      assert.deepEqual(await stagesShown(looker.page), [
        { name: first.name, services: ['web'] },
        { name: 'backend', services: ['api'] },
      ])
      assert.equal(await looker.page.locator('section.deployment-stages select, section.deployment-stages button').count(), 0)
      await looker.page.getByText('Moving a service to another stage needs the WRITE role.').waitFor(WAIT)
      assertNoProblems(looker)
    }
    assertNoProblems(writer)
  })

  it("opens a finished deployment's logs from its card: the simulator's lines, oldest first, read once", async () => {
    const { environment, tokens } = await make.environmentWithTokens()
    const helm = await make.helmService(environment.id, { name: 'api', arguments: ['--wait'] })
    await calls.trigger(`/environment/${environment.id}/deploy`, tokens.deploy.authorization)
    const [entry] = await calls.waitUntilIdle(environment.id, tokens.read.authorization)
    const executionId = entry!.identifier.execution_id
    const logs = await calls.inject('GET', `/environment/${environment.id}/logs?version=${executionId}`, tokens.read.authorization)
    assert.equal(logs.statusCode, 200, logs.body)
    const lines = logs.json() as { id: string; message: { safe_message: string } }[]

    const session = await environmentPage(tokens.read.token, environment.id)
    const { page } = session
    const follows: string[] = []
    page.on('request', (request) => request.url().includes('/logs/follow') && follows.push(request.url()))
    const item = card(page, executionId)
    const toggle = item.locator('button[data-action=logs]')
    assert.equal(await toggle.getAttribute('aria-expanded'), 'false')
    await toggle.click()
    const panel = item.locator('section.logs')
    await item.locator('section.logs[data-state=loaded]').waitFor(WAIT)
    assert.equal(await toggle.getAttribute('aria-expanded'), 'true')
    assert.equal(await toggle.textContent(), 'Hide logs')

    const shown = panel.locator('li.log-line')
    assert.deepEqual(
      await shown.evaluateAll((nodes) => nodes.map((node) => node.getAttribute('data-line-id'))),
      lines.map((line) => line.id),
      'every line, in order',
    )
    assert.deepEqual(
      await shown.locator('.log-text').allTextContents(),
      lines.map((line) => line.message.safe_message),
    )
    const install = shown.filter({ hasText: `helm upgrade --install ${helm.name}` })
    assert.equal(await install.count(), 1)
    assert.equal(await install.locator('.log-source').textContent(), 'api')
    assert.equal(await install.locator('.log-step').textContent(), `${entry!.stages[0]!.name} · install`)
    assert.match((await install.locator('time').textContent()) ?? '', /^\d\d:\d\d:\d\d\.\d{3}$/)
    assert.equal(await panel.locator('.log-error').count(), 0)
    assert.equal(await panel.locator('[data-testid=log-count]').textContent(), `${lines.length} lines`)
    assert.deepEqual(follows, [], 'a finished deployment is read, not followed')

    await toggle.click()
    assert.equal(await panel.count(), 0, 'closed again')
    assertNoProblems(session)
  })

  it("follows a running deployment's logs live, line after line to their end, while the history goes on polling", async () => {
    const { environment, tokens } = await make.environmentWithTokens()
    // Three services, each in a stage of its own: the runner writes a service's lines once its step ends, so they come in turns.
    for (const name of ['api', 'web', 'worker']) {
      const helm = await make.helmService(environment.id, { name })
      if (name === 'api') continue
      const stage = await calls.inject('POST', `/environment/${environment.id}/deploymentStage`, tokens.write.authorization, {
        name: `${name} stage`,
      })
      assert.equal(stage.statusCode, 200, stage.body)
      const moved = await calls.inject('PUT', `/deploymentStage/${stage.json().id}/service/${helm.id}`, tokens.write.authorization, {})
      assert.equal(moved.statusCode, 200, moved.body)
    }
    await withRunnerStopped(async () => {
      await calls.trigger(`/environment/${environment.id}/deploy`, tokens.deploy.authorization)
      const [queued] = await calls.entries(environment.id, tokens.read.authorization)
      const executionId = queued!.identifier.execution_id
      const session = await environmentPage(tokens.read.token, environment.id)
      const { page } = session
      const item = card(page, executionId)
      const follows: (string | undefined)[] = []
      page.on('request', (request) => request.url().includes('/logs/follow') && follows.push(request.headers()['last-event-id']))
      let polls = 0
      page.on('request', (request) => {
        if (isNewestPoll(request)) polls++
      })

      // Opened while the deployment is queued: following (the stream is asked for), nothing written yet.
      await item.locator('button[data-action=logs]').click()
      const panel = item.locator('section.logs')
      await item.locator('section.logs[data-state=connecting], section.logs[data-state=live]').waitFor(WAIT)
      await until(
        () => follows.length,
        (count) => count === 1,
        { timeoutMs: 20_000, what: 'the log stream asked for' },
      )
      assert.equal(await panel.locator('li.log-line').count(), 0)
      // A deployment not finished counts its time up (not "0 s").
      const elapsed = item.locator('[data-testid=elapsed]')
      const firstElapsed = await elapsed.textContent()
      await until(
        () => elapsed.textContent(),
        (text) => text !== firstElapsed && /^\d+ (s|min \d+ s)$/.test(text ?? ''),
        { timeoutMs: 20_000, what: 'the elapsed time counting up' },
      )
      // Every change of the panel from now on: how many lines, its state, and the card's action status then.
      await page.evaluate(
        `(() => {
          const panel = document.querySelector('article.deployment[data-execution-id="${executionId}"] section.logs');
          const seen = [];
          window.logsSeen = seen;
          new MutationObserver(() => seen.push({
            count: panel.querySelectorAll('li.log-line').length,
            state: panel.getAttribute('data-state'),
            action: panel.closest('article').getAttribute('data-action-status'),
          })).observe(panel, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-state'] });
        })()`,
      )
      const panelElement = (await panel.elementHandle())!
      const pollsBefore = polls

      // A slow runner: each service takes 2 s, one stage after the other.
      startRunner(SLOW_STEP_MS)
      try {
        await item.locator('section.logs[data-state=ended]').waitFor({ timeout: 30_000 })
        await page.waitForFunction((node) => node.getAttribute('data-status') === 'DEPLOYED', await item.elementHandle(), WAIT)
      } finally {
        await runner!.stop()
      }

      const seen = (await page.evaluate('window.logsSeen')) as { count: number; state: string; action: string }[]
      const whileRunning = new Set(
        seen.filter((s) => s.state === 'live' && ['QUEUED', 'ONGOING'].includes(s.action) && s.count > 0).map((s) => s.count),
      )
      assert.ok(whileRunning.size >= 3, `lines shown in several steps while the deployment ran: ${JSON.stringify(seen)}`)
      const counts = seen.map((s) => s.count)
      assert.deepEqual(
        counts,
        [...counts].sort((a, b) => a - b),
        'lines are only ever added',
      )
      assert.equal(seen.at(-1)!.state, 'ended')

      const logs = await calls.inject('GET', `/environment/${environment.id}/logs?version=${executionId}`, tokens.read.authorization)
      const lines = logs.json() as { id: string; message: { safe_message: string } }[]
      assert.deepEqual(
        await panel.locator('li.log-line').evaluateAll((nodes) => nodes.map((node) => node.getAttribute('data-line-id'))),
        lines.map((line) => line.id),
        'every line once, in order',
      )
      for (const name of ['api', 'web', 'worker']) {
        assert.ok(lines.some((line) => line.message.safe_message.startsWith(`[simulated] helm upgrade --install ${name}`)))
      }
      assert.equal(await panel.locator('li.log-line').last().locator('.log-text').textContent(), 'deploy succeeded')
      assert.equal(await panel.locator('.logs-status').textContent(), 'End of the logs: the deployment is finished.')
      assert.deepEqual(follows, [undefined], 'one stream, from the first line')
      assert.ok(polls - pollsBefore >= 2, `the history polled on while the logs were followed (${polls - pollsBefore} polls)`)
      assert.equal(await panelElement.evaluate((node) => node.isConnected), true, 'the panel stayed open as the history updated its card')
      assertNoProblems(session)
    })
  })

  it('shows the variables an environment and a helm service see, by scope, secrets masked; WRITE adds, edits, overrides, aliases and deletes them, READ only looks', async () => {
    const { environment, project, tokens } = await make.environmentWithTokens()
    const helm = await make.helmService(environment.id, { name: 'api' })
    const write = tokens.write.authorization
    const listed = async (scope: string, parentId: string) => {
      const res = await calls.inject('GET', `/variable?scope=${scope}&parent_id=${parentId}`, tokens.read.authorization)
      assert.equal(res.statusCode, 200, res.body)
      return (
        res.json() as {
          results: { key: string; scope: string; variable_type: string; value: string | null; mount_path: string | null; is_secret: boolean }[]
        }
      ).results
    }
    const region = await calls.inject('POST', '/variable', write, {
      key: 'REGION',
      value: 'eu-west-3',
      is_secret: false,
      variable_scope: 'PROJECT',
      variable_parent_id: project.id,
    })
    assert.equal(region.statusCode, 201, region.body)

    const row = (page: Page, group: string, key: string) =>
      page.locator(`section.variables .variable-group[data-group="${group}"] li.variable[data-key="${key}"]`)
    const shownValue = async (page: Page, group: string, key: string) =>
      (await row(page, group, key).locator('[data-testid=variable-value]').textContent())?.trim()
    const actionsOf = (page: Page, group: string, key: string) =>
      row(page, group, key)
        .locator('.variable-actions button')
        .evaluateAll((nodes) => nodes.map((node) => node.getAttribute('data-action')))
    const controls = 'section.variables button, section.variables input, section.variables textarea, section.variables form'

    const writer = await environmentPage(tokens.write.token, environment.id, 'variables')
    const { page } = writer
    await row(page, 'PROJECT', 'REGION').waitFor(WAIT)
    assert.equal(await page.locator('section.variables').getAttribute('data-editable'), 'true')
    assert.equal(await shownValue(page, 'PROJECT', 'REGION'), 'eu-west-3')
    assert.equal(await row(page, 'PROJECT', 'REGION').locator('[data-testid=variable-type]').textContent(), 'value')
    assert.deepEqual(
      await actionsOf(page, 'PROJECT', 'REGION'),
      ['override-variable', 'alias-variable'],
      'an inherited variable is overridden or aliased here, not edited',
    )
    assert.equal(await shownValue(page, 'BUILT_IN', 'QOVERY_ENVIRONMENT_ID'), environment.id)
    assert.deepEqual(await actionsOf(page, 'BUILT_IN', 'QOVERY_ENVIRONMENT_ID'), ['alias-variable'], 'a built-in is read-only')
    assert.equal(await page.locator('.variable-group[data-group="ENVIRONMENT"] .empty').textContent(), 'None.')

    // A key the API refuses: its message next to the key field, nothing created.
    const add = page.locator('form[data-form=add]')
    const refusedKey = await calls.inject('POST', '/variable', write, {
      key: '1BAD',
      value: 'x',
      is_secret: false,
      variable_scope: 'ENVIRONMENT',
      variable_parent_id: environment.id,
    })
    assert.equal(refusedKey.statusCode, 400, refusedKey.body)
    await add.locator('[data-field="/key"]').fill('1BAD')
    await add.locator('[data-field="/value"]').fill('x')
    await add.locator('[data-action=add-variable]').click()
    await add.locator('[data-error-for="/key"]').waitFor(WAIT)
    assert.equal(
      await add.locator('[data-error-for="/key"]').textContent(),
      (refusedKey.json() as { errors: { path: string; message: string }[] }).errors.find((e) => e.path === '/key')?.message,
    )
    assert.equal(await add.locator('[data-field="/key"]').getAttribute('aria-invalid'), 'true')

    // A variable and a secret.
    await add.locator('[data-field="/key"]').fill('LOG_LEVEL')
    await add.locator('[data-field="/value"]').fill('debug')
    await add.locator('[data-action=add-variable]').click()
    await row(page, 'ENVIRONMENT', 'LOG_LEVEL').waitFor(WAIT)
    assert.equal(await shownValue(page, 'ENVIRONMENT', 'LOG_LEVEL'), 'debug')
    assert.equal(await add.locator('[data-field="/key"]').inputValue(), '', 'the form is emptied once the variable is added')
    assert.equal(await add.locator('.field-error, .error').count(), 0)

    await add.locator('[data-field="/key"]').fill('DB_PASSWORD')
    await add.locator('[data-field="/is_secret"]').check()
    assert.equal(await add.locator('[data-field="/value"]').getAttribute('type'), 'password')
    await add.locator('[data-field="/value"]').fill('hunter2-very-secret')
    await add.locator('[data-action=add-variable]').click()
    await row(page, 'ENVIRONMENT', 'DB_PASSWORD').waitFor(WAIT)
    assert.equal(await shownValue(page, 'ENVIRONMENT', 'DB_PASSWORD'), '••••••••')
    assert.equal(await row(page, 'ENVIRONMENT', 'DB_PASSWORD').getAttribute('data-secret'), 'true')
    assert.ok(!(await page.content()).includes('hunter2'), 'the secret value is nowhere in the page')
    await add.locator('[data-field="/key"]').fill('APP_CONFIG')
    await add.locator('[data-field="/mount_path"]').fill('/etc/app/config.toml')
    assert.equal(await add.locator('[data-field="/value"]').evaluate((node) => node.tagName), 'TEXTAREA', 'a file is given its content')
    await add.locator('[data-field="/value"]').fill('debug = true\n')
    await add.locator('[data-action=add-variable]').click()
    await row(page, 'ENVIRONMENT', 'APP_CONFIG').waitFor(WAIT)
    assert.equal(await row(page, 'ENVIRONMENT', 'APP_CONFIG').locator('[data-testid=variable-type]').textContent(), 'file')
    assert.equal(await row(page, 'ENVIRONMENT', 'APP_CONFIG').locator('[data-testid=variable-note]').textContent(), 'file at /etc/app/config.toml')
    const atEnvironment = await listed('ENVIRONMENT', environment.id)
    assert.deepEqual(
      atEnvironment.filter((v) => v.scope === 'ENVIRONMENT').map((v) => [v.key, v.value, v.mount_path, v.is_secret]),
      [
        ['APP_CONFIG', 'debug = true\n', '/etc/app/config.toml', false],
        ['DB_PASSWORD', null, null, true],
        ['LOG_LEVEL', 'debug', null, false],
      ],
    )

    // A key taken in the scope: the API's 409 message under the form.
    const taken = await calls.inject('POST', '/variable', write, {
      key: 'LOG_LEVEL',
      value: 'x',
      is_secret: false,
      variable_scope: 'ENVIRONMENT',
      variable_parent_id: environment.id,
    })
    assert.equal(taken.statusCode, 409, taken.body)
    await add.locator('[data-field="/key"]').fill('LOG_LEVEL')
    await add.locator('[data-field="/value"]').fill('x')
    await add.locator('[data-action=add-variable]').click()
    await add.locator('.error').waitFor(WAIT)
    assert.equal(await add.locator('.error').textContent(), (taken.json() as { message: string }).message)

    // Edits: a value in place; a secret's blank value keeps it, a new one replaces it, neither shown.
    const edits: unknown[] = []
    page.on('request', (request) => request.method() === 'PUT' && request.url().includes('/variable/') && edits.push(request.postDataJSON()))
    await row(page, 'ENVIRONMENT', 'LOG_LEVEL').locator('[data-action=edit-variable]').click()
    const edit = page.locator('form[data-form=edit]')
    assert.equal(await edit.locator('[data-field="/value"]').inputValue(), 'debug')
    await edit.locator('[data-field="/value"]').fill('info')
    await edit.locator('[data-action=save-variable]').click()
    await edit.waitFor({ state: 'detached', ...WAIT })
    assert.equal(await shownValue(page, 'ENVIRONMENT', 'LOG_LEVEL'), 'info')
    for (const value of ['', 's3cond-secret']) {
      await row(page, 'ENVIRONMENT', 'DB_PASSWORD').locator('[data-action=edit-variable]').click()
      assert.equal(await edit.locator('[data-field="/value"]').inputValue(), '', 'a secret is edited without its value')
      assert.equal(await edit.locator('[data-field="/value"]').getAttribute('type'), 'password')
      await edit.locator('[data-field="/value"]').fill(value)
      await edit.locator('[data-action=save-variable]').click()
      await edit.waitFor({ state: 'detached', ...WAIT })
    }
    assert.deepEqual(edits, [{ key: 'LOG_LEVEL', value: 'info' }, { key: 'DB_PASSWORD' }, { key: 'DB_PASSWORD', value: 's3cond-secret' }])
    assert.equal(await shownValue(page, 'ENVIRONMENT', 'DB_PASSWORD'), '••••••••')
    assert.equal((await listed('ENVIRONMENT', environment.id)).find((v) => v.key === 'LOG_LEVEL')?.value, 'info')

    // The helm service: the environment's variables inherited; one overridden, one of the project's aliased here.
    await tab(page, 'services').click()
    await page.locator('section.services-glance').getByRole('link', { name: helm.name, exact: true }).click()
    await tab(page, 'variables').click()
    await row(page, 'ENVIRONMENT', 'LOG_LEVEL').waitFor(WAIT)
    assert.equal(await page.locator('section.variables').getAttribute('data-scope'), 'HELM')
    assert.equal(await shownValue(page, 'ENVIRONMENT', 'DB_PASSWORD'), '••••••••')
    assert.equal(await shownValue(page, 'BUILT_IN', 'QOVERY_SERVICE_ID'), helm.id)
    assert.deepEqual(await actionsOf(page, 'ENVIRONMENT', 'LOG_LEVEL'), ['override-variable', 'alias-variable'])
    await row(page, 'ENVIRONMENT', 'LOG_LEVEL').locator('[data-action=override-variable]').click()
    const override = page.locator('form[data-form=override]')
    await override.locator('[data-field="/value"]').fill('trace')
    await override.locator('[data-action=save-override]').click()
    await row(page, 'HELM', 'LOG_LEVEL').waitFor(WAIT)
    assert.equal(await shownValue(page, 'HELM', 'LOG_LEVEL'), 'trace')
    assert.equal(await row(page, 'HELM', 'LOG_LEVEL').locator('[data-testid=variable-type]').textContent(), 'override')
    assert.equal(await row(page, 'HELM', 'LOG_LEVEL').locator('[data-testid=variable-note]').textContent(), "overrides the environment's value")
    assert.equal(await row(page, 'ENVIRONMENT', 'LOG_LEVEL').locator('[data-testid=variable-note]').textContent(), 'overridden in this service')
    assert.deepEqual(await actionsOf(page, 'ENVIRONMENT', 'LOG_LEVEL'), ['alias-variable'], 'overridden once here, not twice')

    await row(page, 'PROJECT', 'REGION').locator('[data-action=alias-variable]').click()
    const alias = page.locator('form[data-form=alias]')
    await alias.locator('[data-field="/key"]').fill('AWS_REGION')
    await alias.locator('[data-action=save-alias]').click()
    await row(page, 'HELM', 'AWS_REGION').waitFor(WAIT)
    assert.equal(await shownValue(page, 'HELM', 'AWS_REGION'), '→ REGION')
    assert.deepEqual(await actionsOf(page, 'HELM', 'AWS_REGION'), ['edit-variable', 'delete-variable'], 'an alias is not aliased')
    assert.deepEqual(
      (await listed('HELM', helm.id)).filter((v) => v.scope === 'HELM').map((v) => [v.key, v.variable_type, v.value]),
      [
        ['AWS_REGION', 'ALIAS', 'REGION'],
        ['LOG_LEVEL', 'OVERRIDE', 'trace'],
      ],
    )
    await row(page, 'HELM', 'AWS_REGION').locator('[data-action=delete-variable]').click()
    await page.locator('form[data-form=delete] [data-action=confirm-delete]').click()
    await row(page, 'HELM', 'AWS_REGION').waitFor({ state: 'detached', ...WAIT })
    assert.ok(!(await listed('HELM', helm.id)).some((v) => v.key === 'AWS_REGION'), 'deleted')

    // READ sees the same lists, secrets masked, and nothing to change them with.
    const reader = await environmentPage(tokens.read.token, environment.id, 'variables')
    await reader.page.locator('section.variables[data-editable="false"]').waitFor(WAIT)
    await row(reader.page, 'ENVIRONMENT', 'LOG_LEVEL').waitFor(WAIT)
    assert.equal(await shownValue(reader.page, 'ENVIRONMENT', 'LOG_LEVEL'), 'info')
    assert.equal(await shownValue(reader.page, 'ENVIRONMENT', 'DB_PASSWORD'), '••••••••')
    assert.equal(await reader.page.locator(controls).count(), 0)
    await reader.page.getByText('Adding or changing variables needs the WRITE role.').waitFor(WAIT)
    await reader.page.goto(`${base}/console/#/helm/${helm.id}/variables`)
    await row(reader.page, 'HELM', 'LOG_LEVEL').waitFor(WAIT)
    assert.equal(await shownValue(reader.page, 'HELM', 'LOG_LEVEL'), 'trace')
    assert.equal(await reader.page.locator(controls).count(), 0)
    assertNoProblems(writer)
    assertNoProblems(reader)
  })
})
