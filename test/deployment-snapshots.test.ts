import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createConfiguredRunner } from '#src/cli/deployment-engine.ts'
import type { DeploymentRunner } from '#src/modules/deployments/runner/deployment-runner.ts'
import { createDeploymentRunsRepository } from '#src/modules/deployments/runner/deployment-runs.repository.ts'
import { createTestApp, type TestApp } from './helpers/app.ts'
import { type DeploymentCalls, deploymentCalls } from './helpers/deployments.ts'
import { factories } from './helpers/factories.ts'
import { createIsolatedDatabase, type IsolatedDatabase } from './helpers/isolated-database.ts'

// What a deployment deploys is fixed when it is triggered: a snapshot of each service that an
// edit made afterwards changes neither in the run, nor in its history, nor in its logs. And a
// service is UP_TO_DATE while what its last deployment deployed is what it is configured as.

let database: IsolatedDatabase
let t: TestApp
let make: ReturnType<typeof factories>
let calls: DeploymentCalls
let runner: DeploymentRunner | undefined

before(async () => {
  // A database of its own, without a runner until a test starts one: what is queued waits.
  database = await createIsolatedDatabase()
  t = await createTestApp({ DATABASE_URL: database.url, BERTH_SIMULATED_STEP_MS: '60', BERTH_RUNNER_POLL_MS: '25' })
  make = factories(t.db)
  calls = deploymentCalls(t.app)
})
after(async () => {
  await runner?.stop()
  await t?.close()
  await database?.drop()
})

/** Starts the runner the Berth processes run, on this database; it runs whatever is queued. */
function startRunner(): void {
  runner ??= createConfiguredRunner(createDeploymentRunsRepository(t.db), t.config.runner, { info() {}, warn() {} })
  runner.start()
}

/** A helm request with a chart of the repository, at that name and version. */
const helmRequest = (repositoryId: string, name: string, chartVersion: string, extra: object = {}) => ({
  name,
  auto_deploy: false,
  arguments: [],
  values_override: { set: [['replicas', '2']] },
  source: { helm_repository: { repository: repositoryId, chart_name: 'web', chart_version: chartVersion } },
  ...extra,
})

async function setUp() {
  const { environment, organization, tokens } = await make.environmentWithTokens()
  const repository = await make.helmRepository(organization.id)
  const res = await calls.inject(
    'POST',
    `/environment/${environment.id}/helm`,
    tokens.admin.authorization,
    helmRequest(repository.id, 'front', '1.0.0'),
  )
  assert.equal(res.statusCode, 201, res.body)
  const helm = res.json() as { id: string }
  const edit = async (body: object) => {
    const edited = await calls.inject('PUT', `/helm/${helm.id}`, tokens.admin.authorization, body)
    assert.equal(edited.statusCode, 200, edited.body)
  }
  const status = async () => (await calls.helmStatus(helm.id, tokens.read.authorization)).service_deployment_status as string
  const deployAndWait = async (payload?: object) => {
    const queued = await calls.trigger(`/helm/${helm.id}/deploy`, tokens.deploy.authorization, payload)
    startRunner()
    await calls.waitUntilIdle(environment.id, tokens.read.authorization)
    return queued.execution_id as string
  }
  return { environment, repository, tokens, helm, edit, status, deployAndWait }
}

