import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { sql } from 'kysely'
import pg from 'pg'
import { INTERRUPTED } from '#src/modules/deployments/queue/deployment-progress.ts'
import type { Db } from '#src/platform/db/database.ts'
import {
  assertNoSecretsInLogs,
  baseEnv,
  call,
  entryOf,
  historyPage,
  logLines,
  processScenario,
  UNFINISHED,
  warnings,
} from './helpers/berth-processes.ts'
import { until } from './helpers/deployments.ts'
import { factories } from './helpers/factories.ts'
import { startServer, startWorker } from './helpers/process.ts'

// Real `berth serve` and `berth worker` processes sharing one PostgreSQL database: a runner killed
// mid-run (interrupted, the queue goes on), the runner taking over killed too, and one stopped
// gently (handed back, resumed). Many runners under many triggers: resilience-load.test.ts.

/** An environment with helm services and tokens, made directly in the database. */
async function environmentWithHelms(db: Db, count: number) {
  const make = factories(db)
  const { environment, tokens } = await make.environmentWithTokens()
  const helmIds: string[] = []
  for (let i = 0; i < count; i++) helmIds.push((await make.helmService(environment.id)).id)
  return { environmentId: environment.id, tokens, helmIds }
}

/** The tokens' values and Authorization headers: what must never be logged. */
const credentials = (tokens: Record<string, { token: string; authorization: string }>) =>
  Object.values(tokens).flatMap((token) => [token.token, token.authorization])

describe('a worker killed in the middle of a deployment', () => {
  const scenario = processScenario()
  const { group } = scenario

  it('ends its deployment as interrupted once the lease expires, and the queue goes on with the next runner', async () => {
    const api = await group.add(startServer(baseEnv(scenario.database, { BERTH_RUNNER_IN_SERVE: 'false' })))
    const workerEnv = baseEnv(scenario.database, { BERTH_SIMULATED_STEP_MS: '3000', BERTH_RUNNER_LEASE_MS: '1500' })
    const doomed = await group.add(startWorker(workerEnv))
    const { environmentId, tokens, helmIds } = await environmentWithHelms(scenario.db, 2)
    const deploy = tokens.deploy.authorization
    const read = tokens.read.authorization

    const first = await call(api.baseUrl, 'POST', `/environment/${environmentId}/deploy`, deploy)
    assert.equal(first.status, 202, JSON.stringify(first.body))
    const firstId = first.body.execution_id as string
    // Its services under way (the run starts before its stage: a kill in between would skip them).
    await until(
      () => entryOf(api.baseUrl, environmentId, read, firstId),
      (entry) => entry?.stages[0]?.status === 'ONGOING',
      { what: 'the first deployment running its stage', timeoutMs: 20_000, intervalMs: 40 },
    )

    assert.equal(await doomed.stop('SIGKILL'), null)
    const second = await call(api.baseUrl, 'POST', `/environment/${environmentId}/deploy`, deploy)
    assert.equal(second.status, 202, JSON.stringify(second.body))
    assert.equal(second.body.state, 'DEPLOYMENT_QUEUED')
    assert.equal(second.body.deployment_requests_count, 2, 'queued behind the deployment of the dead worker')
    const secondId = second.body.execution_id as string

    const rescuer = await group.add(startWorker({ ...workerEnv, BERTH_SIMULATED_STEP_MS: '300' }))
    const secondEntry = await until(
      () => entryOf(api.baseUrl, environmentId, read, secondId),
      (entry) => entry !== undefined && !UNFINISHED.includes(entry.action_status),
      { what: 'the second deployment finished', timeoutMs: 20_000, intervalMs: 40 },
    )
    assert.equal(secondEntry!.status, 'DEPLOYED', JSON.stringify(secondEntry))
    assert.equal(secondEntry!.action_status, 'SUCCESS')

    const firstEntry = (await entryOf(api.baseUrl, environmentId, read, firstId))!
    assert.equal(firstEntry.status, 'DEPLOYMENT_ERROR', JSON.stringify(firstEntry))
    assert.equal(firstEntry.action_status, 'ERROR')
    // The entry says what happened without naming hosts or processes; the database keeps the holder.
    assert.equal(firstEntry.message, INTERRUPTED)
    assert.ok(!JSON.stringify(firstEntry).includes(doomed.runnerId), 'the entry does not name the runner')
    assert.deepEqual(
      firstEntry.stages.map((stage) => [stage.name, stage.status]),
      [['HELM DEFAULT', 'ERROR']],
    )
    for (const service of firstEntry.stages[0]!.services) {
      // Both were running when the worker died.
      assert.equal(service.status, 'DEPLOYMENT_ERROR')
      assert.equal(service.status_details.status, 'ERROR')
      assert.equal(service.message, INTERRUPTED)
    }

    const rows = await scenario.db.selectFrom('deploymentRequests').selectAll().where('environmentId', '=', environmentId).orderBy('seq').execute()
    assert.deepEqual(
      rows.map((row) => [row.id, row.actionStatus]),
      [
        [firstId, 'ERROR'],
        [secondId, 'SUCCESS'],
      ],
    )
    assert.ok(rows[0]!.endedAt! <= rows[1]!.startedAt!, 'the second deployment started after the first was ended')
    // The interrupted run keeps the runner that was lost as its holder; the rescuer's claim ended it.
    assert.equal(rows[0]!.leaseOwner, doomed.runnerId)
    assert.equal(rows[0]!.claims, 2)
    assert.equal(rows[1]!.leaseOwner, rescuer.runnerId)
    assert.equal(rows[1]!.claims, 1)

    // The services' own histories say the same.
    for (const helmId of helmIds) {
      const { status, body } = await call(api.baseUrl, 'GET', `/helm/${helmId}/deploymentHistoryV2`, read)
      assert.equal(status, 200)
      assert.deepEqual(
        (body.results as { status: string; identifier: { execution_id: string } }[]).map((entry) => [entry.identifier.execution_id, entry.status]),
        [
          [secondId, 'DEPLOYED'],
          [firstId, 'DEPLOYMENT_ERROR'],
        ],
      )
      const helmStatus = await call(api.baseUrl, 'GET', `/helm/${helmId}/status`, read)
      assert.equal(helmStatus.body.state, 'DEPLOYED')
    }
    const environmentStatus = await call(api.baseUrl, 'GET', `/environment/${environmentId}/status`, read)
    assert.equal(environmentStatus.body.state, 'DEPLOYED')
    assert.equal(environmentStatus.body.last_deployment_id, secondId)

    assert.ok(
      logLines(rescuer).some((line) => line.msg === 'ended a deployment whose runner was lost' && line.executionId === firstId),
      rescuer.logs(),
    )
    assert.equal(await rescuer.stop('SIGTERM', 15_000), 0, rescuer.logs())
    assert.equal(await api.stop('SIGTERM', 15_000), 0, api.logs())
    assertNoSecretsInLogs([api, doomed, rescuer], credentials(tokens))
  })
})

