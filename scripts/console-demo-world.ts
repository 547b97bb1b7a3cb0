// The organization the console's screenshots show (scripts/console-screenshots.ts): two projects,
// three environments, every kind of service, deployments that succeeded, a dry run, a rollback,
// a failed deploy and a stopped service, all made through the API of a running `berth serve`
// (simulated executor) or the test factories, so that every status and history is the API's own.
// A fake GitHub (test/helpers/fake-git-providers.ts) answers the git token's listings and commits.
import { call } from '../test/helpers/berth-processes.ts'
import { until } from '../test/helpers/deployments.ts'
import type { factories } from '../test/helpers/factories.ts'
import type { FakeProvider } from '../test/helpers/fake-git-providers.ts'

export interface DemoWorld {
  organizationId: string
  /** The ADMIN token the screenshots sign in with. */
  token: string
  project: string
  production: string
  staging: string
  container: string
  application: string
  job: string
  database: string
  helm: string
  terraform: string
}

const sha = (seed: string) => seed.repeat(40).slice(0, 40)
const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString()

/** Repositories the fake GitHub lists for the demo's git token, with their branches and commits. */
function fillGitHub(github: FakeProvider, token: string) {
  github.tokens.add(token)
  github.repositories.set('acme/storefront-web', {
    defaultBranch: 'main',
    branches: [
      { name: 'main', sha: sha('a1') },
      { name: 'checkout-v2', sha: sha('b2') },
      { name: 'release/2026.12', sha: sha('c3') },
    ],
    commits: [
      { sha: sha('a1'), message: 'Checkout: pay with a saved card', authorName: 'Ada Lovelace', date: daysAgo(1) },
      { sha: sha('d4'), message: 'Cart: keep items across devices', authorName: 'Grace Hopper', date: daysAgo(3) },
    ],
  })
  github.repositories.set('acme/infra', { defaultBranch: 'main', branches: [{ name: 'main', sha: sha('e5') }] })
  github.repositories.set('acme/reports', { defaultBranch: 'main', branches: [{ name: 'main', sha: sha('f6') }] })
  // A git token travels over https only: the listings give GitHub's addresses, the fake answers for them.
  for (const [name, repository] of github.repositories) repository.url = `https://github.com/${name}`
}

