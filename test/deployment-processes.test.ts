import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { type DeploymentRun, INTERRUPTED } from '#src/modules/deployments/deployment-progress.ts'
import { type Db, openDatabase } from '#src/platform/db/database.ts'
import { TEST_SECRET_KEY } from './helpers/app.ts'
import { factories } from './helpers/factories.ts'
import { createIsolatedDatabase, type IsolatedDatabase } from './helpers/isolated-database.ts'
import { type ChildEnv, type RunningProcess, type RunningServer, type RunningWorker, startServer, startWorker } from './helpers/process.ts'

// Real `berth serve` and `berth worker` processes sharing one PostgreSQL database: the deployment
// queue must run every request exactly once, one at a time per environment, survive a runner
// killed mid-run (interrupted, queue goes on) and one stopped gently (handed back, resumed).

const UNFINISHED = ['QUEUED', 'ONGOING', 'CANCELING']
const DONE_STATE: Record<string, string> = { DEPLOY: 'DEPLOYED', RESTART: 'RESTARTED', STOP: 'STOPPED', UNINSTALL: 'DELETED' }

// biome-ignore lint/suspicious/noExplicitAny: response bodies are read field by field
type Body = Record<string, any>

interface Entry {
  identifier: { execution_id: string; environment_id: string }
  status: string
  action_status: string
  trigger_action: string
  message: string | null
  stages: {
    name: string
    status: string
    services: { identifier: { service_id: string }; status: string; status_details: { status: string }; message: string | null }[]
  }[]
}

interface Page {
  page: number
  page_size: number
  results: Entry[]
  next_start_id: string | null
  has_more: boolean
}

/** Reads until `done` holds; fails with the last value read after `timeoutMs`. For waiting, never for timing. */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await read()
    if (done(value)) return value
    if (Date.now() > deadline) assert.fail(`${what} not reached within ${timeoutMs} ms; last read: ${JSON.stringify(value)?.slice(0, 3000)}`)
    await sleep(40)
  }
}

async function call(baseUrl: string, method: 'GET' | 'POST', path: string, authorization: string): Promise<{ status: number; body: Body }> {
  const res = await fetch(`${baseUrl}${path}`, { method, headers: { authorization } })
  const text = await res.text()
  return { status: res.status, body: text ? (JSON.parse(text) as Body) : {} }
}

async function historyPage(baseUrl: string, environmentId: string, authorization: string, query: Record<string, string> = {}): Promise<Page> {
  const search = new URLSearchParams(query).toString()
  const { status, body } = await call(baseUrl, 'GET', `/environment/${environmentId}/deploymentHistoryV2${search ? `?${search}` : ''}`, authorization)
  assert.equal(status, 200, JSON.stringify(body))
  return body as Page
}

/** The entry of one execution, read through the API. */
async function entryOf(baseUrl: string, environmentId: string, authorization: string, executionId: string): Promise<Entry | undefined> {
  const page = await historyPage(baseUrl, environmentId, authorization, { pageSize: '100' })
  return page.results.find((entry) => entry.identifier.execution_id === executionId)
}

/** The pid part of a runner id (`${hostname}/${pid}/${random}`). */
const pidOf = (runnerId: string) => Number(runnerId.split('/').at(-2))

function logLines(process: RunningProcess): { msg?: string; level?: number; [key: string]: unknown }[] {
  return process
    .stdout()
    .split('\n')
    .filter((line) => line.trim() !== '')
    .flatMap((line) => {
      try {
        return [JSON.parse(line)]
      } catch {
        return []
      }
    })
}

/** Every process a scenario starts, stopped (SIGTERM, then SIGKILL) whatever happens. */
function processGroup() {
  const started: RunningProcess[] = []
  return {
    async add<P extends RunningProcess>(starting: Promise<P>): Promise<P> {
      const running = await starting
      started.push(running)
      return running
    },
    async stopAll(): Promise<void> {
      await Promise.all(started.map((running) => running.stop('SIGTERM', 15_000).catch(() => {})))
    },
  }
}

function baseEnv(database: IsolatedDatabase, overrides: ChildEnv = {}): ChildEnv {
  return {
    DATABASE_URL: database.url,
    BERTH_SECRET_KEY: TEST_SECRET_KEY,
    BERTH_RUNNER_POLL_MS: '50',
    ...overrides,
  }
}

