// Makes docs/console-<page>.png: the console's page of each kind of service (and the environment
// page, and a service page on a narrow window), in Debian's Chromium, against a real `berth serve`
// (simulated executor) on a throwaway database seeded through the API and the test factories.
//
//   node --import tsx scripts/console-screenshots.ts            (TEST_DATABASE_URL's server, else local PostgreSQL)
//
// The deployments are real runs of the simulated executor: statuses, versions and histories are
// the API's. Its services print nothing, so the logs panels are empty here (test/console-operate.e2e.test.ts
// shows them with the Docker executor), and the application is never deployed (a deploy reads its
// commit from its git provider, which this machine cannot reach).
import path from 'node:path'
import pg from 'pg'
import { chromium, type Page } from 'playwright-core'
import { openDatabase } from '#src/platform/db/database.ts'
import { TEST_SECRET_KEY } from '../test/helpers/app.ts'
import { call } from '../test/helpers/berth-processes.ts'
import { CHROMIUM, CHROMIUM_ARGS, ensureConsoleBuilt } from '../test/helpers/console-browser.ts'
import { until } from '../test/helpers/deployments.ts'
import { factories } from '../test/helpers/factories.ts'
import { repoRoot, startServer } from '../test/helpers/process.ts'

const serverUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
const databaseName = `berth_screenshots_${process.pid}`
const databaseUrl = Object.assign(new URL(serverUrl), { pathname: `/${databaseName}` }).toString()

async function admin(sql: string) {
  const client = new pg.Client({ connectionString: serverUrl })
  await client.connect()
  try {
    await client.query(sql)
  } finally {
    await client.end()
  }
}

