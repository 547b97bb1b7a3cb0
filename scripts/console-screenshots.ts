// Makes docs/console/*.png, the screenshots docs/console.md links: the organization's overview,
// an environment's tabs, a service page's tabs and the create forms, each at 1440×900 and 390×844
// (full page), in Debian's Chromium against a real `berth serve` (simulated executor) on a
// throwaway database, seeded by scripts/console-demo-world.ts.
//
//   node --import tsx scripts/console-screenshots.ts            (TEST_DATABASE_URL's server, else local PostgreSQL)
//   node --import tsx scripts/console-screenshots.ts --serve    seeds, prints the address and token as JSON, and serves until stopped
//
// The simulated executor runs nothing, so a service's Logs tab shows its empty state here
// (test/console-product.e2e.test.ts reads real logs on the Docker engine).
import { mkdirSync } from 'node:fs'
import path from 'node:path'
import pg from 'pg'
import { chromium, type Page } from 'playwright-core'
import { openDatabase } from '#src/platform/db/database.ts'
import { TEST_SECRET_KEY } from '../test/helpers/app.ts'
import { CHROMIUM, CHROMIUM_ARGS, ensureConsoleBuilt } from '../test/helpers/console-browser.ts'
import { factories } from '../test/helpers/factories.ts'
import { startFakeProvider } from '../test/helpers/fake-git-providers.ts'
import { repoRoot, startServer } from '../test/helpers/process.ts'
import { type DemoWorld, seedDemoWorld } from './console-demo-world.ts'

const serverUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
const databaseName = `berth_screenshots_${process.pid}`
const databaseUrl = Object.assign(new URL(serverUrl), { pathname: `/${databaseName}` }).toString()
const outDir = path.join(repoRoot, 'docs', 'console')
const serveOnly = process.argv.includes('--serve')

const VIEWPORTS = {
  wide: { width: 1440, height: 900 },
  narrow: { width: 390, height: 844 },
} as const

async function admin(sql: string) {
  const client = new pg.Client({ connectionString: serverUrl })
  await client.connect()
  try {
    await client.query(sql)
  } finally {
    await client.end()
  }
}

interface Shot {
  /** The file's name before `-wide.png` / `-narrow.png`. */
  name: string
  route: string
  /** What shows once the page is ready, besides no "Loading…" left. */
  ready: string
  /** Only at this width (the other tabs of a kind show the same frame). */
  only?: keyof typeof VIEWPORTS
}

function shotsOf(world: DemoWorld): Shot[] {
  const service = `container/${world.container}`
  const creates = ['application', 'container', 'database', 'job', 'helm', 'terraform']
  return [
    { name: 'overview', route: `organization/${world.organizationId}`, ready: '.environment-card' },
    { name: 'organization-settings', route: `organization/${world.organizationId}/settings`, ready: '.settings', only: 'wide' },
    { name: 'project', route: `project/${world.project}`, ready: 'ul.links li', only: 'wide' },
    { name: 'environment-services', route: `environment/${world.production}`, ready: '.services-glance table' },
    { name: 'environment-deployments', route: `environment/${world.production}/deployments`, ready: '.history-end' },
    { name: 'environment-previews', route: `environment/${world.production}/previews`, ready: 'section.previews li', only: 'wide' },
    { name: 'environment-stages', route: `environment/${world.production}/stages`, ready: 'li.plan-stage', only: 'wide' },
    { name: 'environment-variables', route: `environment/${world.production}/variables`, ready: 'li.variable', only: 'wide' },
    { name: 'service-overview', route: service, ready: '[data-testid=instances] .note, [data-testid=instances] ul' },
    { name: 'service-deployments', route: `${service}/deployments`, ready: '.service-deployments table' },
    { name: 'service-logs', route: `${service}/logs`, ready: '.service-logs[data-state=ended], .service-logs[data-state=live]' },
    { name: 'service-variables', route: `${service}/variables`, ready: 'li.variable' },
    { name: 'service-settings', route: `${service}/settings`, ready: '.service-form' },
    { name: 'service-helm-values', route: `helm/${world.helm}/values`, ready: 'form.values', only: 'wide' },
    {
      name: 'service-iac-resources',
      route: `terraform/${world.terraform}/resources`,
      ready: 'section.terraform-resources .empty-state',
      only: 'wide',
    },
    { name: 'service-database', route: `database/${world.database}`, ready: '[data-testid=service-state]', only: 'wide' },
    { name: 'service-job', route: `job/${world.job}`, ready: '[data-testid=service-state]', only: 'wide' },
    { name: 'service-application', route: `application/${world.application}`, ready: '[data-testid=service-state]', only: 'wide' },
    { name: 'create', route: `environment/${world.production}/new`, ready: '.kind-choice' },
    ...creates.map((segment) => ({
      name: `create-${segment}`,
      route: `environment/${world.production}/new/${segment}`,
      ready: segment === 'application' ? '.create-form select[data-field="/git_repository/branch"]:not([disabled])' : '.create-form',
    })),
  ]
}

