import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { sql } from 'kysely'
import { MISSED_TICK_GRACE_MS, SCHEDULER_ACTOR } from '#src/modules/deployments/runner/cron-firing.ts'
import type { Db } from '#src/platform/db/database.ts'
import { baseEnv, call, processScenario, UNFINISHED } from './helpers/berth-processes.ts'
import { createDeploymentsApp, type DeploymentCalls, type DeploymentsTestApp, deploymentCalls, until } from './helpers/deployments.ts'
import { factories } from './helpers/factories.ts'
import { startServer, startWorker } from './helpers/process.ts'

// The durable cron scheduler: a deployed cron job runs on its schedule, each tick once, as runs of
// origin PLATFORM_INTERNAL; stopping it stops them; ticks missed while no runner ran fold into one
// catch-up run; an edit reschedules; and two worker processes, one restarted, neither double nor
// lose a tick. Schedules of six fields (seconds first, a Berth extension) keep the tests short.

const EVERY_SECOND = '* * * * * *'

interface Tick {
  executionId: string
  scheduledFor: string
  catchUp: boolean
  actionStatus: string
  triggeredBy: string
}

/** The runs the scheduler queued for the job, oldest first, with the tick each is for. */
async function ticksOf(db: Db, jobId: string): Promise<Tick[]> {
  const rows = await db
    .selectFrom('deploymentRequests as r')
    .innerJoin('deploymentSnapshots as s', 's.executionId', 'r.id')
    .select(['r.id', 'r.actionStatus', 'r.triggeredBy', 's.overrides'])
    .where('s.serviceId', '=', jobId)
    .where('r.origin', '=', 'PLATFORM_INTERNAL')
    .orderBy('r.seq')
    .execute()
  return rows.map((row) => {
    const overrides = row.overrides as { scheduledFor: string; catchUp?: boolean }
    return {
      executionId: row.id,
      scheduledFor: overrides.scheduledFor,
      catchUp: overrides.catchUp === true,
      actionStatus: row.actionStatus,
      triggeredBy: row.triggeredBy,
    }
  })
}

/** Each tick once, and every second from the first to the last: none doubled, none lost. */
function assertEverySecondOnce(ticks: Tick[]): void {
  const seconds = ticks.map((tick) => Date.parse(tick.scheduledFor))
  assert.equal(new Set(seconds).size, seconds.length, `a tick was run twice: ${JSON.stringify(ticks.map((tick) => tick.scheduledFor))}`)
  const sorted = [...seconds].sort((a, b) => a - b)
  for (let i = 1; i < sorted.length; i++) {
    assert.equal(
      sorted[i]! - sorted[i - 1]!,
      1000,
      `a tick was lost between ${new Date(sorted[i - 1]!).toISOString()} and ${new Date(sorted[i]!).toISOString()}`,
    )
  }
}

const scheduleOf = (db: Db, jobId: string) => db.selectFrom('cronJobSchedules').selectAll().where('serviceId', '=', jobId).executeTakeFirst()