await admin(`CREATE DATABASE ${databaseName}`)
const db = openDatabase(databaseUrl, 2)
let server: Awaited<ReturnType<typeof startServer>> | undefined
try {
  await ensureConsoleBuilt()
  server = await startServer({
    DATABASE_URL: databaseUrl,
    BERTH_SECRET_KEY: TEST_SECRET_KEY,
    BERTH_SIMULATED_STEP_MS: '300',
    BERTH_RUNNER_POLL_MS: '50',
  })
  const base = server.baseUrl
  const make = factories(db)
  const organization = await make.organization('acme')
  const [adminToken] = [await make.apiToken(organization.id, 'ADMIN')]
  const auth = adminToken!.authorization
  const project = await make.project(organization.id, 'storefront')
  const environment = await make.environment(project.id, { name: 'production' })
  // Previews are made by pull requests: this one is made as a pull request event leaves it.
  await make.pullRequestPreview(environment.id, 412, 'New checkout flow')
  const registry = await make.containerRegistry(organization.id, { name: 'acme-registry', url: 'https://registry.acme.example' })
  const repository = await make.helmRepository(organization.id, { name: 'acme-charts' })

  const container = await make.containerService(environment.id, {
    name: 'checkout-api',
    registry_id: registry.id,
    image_name: 'acme/checkout-api',
    tag: '1.4.0',
    cpu: 500,
    memory: 256,
    min_running_instances: 2,
    max_running_instances: 4,
    ports: [{ name: 'http', internal_port: 8080, external_port: 443, publicly_accessible: true, protocol: 'HTTP' }],
  })
  const job = await make.job(environment.id, {
    name: 'nightly-invoice-export',
    schedule: { cronjob: { scheduled_at: '0 3 * * *', timezone: 'Europe/Paris', arguments: ['export', '--since=yesterday'] } },
    source: { image: { image_name: 'acme/invoices', tag: '2.0.1', registry_id: registry.id } },
  })
  const database = await make.database(environment.id, { name: 'orders-db', type: 'POSTGRESQL', version: '16', mode: 'CONTAINER' })
  const helm = await make.helmService(environment.id, {
    name: 'redis-cache',
    source: { helm_repository: { repository: repository.id, chart_name: 'redis', chart_version: '18.2.0' } },
    values_override: { set: [['replica.replicaCount', '2']] },
  })
  const application = await call(base, 'POST', `/environment/${environment.id}/application`, auth, {
    body: {
      name: 'storefront-web-with-a-rather-long-name-to-show-wrapping',
      git_repository: { url: 'https://github.com/acme/storefront', branch: 'main', root_path: '/', provider: 'GITHUB' },
      build_mode: 'DOCKER',
      dockerfile_path: 'Dockerfile',
      cpu: 500,
      memory: 512,
      min_running_instances: 1,
      max_running_instances: 2,
      healthchecks: {},
      ports: [{ name: 'web', internal_port: 3000, external_port: 443, publicly_accessible: true, protocol: 'HTTP' }],
    },
  })
  if (application.status !== 201) throw new Error(`creating the application: ${application.status} ${application.text}`)
  const applicationId = application.body.id as string
  const terraform = await call(base, 'POST', `/environment/${environment.id}/terraform`, auth, {
    body: {
      name: 'network',
      description: 'the VPC and its subnets',
      auto_deploy_config: { auto_deploy: true, terraform_action: 'PLAN' },
      terraform_files_source: { git_repository: { url: 'https://github.com/acme/infra', branch: 'main', root_path: '/network' } },
      terraform_variables_source: {
        tf_var_file_paths: ['production.tfvars'],
        tf_vars: [
          { key: 'region', value: 'eu-west-3', secret: false },
          { key: 'api_token', value: 'not-shown', secret: true },
        ],
      },
      backend: { kubernetes: {} },
      engine: 'OPEN_TOFU',
      provider_version: { explicit_version: '1.9.4', read_from_terraform_block: false },
      job_resources: { cpu_milli: 500, ram_mib: 512, gpu: 0, storage_gib: 1 },
      timeout_sec: 900,
    },
  })
  if (terraform.status !== 201) throw new Error(`creating the IAC service: ${terraform.status} ${terraform.text}`)
  const terraformId = terraform.body.id as string

  /** Deploys one service through the API (`action` another of its triggers) and waits until its status says it is done. */
  async function deploy(kind: string, id: string, body: object = {}, action = 'deploy') {
    const answer = await call(base, 'POST', `/${kind}/${id}/${action}`, auth, { body })
    if (answer.status !== 202) throw new Error(`deploying ${kind} ${id}: ${answer.status} ${answer.text}`)
    await until(
      async () => (await call(base, 'GET', `/${kind}/${id}/status`, auth)).body,
      (status) => status.deployment_requests_count === 0,
      { what: `${kind} deployed`, timeoutMs: 60_000, intervalMs: 200 },
    )
  }
  await deploy('container', container.id, { image_tag: '1.3.2' })
  await deploy('container', container.id)
  await deploy('container', container.id, { image_tag: '1.5.0-rc.1' }, 'deploy?dry_run=true')
  const containerHistory = await call(base, 'GET', `/container/${container.id}/deploymentHistoryV2?pageSize=10`, auth)
  const firstDeploy = (containerHistory.body.results as { identifier: { execution_id: string } }[]).at(-1)!.identifier.execution_id
  await deploy('container', container.id, { execution_id: firstDeploy }, 'rollback')
  await deploy('job', job.id)
  await deploy('database', database.id)
  await deploy('helm', helm.id, { chart_version: '18.1.5' })
  await deploy('helm', helm.id)
  // An application's deploy reads its commit from its git provider, out of reach here: it stays never deployed.

  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS })
  async function shoot(route: string, file: string, ready: (page: Page) => Promise<void>, width = 1280, height = 800) {
    const context = await browser.newContext({ viewport: { width, height } })
    await context.addInitScript(
      (value) =>
        (globalThis as unknown as { sessionStorage: { setItem(k: string, v: string): void } }).sessionStorage.setItem('berth.console.token', value),
      adminToken!.token,
    )
    const page = await context.newPage()
    await page.goto(`${base}/console/#/${route}`)
    await ready(page)
    await page.screenshot({ path: path.join(repoRoot, 'docs', file), fullPage: true })
    await context.close()
    console.log(`wrote docs/${file}`)
  }
  const servicePage = async (page: Page) => {
    // A service page opens on its Overview tab (its history and logs are tabs of their own).
    await page.locator('[data-testid=service-state]').waitFor({ timeout: 30_000 })
    await page.locator('[data-testid=instances] .note, [data-testid=instances] ul').first().waitFor({ timeout: 30_000 })
  }
  try {
    await shoot(`environment/${environment.id}`, 'console-environment.png', async (page) => {
      await page.locator('.services-glance table').first().waitFor({ timeout: 30_000 })
      await page.locator('.history-end').waitFor({ timeout: 30_000 })
    })
    await shoot(`application/${applicationId}`, 'console-application.png', servicePage)
    await shoot(`container/${container.id}`, 'console-container.png', servicePage)
    await shoot(`job/${job.id}`, 'console-job.png', servicePage)
    await shoot(`database/${database.id}`, 'console-database.png', servicePage)
    await shoot(`helm/${helm.id}`, 'console-helm.png', servicePage)
    await shoot(`terraform/${terraformId}`, 'console-iac.png', servicePage)
    await shoot(`container/${container.id}`, 'console-container-narrow.png', servicePage, 420, 800)
  } finally {
    await browser.close()
  }
} finally {
  await server?.stop()
  await db.destroy()
  await admin(`DROP DATABASE IF EXISTS ${databaseName} WITH (FORCE)`)
}