describe('deployment snapshots', () => {
  it('deploys the service as it was at the trigger, whatever edit came before the deployment ran', async () => {
    const { environment, repository, tokens, helm, edit, status } = await setUp()
    const auth = tokens.read.authorization
    assert.equal(runner, undefined, 'no runner yet: the deployment waits in the queue')
    const queued = await calls.trigger(`/helm/${helm.id}/deploy`, tokens.deploy.authorization)
    await edit(helmRequest(repository.id, 'front-renamed', '2.0.0'))
    startRunner()
    const [entry] = await calls.waitUntilIdle(environment.id, auth)

    assert.equal(entry!.identifier.execution_id, queued.execution_id)
    assert.equal(entry!.status, 'DEPLOYED')
    const service = entry!.stages[0]!.services[0]!
    assert.equal(service.identifier.name, 'front', 'the name at the trigger')
    assert.deepEqual(service.details, { repository: { chart_name: 'web', chart_version: '1.0.0' } }, 'the chart version at the trigger')
    assert.deepEqual((await calls.helmHistory(helm.id, auth)).results[0], service)

    const lines = (await calls.inject('GET', `/environment/${environment.id}/logs?version=${queued.execution_id}`, auth)).json() as {
      details: { transmitter: { id: string; name: string } }
      message: { safe_message: string }
    }[]
    const ofService = lines.filter((line) => line.details.transmitter.id === helm.id)
    assert.ok(ofService.length > 0)
    for (const line of ofService) assert.equal(line.details.transmitter.name, 'front')
    const said = ofService.map((line) => line.message.safe_message)
    assert.ok(
      said.some((message) => message.includes('chart web version 1.0.0')),
      said.join('\n'),
    )
    assert.ok(said.some((message) => message.includes('helm upgrade --install front ')))
    assert.ok(!said.some((message) => message.includes('2.0.0') || message.includes('front-renamed')), said.join('\n'))

    const after = await calls.helmStatus(helm.id, auth)
    assert.deepEqual([after.state, after.service_deployment_status], ['DEPLOYED', 'OUT_OF_DATE'], 'what runs is not what is configured')
    assert.equal((await calls.environmentStatus(environment.id, auth)).deployment_status, 'OUT_OF_DATE')

    // Redeployed, it runs as configured now.
    const again = await calls.trigger(`/helm/${helm.id}/redeploy`, tokens.deploy.authorization)
    await calls.waitUntilIdle(environment.id, auth)
    assert.equal(await status(), 'UP_TO_DATE')
    assert.equal((await calls.environmentStatus(environment.id, auth)).deployment_status, 'UP_TO_DATE')
    const [next] = await calls.entries(environment.id, auth)
    assert.deepEqual([next!.identifier.execution_id, next!.trigger_action, next!.status], [again.execution_id, 'RESTART', 'RESTARTED'])
    assert.equal(next!.stages[0]!.services[0]!.identifier.name, 'front-renamed')
    assert.deepEqual(next!.stages[0]!.services[0]!.details, { repository: { chart_name: 'web', chart_version: '2.0.0' } })
  })

  it('is OUT_OF_DATE after an edit of the name or of the configuration, and UP_TO_DATE after an edit that changes nothing', async () => {
    const { repository, edit, status, deployAndWait } = await setUp()
    assert.equal(await status(), 'NEVER_DEPLOYED')
    await deployAndWait()
    assert.equal(await status(), 'UP_TO_DATE')

    // The same request again: a new version of the service, the same configuration.
    await edit(helmRequest(repository.id, 'front', '1.0.0'))
    assert.equal(await status(), 'UP_TO_DATE', 'an edit that changes nothing leaves the service up to date')

    await edit(helmRequest(repository.id, 'front', '1.0.0', { values_override: { set: [['replicas', '3']] } }))
    assert.equal(await status(), 'OUT_OF_DATE', 'another value')
    await edit(helmRequest(repository.id, 'front', '1.0.0'))
    assert.equal(await status(), 'UP_TO_DATE', 'changed back, it is what was deployed again')

    await edit(helmRequest(repository.id, 'Front', '1.0.0'))
    assert.equal(await status(), 'OUT_OF_DATE', 'another name: another release')
    await deployAndWait()
    assert.equal(await status(), 'UP_TO_DATE')
  })

  it('a deploy of another chart_version leaves the configuration as it was, and the service OUT_OF_DATE: what runs differs from it', async () => {
    const { environment, tokens, status, deployAndWait, helm } = await setUp()
    await deployAndWait({ chart_version: '2.0.0' })
    const [entry] = await calls.entries(environment.id, tokens.read.authorization)
    assert.deepEqual(entry!.stages[0]!.services[0]!.details, { repository: { chart_name: 'web', chart_version: '2.0.0' } })
    assert.equal(
      ((await calls.inject('GET', `/helm/${helm.id}`, tokens.read.authorization)).json() as { source: { repository: { chart_version: string } } })
        .source.repository.chart_version,
      '1.0.0',
      'the configuration still says 1.0.0',
    )
    // The version a deploy request named is compared with the configured one (issue 42, docs/deployments.md).
    assert.equal(await status(), 'OUT_OF_DATE')
  })
})
