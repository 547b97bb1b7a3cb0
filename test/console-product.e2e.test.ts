import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { type Browser, type BrowserContext, chromium, type Locator, type Page } from 'playwright-core'
import { builtImageRepository } from '#src/modules/executors/docker/image-builds.ts'
import { baseEnv, call, processScenario } from './helpers/berth-processes.ts'
import { CHROMIUM, CHROMIUM_ARGS, ensureConsoleBuilt, HOST_NETWORK_CHANGED } from './helpers/console-browser.ts'
import { until } from './helpers/deployments.ts'
import { buildScriptImage, busyboxImage, docker, type LoopbackRegistry, removeEnvironments, startRegistry } from './helpers/docker.ts'
import { DOCKER_APP_ENV, serviceInstances } from './helpers/docker-world.ts'
import { factories } from './helpers/factories.ts'
import { type FakeProvider, type FakeRepository, startFakeProvider } from './helpers/fake-git-providers.ts'
import { type LoopbackGitServer, startGitServer } from './helpers/git-server.ts'
import { type RunningServer, startServer } from './helpers/process.ts'

// Issue 49, "Done means": in Debian's Chromium against a real `berth serve` deploying into this
// machine's Docker engine, a person signs in, creates an application from a loopback git server
// (its repository and branch picked from the lists the git token's provider gives), a database and
// a job, all through the console; every tab of their pages loads without a page error; the
// overview shows the three with their live status; and each wrong word issue 49 lists is right,
// one assertion each that would fail if it came back. One server, one browser and one world for
// the whole file: each test goes on from where the one before left the world.

const DOCKER_WAIT = { timeout: 240_000 }
const WAIT = { timeout: 30_000 }

/** The application's repository: a site served by busybox's httpd on 8080, saying so on stdout. */
const SITE_FILES = {
  Dockerfile: 'FROM berth-test/busybox:1\nCOPY serve.sh /serve.sh\nCOPY www /www\nENTRYPOINT ["/bin/sh", "/serve.sh"]\n',
  'serve.sh': "#!/bin/sh\ntrap 'exit 0' TERM\necho 'site serving on 8080'\nhttpd -f -p 8080 -h /www &\nwait\n",
  'www/index.html': 'the site\n',
}
/** A PostgreSQL stand-in that writes its ordinary LOG lines to stderr, as PostgreSQL does, and one line to stdout. */
const DATABASE_SCRIPT = `#!/bin/sh
trap 'exit 0' TERM
echo "stand-in for PostgreSQL on 5432"
echo "LOG:  database system is ready to accept connections" >&2
httpd -f -p 5432 -h /tmp &
wait
`
const JOB_SCRIPT = '#!/bin/sh\necho "report written"\n'

const scenario = processScenario()
let server: RunningServer
let registry: LoopbackRegistry | undefined
let git: LoopbackGitServer | undefined
let github: FakeProvider | undefined
let browser: Browser
let context: BrowserContext
let page: Page
const problems: string[] = []
const environments: string[] = []

/** What the tests make, kept for the next ones. */
const world = {} as {
  organizationId: string
  environmentId: string
  environmentName: string
  write: { token: string; authorization: string; name: string }
  applicationId: string
  databaseId: string
  jobId: string
}