describe('cron jobs in one process', () => {
  let t: DeploymentsTestApp
  let make: ReturnType<typeof factories>
  let calls: DeploymentCalls

  before(async () => {
    t = await createDeploymentsApp(20)
    make = factories(t.db)
    calls = deploymentCalls(t.app)
  })
  after(() => t?.close())

  it('runs a deployed cron job on each tick, once, as PLATFORM_INTERNAL runs, and stops when the job is stopped', async () => {
    const { environment, tokens } = await make.environmentWithTokens()
    const job = await make.job(environment.id, { schedule: { cronjob: { scheduled_at: EVERY_SECOND, arguments: ['tick'] } } })
    assert.equal(await scheduleOf(t.db, job.id), undefined, 'not scheduled before it is deployed')
    await calls.trigger(`/job/${job.id}/deploy`, tokens.deploy.authorization)
    await until(
      () => ticksOf(t.db, job.id),
      (ticks) => ticks.filter((tick) => tick.actionStatus === 'SUCCESS').length >= 3,
      { what: 'three ticks run', timeoutMs: 20_000 },
    )

    const history = await calls.inject('GET', `/job/${job.id}/deploymentHistoryV2?pageSize=100`, tokens.read.authorization)
    const internal = history
      .json()
      .results.filter((entry: { auditing_data: { origin: string } }) => entry.auditing_data.origin === 'PLATFORM_INTERNAL')
    assert.ok(internal.length >= 3)
    assert.equal(internal[0].auditing_data.triggered_by, SCHEDULER_ACTOR)
    assert.equal(internal[0].details.job_type, 'CRON')

    await calls.trigger(`/job/${job.id}/stop`, tokens.deploy.authorization)
    await calls.waitUntilIdle(environment.id, tokens.read.authorization)
    assert.equal(await scheduleOf(t.db, job.id), undefined, 'a stopped job is not scheduled')
    const atStop = (await ticksOf(t.db, job.id)).length
    // Two more seconds: a tick would be queued in either if the job were still scheduled.
    await sleep(2_200)
    const ticks = await ticksOf(t.db, job.id)
    assert.equal(ticks.length, atStop, 'no run after the stop')
    assertEverySecondOnce(ticks)
    assert.ok(ticks.every((tick) => !tick.catchUp))
    const status = await calls.inject('GET', `/job/${job.id}/status`, tokens.read.authorization)
    assert.equal(status.json().state, 'STOPPED')
  })

  it('folds ticks missed while no runner ran into one catch-up run, then goes on from now', async () => {
    const { environment, tokens } = await make.environmentWithTokens()
    const job = await make.job(environment.id, { schedule: { cronjob: { scheduled_at: '* * * * *' } } })
    await calls.trigger(`/job/${job.id}/deploy`, tokens.deploy.authorization)
    await calls.waitUntilIdle(environment.id, tokens.read.authorization)
    // As if every runner had been down for ten minutes.
    const missedSince = new Date(Math.floor(Date.now() / 60_000) * 60_000 - 10 * 60_000)
    await t.db.updateTable('cronJobSchedules').set({ nextFireAt: missedSince }).where('serviceId', '=', job.id).execute()
    const [tick] = await until(
      () => ticksOf(t.db, job.id),
      (ticks) => ticks.length > 0,
      { what: 'the catch-up run', timeoutMs: 20_000 },
    )
    assert.equal(tick!.scheduledFor, missedSince.toISOString())
    assert.equal(tick!.catchUp, true)
    const schedule = (await scheduleOf(t.db, job.id))!
    const { rows } = await sql<{ now: Date }>`select now() as now`.execute(t.db)
    assert.ok(schedule.nextFireAt > rows[0]!.now, 'the schedule goes on from now, not from the missed ticks')
    assert.equal(schedule.fired, 1)
    assert.equal((await ticksOf(t.db, job.id)).length, 1, `one run for ten missed ticks (older than ${MISSED_TICK_GRACE_MS} ms)`)
  })

  it('reschedules a scheduled cron job when its schedule is edited, and unschedules it when it becomes a lifecycle job', async () => {
    const { environment, tokens } = await make.environmentWithTokens()
    const job = await make.job(environment.id, { schedule: { cronjob: { scheduled_at: '0 3 1 1 *' } } })
    await calls.trigger(`/job/${job.id}/deploy`, tokens.deploy.authorization)
    await calls.waitUntilIdle(environment.id, tokens.read.authorization)
    const before = (await scheduleOf(t.db, job.id))!
    assert.equal(before.scheduledAt, '0 3 1 1 *')

    const read = (await calls.inject('GET', `/job/${job.id}`, tokens.read.authorization)).json()
    const body = {
      name: read.name,
      healthchecks: {},
      source: { image: { image_name: read.source.image.image_name, tag: read.source.image.tag, registry_id: read.source.image.registry_id } },
      schedule: { cronjob: { scheduled_at: '*/5 * * * *', timezone: 'Asia/Tokyo' } },
    }
    assert.equal((await calls.inject('PUT', `/job/${job.id}`, tokens.write.authorization, body)).statusCode, 200)
    const after = (await scheduleOf(t.db, job.id))!
    assert.equal(after.scheduledAt, '*/5 * * * *')
    assert.equal(after.timezone, 'Asia/Tokyo')
    assert.ok(after.nextFireAt < before.nextFireAt, 'fires by the new schedule')
    assert.equal(after.nextFireAt.getUTCMinutes() % 5, 0)

    const lifecycle = { ...body, schedule: { on_start: { arguments: [] } } }
    assert.equal((await calls.inject('PUT', `/job/${job.id}`, tokens.write.authorization, lifecycle)).statusCode, 200)
    assert.equal(await scheduleOf(t.db, job.id), undefined)
  })
})

describe('a cron job across two runner processes, one restarted', () => {
  const scenario = processScenario()
  const { group } = scenario

  it('runs every tick exactly once while the runners share the schedule and one of them restarts', async () => {
    // Two runner processes: the API's own runner and a worker, which is stopped and started again.
    const runnerEnv = baseEnv(scenario.database, { BERTH_SIMULATED_STEP_MS: '20', BERTH_RUNNER_LEASE_MS: '3000' })
    const [api, first] = await Promise.all([group.add(startServer(runnerEnv)), group.add(startWorker(runnerEnv))])
    const make = factories(scenario.db)
    const { environment, tokens } = await make.environmentWithTokens()
    const job = await make.job(environment.id, { schedule: { cronjob: { scheduled_at: EVERY_SECOND } } })
    const deployed = await call(api.baseUrl, 'POST', `/job/${job.id}/deploy`, tokens.deploy.authorization, { body: {} })
    assert.equal(deployed.status, 202, JSON.stringify(deployed.body))
    await until(
      () => ticksOf(scenario.db, job.id),
      (ticks) => ticks.length >= 3,
      { what: 'three ticks queued', timeoutMs: 30_000 },
    )

    assert.equal(await first.stop('SIGTERM', 15_000), 0, first.logs())
    const beforeRestart = (await ticksOf(scenario.db, job.id)).length
    const restarted = await group.add(startWorker(runnerEnv))
    await until(
      () => ticksOf(scenario.db, job.id),
      (ticks) => ticks.length >= beforeRestart + 3,
      { what: 'three more ticks after the restart', timeoutMs: 30_000 },
    )

    const stopped = await call(api.baseUrl, 'POST', `/job/${job.id}/stop`, tokens.deploy.authorization)
    assert.equal(stopped.status, 202, JSON.stringify(stopped.body))
    await until(
      () => scenario.db.selectFrom('deploymentRequests').select('actionStatus').where('environmentId', '=', environment.id).execute(),
      (rows) => rows.every((row) => !UNFINISHED.includes(row.actionStatus)),
      { what: 'every run finished', timeoutMs: 30_000 },
    )
    const ticks = await ticksOf(scenario.db, job.id)
    assertEverySecondOnce(ticks)
    assert.ok(ticks.every((tick) => tick.actionStatus === 'SUCCESS' || tick.actionStatus === 'ERROR'))
    assert.equal(await scheduleOf(scenario.db, job.id), undefined)

    assert.equal(await restarted.stop('SIGTERM', 15_000), 0, restarted.logs())
    assert.equal(await api.stop('SIGTERM', 15_000), 0, api.logs())
  })
})