describe('two serve processes and two workers on one database', () => {
  let database: IsolatedDatabase
  let db: Db
  const group = processGroup()

  before(async () => {
    database = await createIsolatedDatabase()
    db = openDatabase(database.url, 2)
  })
  after(async () => {
    await group.stopAll()
    await db?.destroy()
    await database?.drop()
  })

  it('runs every triggered deployment exactly once, one at a time and in order per environment, spread over the runners', async () => {
    const env = baseEnv(database, { BERTH_SIMULATED_STEP_MS: '100', BERTH_RUNNER_LEASE_MS: '2000' })
    const starting = [startServer(env), startServer(env), startWorker(env), startWorker(env)] as const
    const [serverA, serverB, workerA, workerB] = await Promise.all([
      group.add(starting[0]),
      group.add(starting[1]),
      group.add(starting[2]),
      group.add(starting[3]),
    ])
    const servers: RunningServer[] = [serverA, serverB]
    const workers: RunningWorker[] = [workerA, workerB]
    const all: RunningProcess[] = [...servers, ...workers]
    const pids = new Set(all.map((running) => running.child.pid))

    const make = factories(db)
    const environments = await Promise.all(
      Array.from({ length: 10 }, async () => {
        const { environment, tokens } = await make.environmentWithTokens()
        const helms = [await make.helmService(environment.id), await make.helmService(environment.id)]
        return { id: environment.id, tokens, helmIds: helms.map((helm) => helm.id) }
      }),
    )

    // 60 triggers at once: 6 per environment, through both servers, deploys, redeploys and stops mixed.
    const ACTIONS = ['deploy', 'redeploy', 'stop'] as const
    const triggers = Array.from({ length: 60 }, (_, i) => ({
      environment: environments[i % 10]!,
      server: servers[Math.floor(i / 10) % 2]!,
      action: ACTIONS[(i + Math.floor(i / 10)) % 3]!,
    }))
    const answers = await Promise.all(
      triggers.map(async (trigger) => ({
        ...trigger,
        ...(await call(
          trigger.server.baseUrl,
          'POST',
          `/environment/${trigger.environment.id}/${trigger.action}`,
          trigger.environment.tokens.deploy.authorization,
        )),
      })),
    )
    for (const answer of answers) {
      // A stop is refused only when the environment is already stopped with nothing queued.
      if (answer.action === 'stop' && answer.status === 409) continue
      assert.equal(answer.status, 202, `${answer.action} ${answer.environment.id}: ${JSON.stringify(answer.body)}`)
    }
    const accepted = answers.filter((answer) => answer.status === 202)
    const queuedDeployIds = accepted.filter((answer) => answer.action === 'deploy').map((answer) => answer.body.execution_id as string)

    const environmentIds = environments.map((environment) => environment.id)
    const rows = await until(
      () => db.selectFrom('deploymentRequests').selectAll().where('environmentId', 'in', environmentIds).execute(),
      (list) => list.length === accepted.length && list.every((row) => !UNFINISHED.includes(row.actionStatus)),
      'every deployment finished',
      45_000,
    )

    // Every run ended well, claimed once, by one of these processes.
    for (const row of rows) {
      const about = `run ${row.id} (${row.triggerAction}, seq ${row.seq}): ${row.message}`
      assert.equal(row.actionStatus, 'SUCCESS', about)
      assert.equal(row.status, DONE_STATE[row.triggerAction], about)
      assert.equal(row.message, null, about)
      assert.equal(row.claims, 1, `${about}: claimed ${row.claims} times`)
      assert.ok(row.leaseOwner, about)
      assert.ok(pids.has(pidOf(row.leaseOwner)), `${about}: held by ${row.leaseOwner}, none of the processes ${[...pids]}`)
      assert.equal(row.leaseExpiresAt, null, about)
      assert.ok(row.startedAt && row.endedAt && row.startedAt <= row.endedAt, about)
      const run = row.progress as DeploymentRun['progress']
      assert.equal(run.stages.length, 1, about)
      assert.equal(run.stages[0]!.status, 'DONE', about)
      for (const service of run.stages[0]!.services) {
        assert.equal(service.phase, 'SUCCESS', about)
        assert.ok(service.startedAt && service.endedAt, about)
        // Each service ran inside its run's interval.
        assert.ok(Date.parse(service.startedAt) >= row.startedAt.getTime() && Date.parse(service.endedAt) <= row.endedAt.getTime(), about)
      }
    }
    for (const id of queuedDeployIds)
      assert.ok(
        rows.some((row) => row.id === id),
        `the deploy ${id} answered 202 but was not stored`,
      )
    const owners = new Set(rows.map((row) => row.leaseOwner))
    assert.ok(owners.size > 1, `one runner did all the work: ${[...owners]}`)

    const services = await db.selectFrom('serviceDeployments').selectAll().where('environmentId', 'in', environmentIds).execute()
    assert.equal(services.length, rows.length * 2)
    assert.deepEqual(
      services.filter((service) => service.actionStatus !== 'SUCCESS'),
      [],
    )

    for (const environment of environments) {
      const runs = rows.filter((row) => row.environmentId === environment.id).sort((a, b) => Number(a.seq) - Number(b.seq))
      const triggered = accepted.filter((answer) => answer.environment.id === environment.id).length
      assert.deepEqual(
        runs.map((run) => Number(run.seq)),
        Array.from({ length: triggered }, (_, i) => i + 1),
      )
      for (const [i, run] of runs.entries()) {
        const previous = runs[i - 1]
        if (!previous) continue
        // In seq order, each run starts once the one before it has ended: never two at once.
        assert.ok(previous.createdAt < run.createdAt, `created out of order in ${environment.id}`)
        assert.ok(
          previous.endedAt! <= run.startedAt!,
          `runs ${previous.seq} and ${run.seq} of ${environment.id} overlap: ${previous.endedAt?.toISOString()} > ${run.startedAt?.toISOString()}`,
        )
      }

      // The history, paged in small pages through either server, is the queue newest first, whole.
      const seen: Entry[] = []
      const pages: Page[] = []
      let startId: string | undefined
      for (let n = 0; n < 10; n++) {
        const server = servers[n % 2]!
        const page = await historyPage(server.baseUrl, environment.id, environment.tokens.read.authorization, {
          pageSize: '4',
          ...(startId ? { startId } : {}),
        })
        pages.push(page)
        seen.push(...page.results)
        if (!page.has_more) break
        startId = page.next_start_id!
      }
      assert.deepEqual(
        pages.map((page) => page.page),
        pages.map((_, i) => i + 1),
      )
      assert.equal(pages.at(-1)!.has_more, false)
      assert.equal(pages.at(-1)!.next_start_id, null)
      assert.deepEqual(
        seen.map((entry) => entry.identifier.execution_id),
        runs.map((run) => run.id).reverse(),
      )
      for (const entry of seen) {
        const run = runs.find((row) => row.id === entry.identifier.execution_id)!
        assert.equal(entry.status, run.status)
        assert.equal(entry.action_status, 'SUCCESS')
        assert.equal(entry.trigger_action, run.triggerAction)
        assert.deepEqual(
          entry.stages.map((stage) => [stage.name, stage.status]),
          [['HELM DEFAULT', 'DONE']],
        )
      }
      const status = await call(servers[0]!.baseUrl, 'GET', `/environment/${environment.id}/status`, environment.tokens.read.authorization)
      assert.equal(status.status, 200)
      assert.equal(status.body.state, runs.at(-1)!.status)
      assert.equal(status.body.last_deployment_id, runs.at(-1)!.id)
      assert.equal(status.body.deployment_request_id, null)
    }

    for (const running of all) {
      assert.equal(await running.stop('SIGTERM', 15_000), 0, running.logs())
      const lines = logLines(running)
      assert.equal(lines.at(-1)?.msg, 'stopped', running.logs())
      assert.deepEqual(
        lines.filter((line) => (line.level ?? 0) >= 40),
        [],
        'no process warned (a lost lease, an interrupted run, a failed claim)',
      )
    }
  })
})