/** The world the tests share; run by the suite, after the scenario has made its database. */
async function setUp(): Promise<void> {
  await ensureConsoleBuilt()
  await busyboxImage()
  registry = await startRegistry()
  for (const tag of ['1', '2']) {
    await buildScriptImage(`berth-test/console-job:${tag}`, 'report.sh', JOB_SCRIPT)
    await registry.push(`berth-test/console-job:${tag}`, 'console-job', tag)
  }
  await buildScriptImage('berth-test/console-library/postgres:16', 'db.sh', DATABASE_SCRIPT)

  // The repository on loopback (https, asking for the git token as GitHub does), and a fake GitHub that lists it with its branches.
  const secret = `ghp_${Math.random().toString(36).slice(2)}`
  git = await startGitServer('x-access-token', secret)
  const site = await git.repository('acme/site')
  const main = await site.commit(SITE_FILES, 'A site')
  const feature = await site.commit({ 'www/index.html': 'a new look\n' }, 'A new look', 'feature/new-look')
  github = await startFakeProvider('github')
  github.tokens.add(secret)
  const repository: FakeRepository = {
    url: `${git.url}/acme/site.git`,
    defaultBranch: 'main',
    branches: [
      { name: 'main', sha: main },
      { name: 'feature/new-look', sha: feature },
    ],
    commits: [
      { sha: feature, message: 'A new look', authorName: 'Ada', date: new Date().toISOString() },
      { sha: main, message: 'A site', authorName: 'Ada', date: new Date().toISOString() },
    ],
  }
  github.repositories.set('acme/site', repository)
  github.repositories.set('acme/another-site', { defaultBranch: 'main', branches: [{ name: 'main', sha: main }], url: `${git.url}/acme/another.git` })

  server = await scenario.group.add(
    startServer(
      baseEnv(scenario.database, {
        ...DOCKER_APP_ENV,
        // No front door: its fixed ports would be another test's too (test/front-door.test.ts covers it).
        BERTH_PROXY: 'off',
        BERTH_DOCKER_DATABASE_IMAGES: 'berth-test/console-library',
        GIT_SSL_CAINFO: git.certificateFile,
        BERTH_LOG_LEVEL: 'info',
      }),
    ),
  )
  const make = factories(scenario.db)
  const w = await make.environmentWithTokens()
  environments.push(w.environment.id)
  const created = await call(server.baseUrl, 'POST', `/organization/${w.organization.id}/containerRegistry`, w.tokens.admin.authorization, {
    body: {
      name: 'loopback',
      kind: 'GENERIC_CR',
      url: `http://${registry.host}`,
      config: { username: registry.username, password: registry.password },
    },
  })
  assert.equal(created.status, 201, created.text)
  await make.gitToken(w.organization.id, { name: 'acme-github', type: 'GITHUB', token: secret, gitApiUrl: github.url })
  Object.assign(world, {
    organizationId: w.organization.id,
    environmentId: w.environment.id,
    environmentName: w.environment.name,
    write: w.tokens.write,
  })

  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS })
  context = await browser.newContext({ viewport: { width: 1440, height: 900 } })
  page = await context.newPage()
  // A 400 is the field error the first create provokes; a 304 is a poll that found nothing new.
  page.on('console', (message) => {
    if (message.type() === 'error' && !/status of (304|400)/.test(message.text()) && !HOST_NETWORK_CHANGED.test(message.text()))
      problems.push(message.text())
  })
  page.on('pageerror', (error) => problems.push(error.message))
}

after(async () => {
  await browser?.close()
  await removeEnvironments(environments).catch(() => undefined)
  if (world.applicationId) {
    for (const image of await docker.listImages({ filters: { reference: [builtImageRepository(world.applicationId)] } }))
      await docker
        .getImage(image.Id)
        .remove({ force: true })
        .catch(() => undefined)
  }
  await registry?.close()
  await github?.close()
  await git?.close()
})