describe('a deployment whose runner is killed, then the runner taking it over, then the next', () => {
  const scenario = processScenario()
  const { group } = scenario

  const runOf = (id: string) => scenario.db.selectFrom('deploymentRequests').selectAll().where('id', '=', id).executeTakeFirstOrThrow()

  it('loses nothing: the takeover killed mid-claim leaves no trace, the next ends the run, and the queue behind it reaches its end in order', async () => {
    const api = await group.add(startServer(baseEnv(scenario.database, { BERTH_RUNNER_IN_SERVE: 'false' })))
    const workerEnv = baseEnv(scenario.database, { BERTH_SIMULATED_STEP_MS: '3000', BERTH_RUNNER_LEASE_MS: '1500' })
    const first = await group.add(startWorker(workerEnv))
    const { environmentId, tokens } = await environmentWithHelms(scenario.db, 2)
    const deploy = tokens.deploy.authorization
    const read = tokens.read.authorization

    // Three runs queued one behind the other.
    const ids: string[] = []
    for (const action of ['deploy', 'redeploy', 'deploy']) {
      const answer = await call(api.baseUrl, 'POST', `/environment/${environmentId}/${action}`, deploy)
      assert.equal(answer.status, 202, answer.text)
      if (action === 'deploy') ids.push(answer.body.execution_id as string)
      else ids.push((await historyPage(api.baseUrl, environmentId, read, { pageSize: '1' })).results[0]!.identifier.execution_id)
    }
    const [a, b, c] = ids as [string, string, string]
    await until(
      () => entryOf(api.baseUrl, environmentId, read, a),
      (entry) => entry?.stages[0]?.status === 'ONGOING',
      { what: 'the first run under way', timeoutMs: 20_000, intervalMs: 40 },
    )
    assert.equal((await runOf(a)).leaseOwner, first.runnerId)

    // 1. The runner of the first run dies.
    assert.equal(await first.stop('SIGKILL'), null)

    // 2. The next runner takes it over once its lease expired, and dies in the middle of doing so:
    // the test holds the rows its claim writes after locking the run, so that the claim waits,
    // inside its transaction, until the runner is killed there.
    const lock = new pg.Client({ connectionString: scenario.database.url })
    await lock.connect()
    let blockedPid: number
    try {
      await lock.query('begin')
      await lock.query('select 1 from service_deployments where execution_id = $1 for update', [a])
      const lockPid = (await lock.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid
      const second = await group.add(startWorker(workerEnv))
      // Asked outside the test's transaction, which would see the activity as it was when it began.
      const [blocked] = await until(
        async () =>
          (
            await sql<{ pid: number; query: string }>`select pid, query from pg_stat_activity where ${lockPid} = any(pg_blocking_pids(pid))`.execute(
              scenario.db,
            )
          ).rows,
        // The activity is read a moment before who blocks whom: the statement must be seen waiting.
        (rows) => rows.length === 1 && /^insert into "service_deployments"/i.test(rows[0]!.query),
        { what: "the second runner's claim waiting inside its transaction, writing the run's entries", timeoutMs: 20_000, intervalMs: 40 },
      )
      blockedPid = blocked!.pid
      assert.equal(await second.stop('SIGKILL'), null)
    } finally {
      await lock.query('rollback').catch(() => {})
      await lock.end()
    }
    // PostgreSQL rolls the dead runner's transaction back: the takeover changed nothing.
    await until(
      async () => (await sql`select pid from pg_stat_activity where pid = ${blockedPid}`.execute(scenario.db)).rows.length,
      (count) => count === 0,
      { what: "the killed runner's session gone", timeoutMs: 20_000 },
    )
    const untouched = await runOf(a)
    assert.equal(untouched.actionStatus, 'ONGOING')
    assert.equal(untouched.leaseOwner, first.runnerId, 'still held by the first runner, as far as the database knows')
    assert.equal(untouched.claims, 1)

    // 3. A third runner ends the first run as interrupted, claims the second, and dies right after.
    const third = await group.add(startWorker(workerEnv))
    await until(
      () => runOf(b),
      (row) => row.leaseOwner === third.runnerId,
      { what: 'the second run claimed by the third runner', timeoutMs: 20_000, intervalMs: 20 },
    )
    assert.equal(await third.stop('SIGKILL'), null)
    const interrupted = await runOf(a)
    assert.equal(interrupted.actionStatus, 'ERROR')
    assert.equal(interrupted.message, INTERRUPTED)

    // 4. A fourth runner ends that one too, and runs the last to its end.
    const fourth = await group.add(startWorker({ ...workerEnv, BERTH_SIMULATED_STEP_MS: '200' }))
    const rows = await until(
      () => scenario.db.selectFrom('deploymentRequests').selectAll().where('environmentId', '=', environmentId).orderBy('seq').execute(),
      (list) => list.every((row) => !UNFINISHED.includes(row.actionStatus)),
      { what: 'every run ended', timeoutMs: 30_000, intervalMs: 50 },
    )
    assert.deepEqual(
      rows.map((row) => [row.id, row.actionStatus, row.message, row.claims, row.leaseOwner]),
      [
        [a, 'ERROR', INTERRUPTED, 2, first.runnerId],
        [b, 'ERROR', INTERRUPTED, 2, third.runnerId],
        [c, 'SUCCESS', null, 1, fourth.runnerId],
      ],
      'each lost run ended by the claim after its runner died; the killed takeover counted no claim',
    )
    assert.deepEqual(
      rows.map((row) => row.status),
      ['DEPLOYMENT_ERROR', 'RESTART_ERROR', 'DEPLOYED'],
    )
    for (const [i, row] of rows.entries()) {
      const previous = rows[i - 1]
      assert.equal(row.leaseExpiresAt, null)
      if (!previous) continue
      assert.ok(previous.endedAt! <= row.endedAt!, `run ${row.seq} ended before run ${previous.seq}`)
      // The second run may have been killed with its claim, before it started: then it never did.
      if (row.startedAt) assert.ok(previous.endedAt! <= row.startedAt, `run ${row.seq} started before run ${previous.seq} ended`)
    }

    const history = await historyPage(api.baseUrl, environmentId, read)
    assert.deepEqual(
      history.results.map((entry) => [entry.identifier.execution_id, entry.action_status, entry.status]),
      [
        [c, 'SUCCESS', 'DEPLOYED'],
        [b, 'ERROR', 'RESTART_ERROR'],
        [a, 'ERROR', 'DEPLOYMENT_ERROR'],
      ],
    )
    const lostEnded = (running: typeof third, id: string) =>
      logLines(running).some((line) => line.msg === 'ended a deployment whose runner was lost' && line.executionId === id)
    assert.ok(lostEnded(third, a), third.logs())
    assert.ok(lostEnded(fourth, b), fourth.logs())
    assert.equal(await fourth.stop('SIGTERM', 15_000), 0, fourth.logs())
    assert.equal(await api.stop('SIGTERM', 15_000), 0, api.logs())
    assert.deepEqual(warnings(api), [])
    assertNoSecretsInLogs(group.started, credentials(tokens))
  })
})

describe('a worker stopped with SIGTERM in the middle of a deployment', () => {
  const scenario = processScenario()
  const { group } = scenario

  it('hands the deployment back at once, and another worker resumes it to the end', async () => {
    const api = await group.add(startServer(baseEnv(scenario.database, { BERTH_RUNNER_IN_SERVE: 'false' })))
    // A step far longer than the stop may take: the worker must abort it, not wait for it.
    const leaving = await group.add(startWorker(baseEnv(scenario.database, { BERTH_SIMULATED_STEP_MS: '60000', BERTH_RUNNER_LEASE_MS: '30000' })))
    const { environmentId, tokens } = await environmentWithHelms(scenario.db, 2)
    const read = tokens.read.authorization

    const deployed = await call(api.baseUrl, 'POST', `/environment/${environmentId}/deploy`, tokens.deploy.authorization)
    assert.equal(deployed.status, 202, JSON.stringify(deployed.body))
    const executionId = deployed.body.execution_id as string
    await until(
      () => entryOf(api.baseUrl, environmentId, read, executionId),
      (entry) => entry?.stages[0]?.status === 'ONGOING',
      { what: 'the deployment running its stage', timeoutMs: 20_000, intervalMs: 40 },
    )

    assert.equal(await leaving.stop('SIGTERM', 10_000), 0, leaving.logs())
    assert.equal(logLines(leaving).at(-1)?.msg, 'stopped', leaving.logs())
    const handedBack = await scenario.db.selectFrom('deploymentRequests').selectAll().where('id', '=', executionId).executeTakeFirstOrThrow()
    assert.equal(handedBack.actionStatus, 'ONGOING', 'handed back unfinished')
    assert.equal(handedBack.leaseOwner, null, 'handed back: no runner holds it')
    assert.equal(handedBack.leaseExpiresAt, null)
    assert.equal(handedBack.claims, 1)
    const pausedEntry = await entryOf(api.baseUrl, environmentId, read, executionId)
    assert.equal(pausedEntry?.status, 'DEPLOYING')

    const resuming = await group.add(startWorker(baseEnv(scenario.database, { BERTH_SIMULATED_STEP_MS: '300', BERTH_RUNNER_LEASE_MS: '30000' })))
    const entry = (await until(
      () => entryOf(api.baseUrl, environmentId, read, executionId),
      (found) => found !== undefined && !UNFINISHED.includes(found.action_status),
      { what: 'the deployment finished', timeoutMs: 20_000, intervalMs: 40 },
    ))!
    assert.equal(entry.status, 'DEPLOYED', JSON.stringify(entry))
    assert.equal(entry.action_status, 'SUCCESS')
    assert.equal(entry.message, null)
    assert.deepEqual(
      entry.stages.map((stage) => [stage.name, stage.status]),
      [['HELM DEFAULT', 'DONE']],
    )
    for (const service of entry.stages[0]!.services) {
      assert.equal(service.status, 'DEPLOYED')
      assert.equal(service.status_details.status, 'SUCCESS')
      assert.equal(service.message, null)
    }

    const row = await scenario.db.selectFrom('deploymentRequests').selectAll().where('id', '=', executionId).executeTakeFirstOrThrow()
    assert.equal(row.claims, 2, 'claimed by the worker that left, then by the one that resumed it')
    assert.equal(row.leaseOwner, resuming.runnerId)
    assert.equal(row.startedAt?.getTime(), handedBack.startedAt?.getTime(), 'resumed, not started again')
    const services = await scenario.db.selectFrom('serviceDeployments').select('actionStatus').where('executionId', '=', executionId).execute()
    assert.deepEqual(
      services.map((service) => service.actionStatus),
      ['SUCCESS', 'SUCCESS'],
    )
    assert.deepEqual(warnings(resuming), [], 'the resuming worker found nothing lost')
    assert.equal(await resuming.stop('SIGTERM', 15_000), 0, resuming.logs())
    assert.equal(await api.stop('SIGTERM', 15_000), 0, api.logs())
    assertNoSecretsInLogs([api, leaving, resuming], credentials(tokens))
  })
})
