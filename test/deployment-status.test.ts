import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { createDeploymentRunsRepository } from '#src/modules/deployments/deployment-runs.repository.ts'
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

  it('counts, in a helm Status, the deployments queued for that service, not for the whole environment', async () => {
    const calls = deploymentCalls(t.app)
    const make = factories(t.db)
    const { environment, tokens } = await make.environmentWithTokens()
    const [a, b] = [await make.helmService(environment.id), await make.helmService(environment.id)]
    const auth = tokens.deploy.authorization
    assert.equal((await calls.trigger(`/helm/${a.id}/deploy`, auth)).deployment_requests_count, 1)
    assert.equal((await calls.trigger(`/helm/${a.id}/redeploy`, auth)).deployment_requests_count, 2)
    assert.equal((await calls.trigger(`/helm/${b.id}/deploy`, auth)).deployment_requests_count, 1, 'the two runs of A are not B’s')
    assert.equal((await calls.helmStatus(a.id, auth)).deployment_requests_count, 2)
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