const tab = (id: string) => page.locator(`nav.tabs a[data-tab="${id}"]`)
const form = (kind: string) => page.locator(`.create-form[data-kind="${kind}"]`)
const field = (kind: string, path: string) => form(kind).locator(`[data-field="${path}"]`)
/** The values of a select's options, in order, once it has some. */
async function optionsOf(select: Locator): Promise<string[]> {
  await select
    .locator('option:not([value=""])')
    .first()
    .waitFor({ state: 'attached', ...WAIT })
  return select.locator('option').evaluateAll((options) => options.map((option) => (option as unknown as { textContent: string }).textContent))
}
/** Opens the environment's "New service" page at `kind`'s form. */
async function newService(kind: string) {
  await page.goto(`${server.baseUrl}/console/#/environment/${world.environmentId}`)
  await page.click('[data-action=new-service]')
  await page.click(`.kind-choice a[data-kind="${kind}"]`)
  await form(kind).waitFor(WAIT)
}
/** Creates through the open form and returns the new service's id, once its page shows. */
async function create(kind: string): Promise<string> {
  await form(kind).locator('[data-action=create]').click()
  const servicePage = page.locator(`.service-page[data-kind="${kind}"][data-tab=overview]`)
  await servicePage.waitFor(WAIT)
  return (await servicePage.getAttribute('data-service-id'))!
}
/** What sticks out of the window on the right, when the page is wider than it: tag, class and right edge. */
const widerThanTheWindow = (on: Page) =>
  on.evaluate(`(() => {
    if (document.documentElement.scrollWidth <= window.innerWidth) return []
    return [...document.querySelectorAll('body *')]
      .filter((node) => node.getBoundingClientRect().right > window.innerWidth + 1)
      .map((node) => node.tagName.toLowerCase() + '.' + node.className + ' ' + Math.round(node.getBoundingClientRect().right))
      .slice(0, 10)
  })()`)
/** The computed value of a CSS property of the first element `locator` finds. */
const style = (locator: Locator, property: string) =>
  locator.first().evaluate((node, name) => node.ownerDocument.defaultView!.getComputedStyle(node).getPropertyValue(name), property)

