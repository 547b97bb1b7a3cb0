/**
 * Issue 42, item 5: one organization cannot hold everyone's deployments. Runners that share the
 * queue (one, then two as two Berth processes would, on one PostgreSQL database) give no
 * organization more than its share of their slots: while four slow runs of organization X wait for
 * slots, organization Y's redeploy is claimed at once. And every run ends within
 * BERTH_RUNNER_MAX_RUN_MS, whatever its services' own timeouts. Asserted on what runs and what
 * waits, never on durations.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createDeploymentRunner, type DeploymentRunner } from '#src/modules/deployments/runner/deployment-runner.ts'
import { createDeploymentRunsRepository } from '#src/modules/deployments/runner/deployment-runs.repository.ts'
import type { DeploymentExecutor, ExecutedService } from '#src/modules/executors/executor.ts'
import { KINDS } from '#src/modules/services/kinds/registry.ts'
import { createTestApp, type TestApp } from './helpers/app.ts'
import { deploymentCalls, until } from './helpers/deployments.ts'
import { factories } from './helpers/factories.ts'
import { createIsolatedDatabase, type IsolatedDatabase } from './helpers/isolated-database.ts'

/** An executor whose runs last until the test releases them, or until their signal aborts. */
function heldExecutor() {
  const started: string[] = []
  const waiting = new Map<string, () => void>()
  const executor: DeploymentExecutor = {
    run(service: ExecutedService, _action, signal) {
      started.push(service.id)
      return new Promise((resolve) => {
        waiting.set(service.id, () => resolve({ ok: true }))
        signal.addEventListener('abort', () => resolve({ ok: false, message: 'stopped' }), { once: true })
      })
    },
  }
  return {
    executor,
    started,
    releaseAll() {
      for (const release of waiting.values()) release()
      waiting.clear()
    },
  }
}