/** A signed-in page at `#/<route>`, once `ready` shows and nothing says "Loading…". */
async function openReady(page: Page, base: string, route: string, ready: string) {
  await page.goto(`${base}/console/#/${route}`)
  await page.locator(ready).first().waitFor({ timeout: 30_000 })
  await page.waitForFunction(
    () => !(globalThis as unknown as { document: { querySelector(s: string): unknown } }).document.querySelector('.loading'),
    undefined,
    {
      timeout: 30_000,
    },
  )
}

await admin(`CREATE DATABASE ${databaseName}`)
const db = openDatabase(databaseUrl, 2)
const github = await startFakeProvider('github')
let server: Awaited<ReturnType<typeof startServer>> | undefined
try {
  await ensureConsoleBuilt()
  server = await startServer({
    DATABASE_URL: databaseUrl,
    BERTH_SECRET_KEY: TEST_SECRET_KEY,
    BERTH_SIMULATED_STEP_MS: '300',
    BERTH_RUNNER_POLL_MS: '50',
    BERTH_GIT_ALLOW_PRIVATE_URLS: 'true',
  })
  const base = server.baseUrl
  const world = await seedDemoWorld(base, factories(db), github)
  if (serveOnly) {
    console.log(JSON.stringify({ base, ...world }))
    await new Promise((resolve) => {
      process.once('SIGINT', resolve)
      process.once('SIGTERM', resolve)
    })
  } else {
    mkdirSync(outDir, { recursive: true })
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS })
    try {
      for (const [size, viewport] of Object.entries(VIEWPORTS) as [keyof typeof VIEWPORTS, (typeof VIEWPORTS)[keyof typeof VIEWPORTS]][]) {
        const context = await browser.newContext({ viewport })
        await context.addInitScript(
          (value) =>
            (globalThis as unknown as { sessionStorage: { setItem(k: string, v: string): void } }).sessionStorage.setItem(
              'berth.console.token',
              value,
            ),
          world.token,
        )
        const page = await context.newPage()
        for (const shot of shotsOf(world).filter((candidate) => !candidate.only || candidate.only === size)) {
          await openReady(page, base, shot.route, shot.ready)
          const file = path.join(outDir, `${shot.name}-${size}.png`)
          await page.screenshot({ path: file, fullPage: true })
          console.log(`wrote ${path.relative(repoRoot, file)}`)
        }
        await context.close()
        // The sign-in form, in a tab that holds no token.
        const signedOut = await browser.newContext({ viewport })
        const signIn = await signedOut.newPage()
        await signIn.goto(`${base}/console/`)
        await signIn.locator('#token').waitFor({ timeout: 30_000 })
        await signIn.screenshot({ path: path.join(outDir, `sign-in-${size}.png`), fullPage: true })
        console.log(`wrote docs/console/sign-in-${size}.png`)
        await signedOut.close()
      }
    } finally {
      await browser.close()
    }
  }
} finally {
  await server?.stop()
  await github.close()
  await db.destroy()
  await admin(`DROP DATABASE IF EXISTS ${databaseName} WITH (FORCE)`)
}