describe('a console people choose to work in (issue 49)', () => {
  // A suite's hooks run after the file's, the scenario's (its database) among them.
  before(setUp)

  it('signs in, creates an application from git (repository and branch picked from lists), a database and a job, and deploys them', async () => {
    await page.goto(`${server.baseUrl}/console/`)
    await page.fill('#token', world.write.token)
    await page.click('button[type=submit]')
    // The token's one organization is the home: its overview, and the navigation leads to the environment.
    await page.locator('.organization-page.page-overview').waitFor(WAIT)
    await page.locator('nav.side').getByRole('link', { name: world.environmentName, exact: true }).click()
    await page.locator('section.services-glance').getByText('No service yet.').waitFor(WAIT)

    // The application: the git token's repositories, then the picked repository's branches, each from a list.
    await page.click('[data-action=new-service]')
    await page.click('.kind-choice a[data-kind=application]')
    const repositories = field('application', '/git_repository/url')
    assert.deepEqual(await optionsOf(repositories), ['acme/another-site', 'acme/site'], 'the repositories the git token can read')
    await repositories.selectOption({ label: 'acme/site' })
    const branches = field('application', '/git_repository/branch')
    await until(
      () => optionsOf(branches),
      (names) => names.includes('feature/new-look'),
      { what: "acme/site's branches listed", timeoutMs: 30_000, intervalMs: 200 },
    )
    assert.deepEqual(await optionsOf(branches), ['feature/new-look', 'main'])
    await branches.selectOption('main')
    await field('application', '/ports/0/internal_port').fill('8080')
    // No name: the API's message shows on the name's field.
    await form('application').locator('[data-action=create]').click()
    await form('application').locator('[data-error-for="/name"]').waitFor(WAIT)
    assert.equal(await field('application', '/name').getAttribute('aria-invalid'), 'true')
    await field('application', '/name').fill('site')
    world.applicationId = await create('application')
    const application = (await call(server.baseUrl, 'GET', `/application/${world.applicationId}`, world.write.authorization)).body
    assert.deepEqual(
      [application.git_repository.url, application.git_repository.branch],
      [`${git!.url}/acme/site.git`, 'main'],
      'made from the repository and branch picked',
    )

    await newService('database')
    await field('database', '/name').fill('orders-db')
    assert.equal(await field('database', '/type').inputValue(), 'POSTGRESQL')
    world.databaseId = await create('database')

    await newService('job')
    await field('job', '/name').fill('nightly-report')
    await field('job', '/source/image/image_name').fill('console-job')
    await field('job', '/source/image/tag').fill('1')
    assert.equal(await field('job', '/schedule/cronjob/scheduled_at').inputValue(), '0 3 * * *', 'a cron job unless told otherwise')
    world.jobId = await create('job')

    // Deploying the environment shows its history, where the deployment ends deployed.
    await page.locator('nav.breadcrumbs').getByRole('link', { name: world.environmentName, exact: true }).click()
    await page.click('section.actions [data-action=deploy]')
    await page.locator('.environment-page[data-tab=deployments]').waitFor(WAIT)
    const deployment = page.locator('article.deployment').first()
    await deployment.waitFor(WAIT)
    await page.waitForFunction(
      (node) => ['SUCCESS', 'ERROR', 'CANCELED'].includes(node!.getAttribute('data-action-status') ?? ''),
      await deployment.elementHandle(),
      DOCKER_WAIT,
    )
    assert.equal(await deployment.getAttribute('data-status'), 'DEPLOYED', (await deployment.textContent()) ?? '')
    assert.deepEqual(problems, [], 'the page reported errors')
  })

  it('opens every tab of the three service pages without a page error; a reload keeps the tab and the title says where', async () => {
    for (const [segment, id] of [
      ['application', world.applicationId],
      ['database', world.databaseId],
      ['job', world.jobId],
    ] as const) {
      await page.goto(`${server.baseUrl}/console/#/${segment}/${id}`)
      await page.locator(`.service-page[data-service-id="${id}"] [data-testid=service-state]`).waitFor(WAIT)
      const tabs = await page.locator('nav.tabs a').evaluateAll((links) => links.map((link) => link.getAttribute('data-tab')!))
      assert.ok(tabs.includes('overview') && tabs.includes('deployments') && tabs.includes('logs') && tabs.includes('settings'), tabs.join())
      for (const id of tabs) {
        await tab(id).click()
        await page.locator(`.service-page[data-tab="${id}"] .tab-panel > *`).first().waitFor(WAIT)
        await page.waitForFunction(
          () => !(globalThis as unknown as { document: { querySelector(s: string): unknown } }).document.querySelector('.tab-panel .loading'),
          undefined,
          WAIT,
        )
      }
    }
    assert.deepEqual(problems, [], 'no tab reported an error')

    await page.goto(`${server.baseUrl}/console/#/application/${world.applicationId}/logs`)
    await page.reload()
    await page.locator('.service-page[data-tab=logs] .service-logs').waitFor(WAIT)
    assert.equal(await page.locator('nav.tabs a[aria-current=page]').getAttribute('data-tab'), 'logs')
    await until(
      () => page.title(),
      (title) => title === `Logs · site · ${world.environmentName} · Berth`,
      { what: 'the title saying where', timeoutMs: 20_000, intervalMs: 100 },
    )
  })

  it('names instances by their container, labels ports and addresses, and marks stderr without colouring it as an error', async () => {
    const [instance] = await serviceInstances(world.applicationId)
    const name = instance!.Names[0]!.replace(/^\//, '')
    await page.goto(`${server.baseUrl}/console/#/application/${world.applicationId}`)
    // "Instances 0 berth-…" read as no instance: the instance is its container's name, its index said to be one.
    const seen = page.locator('[data-testid=instances] .instance-seen')
    await seen.locator('.instance-name', { hasText: name }).waitFor(WAIT)
    assert.match((await seen.textContent())!, new RegExp(`^${name} instance #0 · last line at \\d\\d:\\d\\d:\\d\\d`))
    // "Ports 8080→443/HTTP public": the port it listens on, public through the front door; no external port it does not answer on.
    assert.equal(await page.locator('.configuration [data-fact=Ports]').textContent(), '8080/HTTP public (through the front door)')
    // The published port is said to be one, for debugging.
    const published = page.locator('.addresses li[data-address-kind=published-port]')
    await published.waitFor(WAIT)
    assert.match((await published.locator('a[data-testid=address]').getAttribute('href'))!, /^http:\/\/127\.0\.0\.1:\d+/)
    assert.equal(await published.locator('.chip').textContent(), 'published port, for debugging')

    // "Following live Instances: 0": the log panel counts the instances it saw and names them.
    await tab('logs').click()
    await page.locator('.service-log-lines li.line', { hasText: 'site serving on 8080' }).waitFor(WAIT)
    assert.match((await page.locator('[data-testid=log-state]').textContent())!, new RegExp(`1 instance seen \\(${name}\\)`))

    // PostgreSQL's LOG lines come on stderr: marked as stderr, coloured as any other line.
    await page.goto(`${server.baseUrl}/console/#/database/${world.databaseId}/logs`)
    const stderr = page.locator('.service-log-lines li.line[data-stream=stderr]', { hasText: 'LOG:  database system is ready' })
    const stdout = page.locator('.service-log-lines li.line[data-stream=stdout]', { hasText: 'stand-in for PostgreSQL' })
    await stderr.waitFor(WAIT)
    await stdout.waitFor(WAIT)
    assert.equal(await style(stderr.locator('.text'), 'color'), await style(stdout.locator('.text'), 'color'), 'a LOG line is not red')
    assert.equal(await stderr.locator('.stream').textContent(), 'stderr')
    assert.deepEqual(problems, [], 'the page reported errors')
  })

  it('tells what runs from what is configured, and marks dry runs and rollbacks as such in both histories', async () => {
    // The job deployed at tag 2 while tag 1 is configured: never "up to date".
    await page.goto(`${server.baseUrl}/console/#/job/${world.jobId}`)
    await page.fill('.service-actions [data-field=version]', '2')
    await page.click('.service-actions [data-action=deploy]')
    await page.locator('[data-testid=running-version]', { hasText: 'console-job:2' }).waitFor(DOCKER_WAIT)
    assert.equal(
      await page.locator('[data-testid=deployment-status]').textContent(),
      'runs 2, not the configured 1: the next deploy without a version runs 1',
    )
    assert.equal(await page.locator('[data-testid=configured-version]').textContent(), 'console-job:1')

    // Rolled back to its first deployment: the row and the environment's card say "Rollback to the deploy of …", not "Deploy".
    await tab('deployments').click()
    const first = page.locator('.service-deployments tr[data-dry-run=false][data-status=SUCCESS]', { hasText: 'console-job:1' }).last()
    await first.locator('[data-action=rollback]').click()
    const rollback = page.locator('.service-deployments tr[data-rollback=true][data-status=SUCCESS]')
    await rollback.waitFor(DOCKER_WAIT)
    assert.match((await rollback.locator('.trigger').textContent())!, /^Rollback to the deploy of /)
    await tab('overview').click()
    await page.locator('[data-testid=running-version]', { hasText: 'console-job:1' }).waitFor(WAIT)
    assert.equal(await page.locator('[data-testid=deployment-status]').textContent(), 'runs the configuration as saved')

    // A dry run of the environment: checked, nothing deployed; what it would deploy, not "deployed …".
    await page.goto(`${server.baseUrl}/console/#/environment/${world.environmentId}/deployments`)
    await page.locator('article.deployment[data-trigger=rollback]').first().waitFor(WAIT)
    assert.match((await page.locator('article.deployment[data-trigger=rollback] .trigger').first().textContent())!, /^Rollback to the deploy of /)
    await page.click('section.actions [data-action=dry-run]')
    const dryRun = page.locator('article.deployment[data-trigger=dry-run][data-action-status=SUCCESS]').first()
    await dryRun.waitFor(DOCKER_WAIT)
    assert.equal(await dryRun.locator('.trigger').textContent(), 'Dry run')
    assert.equal(await dryRun.locator('[data-testid=status]').textContent(), 'checked, nothing deployed')
    assert.deepEqual(
      [...new Set(await dryRun.locator('li.service > .badge').allTextContents())],
      ['checked, nothing deployed'],
      'no service of a dry run reads "deployed"',
    )
    assert.equal(
      await dryRun.locator(`li.service[data-service-id="${world.jobId}"] .detail`, { hasText: 'console-job' }).textContent(),
      'would deploy console-job:1',
    )

    // Who triggered a deployment is a plain note, not bold; the application's service in a card links to its page.
    const deployed = page.locator('article.deployment[data-trigger=plain][data-status=DEPLOYED]').last()
    assert.match((await deployed.locator('.who').textContent())!, new RegExp(`^by API token ${world.write.name} from API$`))
    assert.ok(Number(await style(deployed.locator('.who'), 'font-weight')) <= 400, 'not bold')
    assert.equal(
      await deployed.locator(`li.service[data-service-id="${world.applicationId}"] a.service-name`).getAttribute('href'),
      `#/application/${world.applicationId}`,
    )
    assert.deepEqual(problems, [], 'the page reported errors')
  })

  it("shows the three services on the organization's overview with their live status, a stopped one under Needs attention", async () => {
    await page.goto(`${server.baseUrl}/console/#/organization/${world.organizationId}`)
    const card = page.locator(`.environment-card[data-environment-id="${world.environmentId}"]`)
    for (const id of [world.applicationId, world.databaseId, world.jobId])
      await card.locator(`li[data-service-id="${id}"][data-state=DEPLOYED]`).waitFor(WAIT)
    assert.equal(await page.locator('.attention').getAttribute('data-count'), '0')

    // Stopped elsewhere (the API): the overview follows without a reload.
    const stop = await call(server.baseUrl, 'POST', `/database/${world.databaseId}/stop`, world.write.authorization)
    assert.equal(stop.status, 202, stop.text)
    await card.locator(`li[data-service-id="${world.databaseId}"][data-state=STOPPED]`).waitFor(DOCKER_WAIT)
    await page.locator('.attention [data-source=stopped-services] li', { hasText: 'orders-db' }).waitFor(WAIT)
    assert.equal(await page.locator('.stats [data-figure=stopped] .value').textContent(), '1')
    assert.deepEqual(problems, [], 'the page reported errors')
  })

  it('folds the navigation behind Menu on a narrow window, and shows where the keyboard focus is', async () => {
    const narrow = await browser.newContext({ viewport: { width: 390, height: 844 } })
    try {
      await narrow.addInitScript(
        (value) =>
          (globalThis as unknown as { sessionStorage: { setItem(k: string, v: string): void } }).sessionStorage.setItem('berth.console.token', value),
        world.write.token,
      )
      const small = await narrow.newPage()
      await small.goto(`${server.baseUrl}/console/#/application/${world.applicationId}`)
      await small.locator('[data-testid=service-state]').waitFor(WAIT)
      assert.equal(await small.locator('nav.side').isVisible(), false, 'the navigation is folded')
      assert.deepEqual(await widerThanTheWindow(small), [], 'nothing wider than the window')
      await small.click('header.top .menu')
      await small.locator('nav.side').getByRole('link', { name: world.environmentName, exact: true }).click()
      await small.locator('section.services-glance').waitFor(WAIT)
      assert.equal(await small.locator('nav.side').isVisible(), false, 'following a link folds it again')

      // Tab from the top: the first stop skips to the page, and the focused element is outlined.
      await small.reload()
      await small.locator('section.services-glance').waitFor(WAIT)
      await small.keyboard.press('Tab')
      assert.deepEqual(
        await small.evaluate(
          '[document.activeElement.textContent.trim(), getComputedStyle(document.activeElement).outlineStyle, getComputedStyle(document.activeElement).outlineWidth]',
        ),
        ['Skip to the page', 'solid', '3px'],
      )
    } finally {
      await narrow.close()
    }
  })
})