describe('the runner shared fairly between organizations (issue 42)', () => {
  let database: IsolatedDatabase
  let app: TestApp
  let f: ReturnType<typeof factories>
  const runners: DeploymentRunner[] = []

  before(async () => {
    database = await createIsolatedDatabase()
    // No runner in the app: the test's runners are the only ones on its database.
    app = await createTestApp({ DATABASE_URL: database.url })
    f = factories(app.db)
  })
  after(async () => {
    for (const runner of runners) await runner.stop()
    await app?.close()
    await database?.drop()
  })

  function runner(executor: DeploymentExecutor, options: { concurrency: number; maxRunMs?: number }) {
    const made = createDeploymentRunner({
      kinds: KINDS,
      runs: createDeploymentRunsRepository(app.db),
      executor,
      options: { leaseMs: 5_000, pollMs: 20, cancelMs: 10, ...options },
      log: { info() {}, warn() {} },
    })
    runners.push(made)
    made.start()
    return made
  }

  /** An organization with `count` environments of one helm service each, every one's deploy queued. */
  async function queuedDeploys(count: number) {
    const { organization, tokens } = await f.organizationWithTokens()
    const project = await f.project(organization.id)
    const environmentIds: string[] = []
    for (let i = 0; i < count; i++) {
      const environment = await f.environment(project.id)
      await f.helmService(environment.id)
      environmentIds.push(environment.id)
    }
    for (const environmentId of environmentIds) {
      await deploymentCalls(app.app).trigger(`/environment/${environmentId}/deploy`, tokens.deploy.authorization)
    }
    return { organizationId: organization.id, environmentIds }
  }

  const statesOf = (organizationId: string) =>
    app.db
      .selectFrom('deploymentRequests')
      .select(['actionStatus', 'leaseOwner', 'status', 'message'])
      .where('organizationId', '=', organizationId)
      .execute()
  const count = (rows: { actionStatus: string }[], actionStatus: string) => rows.filter((row) => row.actionStatus === actionStatus).length

  async function stopAll() {
    while (runners.length > 0) await runners.pop()!.stop()
  }

  it("one runner of four slots: X's four slow runs take two; Y's redeploy is claimed while they hold them", async () => {
    const held = heldExecutor()
    const x = await queuedDeploys(4)
    runner(held.executor, { concurrency: 4 })
    await until(
      () => statesOf(x.organizationId),
      (rows) => count(rows, 'ONGOING') === 2,
      { what: "two of X's runs running" },
    )
    const y = await queuedDeploys(1)
    const yRows = await until(
      () => statesOf(y.organizationId),
      (rows) => count(rows, 'ONGOING') === 1,
      { what: "Y's redeploy claimed" },
    )
    assert.equal(yRows.length, 1)
    // X still holds two slots, and its two others still wait though a slot is free: its share is two.
    const xRows = await statesOf(x.organizationId)
    assert.equal(count(xRows, 'ONGOING'), 2, JSON.stringify(xRows))
    assert.equal(count(xRows, 'QUEUED'), 2, JSON.stringify(xRows))
    assert.ok(xRows.filter((row) => row.actionStatus === 'QUEUED').every((row) => row.leaseOwner === null))
    // Released as they start, every run ends: the share only holds back while it is full.
    const releasing = setInterval(() => held.releaseAll(), 20)
    try {
      await until(
        async () => [...(await statesOf(x.organizationId)), ...(await statesOf(y.organizationId))],
        (rows) => rows.every((row) => row.actionStatus === 'SUCCESS'),
        { what: 'every run finished', timeoutMs: 20_000, intervalMs: 50 },
      )
    } finally {
      clearInterval(releasing)
    }
    await stopAll()
  })

  it('two runners (two Berth processes) on one database: each gives X one of its two slots; Y is claimed at once', async () => {
    const held = heldExecutor()
    const x = await queuedDeploys(4)
    runner(held.executor, { concurrency: 2 })
    runner(held.executor, { concurrency: 2 })
    await until(
      () => statesOf(x.organizationId),
      (rows) => count(rows, 'ONGOING') === 2,
      { what: "two of X's runs running" },
    )
    const y = await queuedDeploys(1)
    await until(
      () => statesOf(y.organizationId),
      (rows) => count(rows, 'ONGOING') === 1,
      { what: "Y's redeploy claimed" },
    )
    const xRows = await statesOf(x.organizationId)
    assert.equal(count(xRows, 'ONGOING'), 2, JSON.stringify(xRows))
    assert.equal(new Set(xRows.filter((row) => row.actionStatus === 'ONGOING').map((row) => row.leaseOwner)).size, 2, 'one on each runner')
    assert.equal(count(xRows, 'QUEUED'), 2)
    const releasing = setInterval(() => held.releaseAll(), 20)
    try {
      await until(
        async () => [...(await statesOf(x.organizationId)), ...(await statesOf(y.organizationId))],
        (rows) => rows.every((row) => row.actionStatus === 'SUCCESS'),
        { what: 'every run finished', timeoutMs: 20_000, intervalMs: 50 },
      )
    } finally {
      clearInterval(releasing)
    }
    await stopAll()
  })

  it('a run longer than BERTH_RUNNER_MAX_RUN_MS fails with what runs stopped, and frees its slot', async () => {
    const held = heldExecutor()
    const x = await queuedDeploys(1)
    runner(held.executor, { concurrency: 1, maxRunMs: 1_000 })
    const [ended] = await until(
      () => statesOf(x.organizationId),
      (rows) => rows[0]?.actionStatus === 'ERROR',
      { what: 'the run failed for its time', timeoutMs: 15_000 },
    )
    assert.equal(ended?.status, 'DEPLOYMENT_ERROR')
    assert.match(ended?.message ?? '', /BERTH_RUNNER_MAX_RUN_MS/)
    // The slot is free: the next run is claimed (and released at once).
    const releasing = setInterval(() => held.releaseAll(), 20)
    try {
      const next = await queuedDeploys(1)
      await until(
        () => statesOf(next.organizationId),
        (rows) => rows[0]?.actionStatus === 'SUCCESS',
        { what: 'the next run ran' },
      )
    } finally {
      clearInterval(releasing)
    }
    const lines = await app.db.selectFrom('deploymentLogs').select(['step', 'message']).where('organizationId', '=', x.organizationId).execute()
    assert.ok(
      lines.some((line) => line.step === 'timeout' && /BERTH_RUNNER_MAX_RUN_MS/.test(line.message)),
      JSON.stringify(lines),
    )
    await stopAll()
  })
})