export async function seedDemoWorld(base: string, make: ReturnType<typeof factories>, github: FakeProvider): Promise<DemoWorld> {
  const organization = await make.organization('acme')
  const admin = await make.apiToken(organization.id, 'ADMIN', { name: 'ada-laptop' })
  const auth = admin.authorization
  const deployer = await make.apiToken(organization.id, 'DEPLOY', { name: 'ci-deployer' })

  const storefront = await make.project(organization.id, 'storefront')
  const production = await make.environment(storefront.id, { name: 'production', mode: 'PRODUCTION' })
  const staging = await make.environment(storefront.id, { name: 'staging', mode: 'STAGING' })
  const tools = await make.project(organization.id, 'internal-tools')
  const ops = await make.environment(tools.id, { name: 'ops' })
  // Previews are made by pull requests: this one is made as a pull request event leaves it.
  await make.pullRequestPreview(production.id, 412, 'New checkout flow')

  const registry = await make.containerRegistry(organization.id, { name: 'acme-registry', url: 'https://registry.acme.example' })
  const repository = await make.helmRepository(organization.id, { name: 'acme-charts', url: 'https://charts.acme.example' })
  const gitSecret = `ghp_demo${'0'.repeat(32)}`
  fillGitHub(github, gitSecret)
  const gitToken = await make.gitToken(organization.id, { name: 'acme-github', type: 'GITHUB', token: gitSecret, gitApiUrl: github.url })

  async function create(kind: string, environmentId: string, body: object): Promise<string> {
    const answer = await call(base, 'POST', `/environment/${environmentId}/${kind}`, auth, { body })
    if (answer.status !== 201) throw new Error(`creating a ${kind}: ${answer.status} ${answer.text}`)
    return answer.body.id as string
  }

  /** Runs one trigger of a service through the API (as `by`) and waits until nothing of it is queued or running. */
  async function run(kind: string, id: string, action = 'deploy', body: object = {}, by = auth) {
    const answer = await call(base, 'POST', `/${kind}/${id}/${action}`, by, { body })
    if (answer.status !== 202) throw new Error(`${action} of ${kind} ${id}: ${answer.status} ${answer.text}`)
    await until(
      async () => (await call(base, 'GET', `/${kind}/${id}/status`, auth)).body,
      (status) => status.deployment_requests_count === 0,
      { what: `${kind} ${action}`, timeoutMs: 60_000, intervalMs: 200 },
    )
  }

  const web = { name: 'http', internal_port: 8080, external_port: 443, publicly_accessible: true, protocol: 'HTTP' as const }
  const container = await make.containerService(production.id, {
    name: 'checkout-api',
    registry_id: registry.id,
    image_name: 'acme/checkout-api',
    tag: '1.3.2',
    cpu: 500,
    memory: 256,
    min_running_instances: 2,
    max_running_instances: 4,
    ports: [web],
  })
  const application = await create('application', production.id, {
    name: 'storefront-web',
    git_repository: { url: 'https://github.com/acme/storefront-web', branch: 'main', root_path: '/', git_token_id: gitToken.id, provider: 'GITHUB' },
    build_mode: 'DOCKER',
    dockerfile_path: 'Dockerfile',
    cpu: 500,
    memory: 512,
    min_running_instances: 1,
    max_running_instances: 2,
    healthchecks: {},
    ports: [{ ...web, name: 'web', internal_port: 3000 }],
  })
  const job = await make.job(production.id, {
    name: 'nightly-invoice-export',
    schedule: { cronjob: { scheduled_at: '0 3 * * *', timezone: 'Europe/Paris', arguments: ['export', '--since=yesterday'] } },
    source: { image: { image_name: 'acme/invoices', tag: '2.0.1', registry_id: registry.id } },
  })
  const database = await make.database(production.id, { name: 'orders-db', type: 'POSTGRESQL', version: '16', mode: 'CONTAINER' })
  const helm = await make.helmService(production.id, {
    name: 'redis-cache',
    source: { helm_repository: { repository: repository.id, chart_name: 'redis', chart_version: '18.1.5' } },
    values_override: { set: [['replica.replicaCount', '2']] },
  })
  const terraform = await create('terraform', production.id, {
    name: 'network',
    description: 'the VPC and its subnets',
    auto_deploy_config: { auto_deploy: true, terraform_action: 'PLAN' },
    terraform_files_source: {
      git_repository: { url: 'https://github.com/acme/infra', branch: 'main', root_path: '/network', git_token_id: gitToken.id },
    },
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
  })
  await call(base, 'POST', '/variable', auth, {
    body: { key: 'LOG_LEVEL', value: 'info', is_secret: false, variable_scope: 'ENVIRONMENT', variable_parent_id: production.id },
  })
  await call(base, 'POST', '/variable', auth, {
    body: { key: 'STRIPE_SECRET_KEY', value: 'sk_live_not_shown', is_secret: true, variable_scope: 'CONTAINER', variable_parent_id: container.id },
  })

  // checkout-api: 1.3.2, then 1.4.0 by the CI, a dry run of a release candidate, and a rollback to 1.3.2.
  await run('container', container.id)
  await run('container', container.id, 'deploy', { image_tag: '1.4.0' }, deployer.authorization)
  await run('container', container.id, 'deploy?dry_run=true', { image_tag: '1.5.0-rc.1' }, deployer.authorization)
  const history = await call(base, 'GET', `/container/${container.id}/deploymentHistoryV2?pageSize=10`, auth)
  const first = (history.body.results as { identifier: { execution_id: string } }[]).at(-1)!.identifier.execution_id
  await run('container', container.id, 'rollback', { execution_id: first })
  await run('application', application)
  await run('job', job.id)
  await run('database', database.id)
  await run('helm', helm.id)
  await run('helm', helm.id, 'deploy', { chart_version: '18.2.0' }, deployer.authorization)

  // staging: its checkout-api runs; its search chart failed to deploy.
  await run(
    'container',
    (
      await make.containerService(staging.id, {
        name: 'checkout-api',
        registry_id: registry.id,
        image_name: 'acme/checkout-api',
        tag: '1.5.0-rc.1',
        ports: [web],
      })
    ).id,
  )
  const search = await make.helmService(staging.id, {
    name: 'search',
    source: { helm_repository: { repository: repository.id, chart_name: 'opensearch', chart_version: '2.21.0' } },
    values_override: { set: [['berth.simulate.fail', 'true']] },
  })
  await run('helm', search.id, 'deploy', {}, deployer.authorization)

  // ops: a dashboard someone stopped.
  const metabase = await make.containerService(ops.id, {
    name: 'metabase',
    registry_id: registry.id,
    image_name: 'metabase/metabase',
    tag: 'v0.50.1',
    ports: [web],
  })
  await run('container', metabase.id)
  await run('container', metabase.id, 'stop')

  return {
    organizationId: organization.id,
    token: admin.token,
    project: storefront.id,
    production: production.id,
    staging: staging.id,
    container: container.id,
    application,
    job: job.id,
    database: database.id,
    helm: helm.id,
    terraform,
  }
}
