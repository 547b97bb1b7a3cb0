import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { createDeploymentRunsRepository } from '#src/modules/deployments/runner/deployment-runs.repository.ts'
import { createTestApp, type TestApp } from './helpers/app.ts'
import { createDeploymentsApp, type DeploymentsTestApp, deploymentCalls } from './helpers/deployments.ts'
import { factories } from './helpers/factories.ts'
import { createIsolatedDatabase } from './helpers/isolated-database.ts'

// Statuses and counts that depend on which deployments name which service, and lease fencing of a hand-back.

describe('deployment statuses without a runner', () => {
  // The shared test database has no runner: what is queued stays queued.
  let t: TestApp
  before(async () => {
    t = await createTestApp()
  })
  after(() => t.close())

  it('counts, in a helm Status, the deployments queued for that service, and names the first of them', async () => {
    const calls = deploymentCalls(t.app)
    const make = factories(t.db)
    const { environment, tokens } = await make.environmentWithTokens()
    const [a, b] = [await make.helmService(environment.id), await make.helmService(environment.id)]
    const auth = tokens.deploy.authorization
    assert.equal((await calls.trigger(`/helm/${b.id}/deploy`, auth)).deployment_requests_count, 1)
    const firstOfA = await calls.trigger(`/helm/${a.id}/deploy`, auth)
    assert.equal(firstOfA.deployment_requests_count, 1, 'B’s run is not A’s')
    assert.equal((await calls.trigger(`/helm/${a.id}/redeploy`, auth)).deployment_requests_count, 2)
    const statusOfA = await calls.helmStatus(a.id, auth)
    assert.equal(statusOfA.deployment_requests_count, 2)
    assert.equal(statusOfA.deployment_request_id, firstOfA.deployment_request_id, 'the first queued run that includes A, not the environment’s first')
    assert.equal((await calls.helmStatus(b.id, auth)).deployment_requests_count, 1)
    // The environment's own Status counts every run of the environment.
    assert.equal((await calls.trigger(`/environment/${environment.id}/deploy`, auth)).deployment_requests_count, 4)
  })
})

describe('deployment statuses with a runner', () => {
  let d: DeploymentsTestApp
  before(async () => {
    d = await createDeploymentsApp(50)
  })
  after(() => d.close())

  it('keeps an environment DEPLOYED when one of its services is stopped alone', async () => {
    const calls = deploymentCalls(d.app)
    const make = factories(d.db)
    const { environment, tokens } = await make.environmentWithTokens()
    const [a] = [await make.helmService(environment.id), await make.helmService(environment.id)]
    const auth = tokens.deploy.authorization
    await calls.trigger(`/environment/${environment.id}/deploy`, auth)
    await calls.waitUntilIdle(environment.id, auth)
    await calls.trigger(`/helm/${a!.id}/stop`, auth)
    await calls.waitUntilIdle(environment.id, auth)
    const status = await calls.environmentStatus(environment.id, auth)
    assert.equal(status.state, 'DEPLOYED', 'the environment as a whole is still deployed')
    assert.equal(status.last_deployment_state, 'STOPPED', 'its newest deployment stopped one service')
    assert.equal((await calls.helmStatus(a!.id, auth)).state, 'STOPPED')
  })

  it('says an environment without services is up to date once a deploy of it succeeded', async () => {
    const calls = deploymentCalls(d.app)
    const { environment, tokens } = await factories(d.db).environmentWithTokens()
    const auth = tokens.deploy.authorization
    assert.equal((await calls.environmentStatus(environment.id, auth)).deployment_status, 'NEVER_DEPLOYED')
    await calls.trigger(`/environment/${environment.id}/deploy`, auth)
    await calls.waitUntilIdle(environment.id, auth)
    const status = await calls.environmentStatus(environment.id, auth)
    assert.deepEqual([status.state, status.deployment_status], ['DEPLOYED', 'UP_TO_DATE'])
  })
})

describe('handing a run back', () => {
  it('is refused once the lease has expired: a stalled runner cannot turn an interrupted run into a resumed one', async () => {
    const database = await createIsolatedDatabase()
    const t = await createTestApp({ DATABASE_URL: database.url })
    try {
      const { environment, tokens } = await factories(t.db).environmentWithTokens()
      await deploymentCalls(t.app).trigger(`/environment/${environment.id}/deploy`, tokens.deploy.authorization)
      const runs = createDeploymentRunsRepository(t.db)
      const claimed = await runs.claim('stalled', 1000, () => assert.fail('nothing to interrupt'))
      assert.equal(claimed.kind, 'claimed')
      const runId = claimed.kind === 'claimed' ? claimed.stored.run.id : ''
      await sleep(1200)
      await runs.release(runId, 'stalled')
      const row = await t.db.selectFrom('deploymentRequests').select(['leaseOwner']).where('id', '=', runId).executeTakeFirstOrThrow()
      assert.equal(row.leaseOwner, 'stalled', 'the expired claim still marks the run as held by the lost runner')
      const next = await runs.claim('rescuer', 1000, (stored) => ({ ...stored.run, actionStatus: 'ERROR' }))
      assert.equal(next.kind, 'interrupted', 'the next claim ends it as interrupted')
    } finally {
      await t.close()
      await database.drop()
    }
  })
})

describe('environment state after deployments of single services', () => {
  let d: DeploymentsTestApp
  before(async () => {
    d = await createDeploymentsApp(30)
  })
  after(() => d.close())

  async function setUp(helmCount: number) {
    const make = factories(d.db)
    const { environment, tokens } = await make.environmentWithTokens()
    const helms = []
    for (let i = 0; i < helmCount; i++) helms.push(await make.helmService(environment.id))
    const calls = deploymentCalls(d.app)
    const auth = tokens.deploy.authorization
    const run = async (url: string) => {
      await calls.trigger(url, auth)
      await calls.waitUntilIdle(environment.id, auth)
    }
    return { environment, helms, calls, auth, run }
  }

  it('is DEPLOYED when one service of several, deployed one by one, is stopped', async () => {
    const { environment, helms, calls, auth, run } = await setUp(2)
    await run(`/helm/${helms[0]!.id}/deploy`)
    await run(`/helm/${helms[1]!.id}/deploy`)
    await run(`/helm/${helms[0]!.id}/stop`)
    assert.equal((await calls.environmentStatus(environment.id, auth)).state, 'DEPLOYED')
  })

  it('is DEPLOYED when, after the environment was stopped, its services are deployed one by one', async () => {
    const { environment, helms, calls, auth, run } = await setUp(2)
    await run(`/environment/${environment.id}/deploy`)
    await run(`/environment/${environment.id}/stop`)
    for (const helm of helms) await run(`/helm/${helm.id}/deploy`)
    assert.equal((await calls.environmentStatus(environment.id, auth)).state, 'DEPLOYED')
  })

  it('is STOPPED, and refuses another stop, when its only service was stopped alone', async () => {
    const { environment, helms, calls, auth, run } = await setUp(1)
    await run(`/environment/${environment.id}/deploy`)
    await run(`/helm/${helms[0]!.id}/stop`)
    assert.equal((await calls.environmentStatus(environment.id, auth)).state, 'STOPPED')
    const res = await d.app.inject({ method: 'POST', url: `/environment/${environment.id}/stop`, headers: { authorization: auth } })
    assert.equal(res.statusCode, 409, res.body)
  })
})