/** An environment with helm services and tokens, made directly in the database. */
async function environmentWithHelms(db: Db, count: number) {
  const make = factories(db)
  const { environment, tokens } = await make.environmentWithTokens()
  const helmIds: string[] = []
  for (let i = 0; i < count; i++) helmIds.push((await make.helmService(environment.id)).id)
  return { environmentId: environment.id, tokens, helmIds }
}

describe('a worker killed in the middle of a deployment', () => {
  let database: IsolatedDatabase
  let db: Db
  const group = processGroup()

  before(async () => {
    database = await createIsolatedDatabase()
    db = openDatabase(database.url, 2)
  })
  after(async () => {
    await group.stopAll()
    await db?.destroy()
    await database?.drop()
  })

  it('ends its deployment as interrupted once the lease expires, and the queue goes on with the next runner', async () => {
    const api = await group.add(startServer(baseEnv(database, { BERTH_RUNNER_IN_SERVE: 'false' })))
    const workerEnv = baseEnv(database, { BERTH_SIMULATED_STEP_MS: '3000', BERTH_RUNNER_LEASE_MS: '1500' })
    const doomed = await group.add(startWorker(workerEnv))
    const { environmentId, tokens, helmIds } = await environmentWithHelms(db, 2)
    const deploy = tokens.deploy.authorization
    const read = tokens.read.authorization

    const first = await call(api.baseUrl, 'POST', `/environment/${environmentId}/deploy`, deploy)
    assert.equal(first.status, 202, JSON.stringify(first.body))
    const firstId = first.body.execution_id as string
    await until(
      () => entryOf(api.baseUrl, environmentId, read, firstId),
      (entry) => entry?.status === 'DEPLOYING',
      'the first deployment running',
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
      'the second deployment finished',
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

    const rows = await db.selectFrom('deploymentRequests').selectAll().where('environmentId', '=', environmentId).orderBy('seq').execute()
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
  })
})

describe('a worker stopped with SIGTERM in the middle of a deployment', () => {
  let database: IsolatedDatabase
  let db: Db
  const group = processGroup()

  before(async () => {
    database = await createIsolatedDatabase()
    db = openDatabase(database.url, 2)
  })
  after(async () => {
    await group.stopAll()
    await db?.destroy()
    await database?.drop()
  })

  it('hands the deployment back at once, and another worker resumes it to the end', async () => {
    const api = await group.add(startServer(baseEnv(database, { BERTH_RUNNER_IN_SERVE: 'false' })))
    // A step far longer than the stop may take: the worker must abort it, not wait for it.
    const leaving = await group.add(startWorker(baseEnv(database, { BERTH_SIMULATED_STEP_MS: '60000', BERTH_RUNNER_LEASE_MS: '30000' })))
    const { environmentId, tokens } = await environmentWithHelms(db, 2)
    const read = tokens.read.authorization

    const deployed = await call(api.baseUrl, 'POST', `/environment/${environmentId}/deploy`, tokens.deploy.authorization)
    assert.equal(deployed.status, 202, JSON.stringify(deployed.body))
    const executionId = deployed.body.execution_id as string
    await until(
      () => entryOf(api.baseUrl, environmentId, read, executionId),
      (entry) => entry?.stages[0]?.status === 'ONGOING',
      'the deployment running its stage',
    )

    assert.equal(await leaving.stop('SIGTERM', 10_000), 0, leaving.logs())
    assert.equal(logLines(leaving).at(-1)?.msg, 'stopped', leaving.logs())
    const handedBack = await db.selectFrom('deploymentRequests').selectAll().where('id', '=', executionId).executeTakeFirstOrThrow()
    assert.equal(handedBack.actionStatus, 'ONGOING', 'handed back unfinished')
    assert.equal(handedBack.leaseOwner, null, 'handed back: no runner holds it')
    assert.equal(handedBack.leaseExpiresAt, null)
    assert.equal(handedBack.claims, 1)
    const pausedEntry = await entryOf(api.baseUrl, environmentId, read, executionId)
    assert.equal(pausedEntry?.status, 'DEPLOYING')

    const resuming = await group.add(startWorker(baseEnv(database, { BERTH_SIMULATED_STEP_MS: '300', BERTH_RUNNER_LEASE_MS: '30000' })))
    const entry = (await until(
      () => entryOf(api.baseUrl, environmentId, read, executionId),
      (found) => found !== undefined && !UNFINISHED.includes(found.action_status),
      'the deployment finished',
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

    const row = await db.selectFrom('deploymentRequests').selectAll().where('id', '=', executionId).executeTakeFirstOrThrow()
    assert.equal(row.claims, 2, 'claimed by the worker that left, then by the one that resumed it')
    assert.equal(row.leaseOwner, resuming.runnerId)
    assert.equal(row.startedAt?.getTime(), handedBack.startedAt?.getTime(), 'resumed, not started again')
    const services = await db.selectFrom('serviceDeployments').select('actionStatus').where('executionId', '=', executionId).execute()
    assert.deepEqual(
      services.map((service) => service.actionStatus),
      ['SUCCESS', 'SUCCESS'],
    )
    assert.deepEqual(
      logLines(resuming).filter((line) => (line.level ?? 0) >= 40),
      [],
      'the resuming worker found nothing lost',
    )
    assert.equal(await resuming.stop('SIGTERM', 15_000), 0, resuming.logs())
    assert.equal(await api.stop('SIGTERM', 15_000), 0, api.logs())
  })
})
