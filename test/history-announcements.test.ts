import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import type { Socket } from 'node:net'
import { after, before, describe, it } from 'node:test'
import pg from 'pg'
import { backdateDeployments } from '#src/modules/demo/backdate-history.ts'
import { type Db, openDatabase, poolOf } from '#src/platform/db/database.ts'
import { createTestApp, type TestApp } from './helpers/app.ts'
import { call } from './helpers/berth-processes.ts'
import { type EnvironmentEntry, type HistoryPage, isFinished, until } from './helpers/deployments.ts'
import { factories } from './helpers/factories.ts'
import { createIsolatedDatabase, type IsolatedDatabase } from './helpers/isolated-database.ts'

// History versions announced at commit (migration 0011) and remembered by each process, so that an
// unchanged history page costs no database round trip. Two app instances on pools of their own,
// listening to one database over real HTTP, stand for two `berth serve` processes: A runs the
// deployments, B only serves (so that its pool's round trips can be counted). Both remember
// versions and tokens for ten minutes: within a test, only an announcement (or the process's own
// change) can make them read again.

const ANNOUNCEMENT_DEADLINE_MS = 10_000

let database: IsolatedDatabase
let setup: Db
let a: TestApp
let b: TestApp
let aUrl: string
let bUrl: string
let make: ReturnType<typeof factories>
/** Each app's database round trips so far: every query checks a connection out of its pool. */
const trips = new Map<TestApp, number>()
const countTrips = (app: TestApp) => {
  trips.set(app, 0)
  poolOf(app.db).on('acquire', () => trips.set(app, trips.get(app)! + 1))
}

before(async () => {
  database = await createIsolatedDatabase()
  setup = openDatabase(database.url, 3)
  make = factories(setup)
  const env = {
    DATABASE_URL: database.url,
    BERTH_SIMULATED_STEP_MS: '150',
    BERTH_RUNNER_POLL_MS: '50',
    BERTH_RUNNER_LEASE_MS: '2000',
    BERTH_HISTORY_VERSION_TTL_MS: '600000',
    BERTH_TOKEN_CACHE_TTL_MS: '600000',
    BERTH_TOKEN_USAGE_FLUSH_MS: '3600000',
  }
  a = await createTestApp(env, { runner: true })
  aUrl = await a.listen()
  b = await createTestApp(env)
  bUrl = await b.listen()
  countTrips(a)
  countTrips(b)
})

after(async () => {
  await Promise.allSettled([a?.close(), b?.close()])
  await setup?.destroy()
  await database?.drop()
})

const historyPath = (environmentId: string) => `/environment/${environmentId}/deploymentHistoryV2`

async function page(baseUrl: string, environmentId: string, authorization: string): Promise<HistoryPage<EnvironmentEntry>> {
  const { status, body } = await call(baseUrl, 'GET', historyPath(environmentId), authorization)
  assert.equal(status, 200, JSON.stringify(body))
  return body as HistoryPage<EnvironmentEntry>
}

/**
 * Waits until the app serves the page without a database round trip (it listens, and remembers the
 * version); returns the answer. A's runner polls the database on the same pool, which may only
 * make this wait longer.
 */
async function remembered(app: TestApp, environmentId: string, authorization: string) {
  const { answer } = await until(
    async () => {
      const before = trips.get(app)!
      const answer = await call(app === a ? aUrl : bUrl, 'GET', historyPath(environmentId), authorization)
      return { answer, trips: trips.get(app)! - before }
    },
    ({ answer, trips }) => answer.status === 200 && trips === 0,
    { what: 'the page served without a database round trip', timeoutMs: ANNOUNCEMENT_DEADLINE_MS },
  )
  return answer
}
const rememberedByB = (environmentId: string, authorization: string) => remembered(b, environmentId, authorization)

/**
 * Runs `work` while the app's announcements are held up: the socket of the connection it listens
 * on (the one client of its pool that handles notifications; pg-pool's list of clients is not
 * public) is paused, as a busy PostgreSQL or network would delay it, and resumed afterwards.
 */
async function deafened<T>(app: TestApp, work: () => Promise<T>): Promise<T> {
  type Client = pg.Client & { connection: { stream: Socket } }
  const clients = (poolOf(app.db) as unknown as { _clients: Client[] })._clients
  const listening = clients.filter((client) => client.listenerCount('notification') > 0)
  assert.equal(listening.length, 1, 'one connection listens')
  const socket = listening[0]!.connection.stream
  socket.pause()
  try {
    return await work()
  } finally {
    socket.resume()
  }
}

/** Waits until every deployment of the environment has ended. */
const idle = (environmentId: string) =>
  until(
    () => setup.selectFrom('deploymentRequests').select('actionStatus').where('environmentId', '=', environmentId).execute(),
    (runs) => runs.every((run) => isFinished({ action_status: run.actionStatus })),
    { what: 'every deployment ended' },
  )

async function deploy(baseUrl: string, environmentId: string, authorization: string): Promise<string> {
  const { status, body } = await call(baseUrl, 'POST', `/environment/${environmentId}/deploy`, authorization)
  assert.equal(status, 202, JSON.stringify(body))
  return body.execution_id as string
}

/** The run's entry as stored now, read straight from the database. */
async function storedEntry(executionId: string): Promise<EnvironmentEntry> {
  const row = await setup.selectFrom('deploymentRequests').select('entryJson').where('id', '=', executionId).executeTakeFirstOrThrow()
  return JSON.parse(row.entryJson) as EnvironmentEntry
}

/** The error body without what differs from one request to the next. */
const errorBody = (body: Record<string, unknown>) => ({ ...body, request_id: undefined })

describe('history pages remembered per process', () => {
  it('serves an unchanged page, and its 304, without a database round trip once it listens', async () => {
    const { environment, tokens } = await make.environmentWithTokens()
    const first = await rememberedByB(environment.id, tokens.read.authorization)
    const etag = first.headers.get('etag')!
    for (let i = 0; i < 5; i++) {
      const before = trips.get(b)!
      const again = await call(bUrl, 'GET', historyPath(environment.id), tokens.read.authorization)
      const notModified = await call(bUrl, 'GET', historyPath(environment.id), tokens.read.authorization, { headers: { 'if-none-match': etag } })
      assert.equal(again.status, 200)
      assert.equal(again.text, first.text)
      assert.equal(notModified.status, 304)
      assert.equal(trips.get(b)! - before, 0, 'no database round trip for a remembered page')
    }
  })

  it('replaces a page made stale by a change in another process within the announcement delay', async () => {
    const { environment, tokens } = await make.environmentWithTokens()
    await make.helmService(environment.id)
    const read = tokens.read.authorization
    assert.deepEqual((await rememberedByB(environment.id, read)).body.results, [])
    assert.deepEqual((await rememberedByB(environment.id.toUpperCase(), read)).body.results, [])

    // A queues and runs it; B hears of each change (its versions are remembered for ten minutes).
    const executionId = await deploy(aUrl, environment.id, tokens.deploy.authorization)
    const seen = await until(
      () => page(bUrl, environment.id, read),
      (body) => body.results[0]?.identifier.execution_id === executionId && isFinished(body.results[0]),
      { what: 'B serving the finished deployment', timeoutMs: ANNOUNCEMENT_DEADLINE_MS },
    )
    assert.equal(seen.results[0]!.status, 'DEPLOYED')
    assert.equal((await page(bUrl, environment.id.toUpperCase(), read)).results[0]!.status, 'DEPLOYED', 'the same environment in capitals')
    assert.deepEqual(seen.results[0], await storedEntry(executionId), 'B serves the entry as stored at the end')
    // And it remembers the new version.
    assert.equal((await rememberedByB(environment.id, read)).text, JSON.stringify(seen))
  })

  it('never serves a page that its own trigger made stale, however late its own announcement comes back', async () => {
    const { environment, tokens } = await make.environmentWithTokens()
    const read = tokens.read.authorization
    const triggered: string[] = []
    for (let i = 0; i < 3; i++) {
      await rememberedByB(environment.id, read)
      await deafened(b, async () => {
        triggered.unshift(await deploy(bUrl, environment.id, tokens.deploy.authorization))
        const body = await page(bUrl, environment.id, read)
        assert.deepEqual(
          body.results.map((entry) => entry.identifier.execution_id),
          triggered,
        )
      })
      await idle(environment.id)
    }
  })

  it('never serves a page that its own runner made stale, however its steps, its requests and its announcements interleave', async () => {
    const { environment, tokens } = await make.environmentWithTokens()
    for (let i = 0; i < 3; i++) await make.helmService(environment.id)
    const read = tokens.read.authorization
    await remembered(a, environment.id, read)
    const executionId = await deploy(aUrl, environment.id, tokens.deploy.authorization)
    const states = new Set<string>()
    await deafened(a, async () => {
      for (;;) {
        // What is committed now; A's page, asked for afterwards, must be at least as new.
        const stored = await storedEntry(executionId)
        const served = (await page(aUrl, environment.id, read)).results.find((entry) => entry.identifier.execution_id === executionId)
        assert.ok(served, 'the deployment is on the page')
        assert.ok(
          Date.parse(served.auditing_data.updated_at) >= Date.parse(stored.auditing_data.updated_at),
          `A served ${JSON.stringify(served.auditing_data)} after the database held ${JSON.stringify(stored.auditing_data)}`,
        )
        states.add(JSON.stringify(served.stages.map((stage) => stage.services.map((service) => service.status))))
        if (isFinished(stored)) break
      }
      // Once it is over, A remembers the page again, without hearing of anything.
      await remembered(a, environment.id, read)
    })
    assert.ok(states.size > 1, `A was seen at more than one step: ${[...states].join(' ')}`)
  })

  it("refuses another organization's token on a remembered page as it refuses an unknown environment", async () => {
    const { environment, tokens } = await make.environmentWithTokens()
    const other = await make.organizationWithTokens()
    await deploy(bUrl, environment.id, tokens.deploy.authorization)
    await idle(environment.id)
    const kept = await rememberedByB(environment.id, tokens.read.authorization)

    for (const token of [other.tokens.read, other.tokens.admin]) {
      const refused = await call(bUrl, 'GET', historyPath(environment.id), token.authorization)
      const unknown = await call(bUrl, 'GET', historyPath(randomUUID()), token.authorization)
      assert.equal(refused.status, 404)
      assert.equal(unknown.status, 404)
      assert.deepEqual(errorBody(refused.body), errorBody(unknown.body))
      assert.ok(!refused.text.includes(environment.id))
      const stale = await call(bUrl, 'GET', historyPath(environment.id), token.authorization, {
        headers: { 'if-none-match': kept.headers.get('etag')! },
      })
      assert.equal(stale.status, 404, 'an ETag of the page does not get a 304 either')
    }
    assert.equal((await rememberedByB(environment.id, tokens.read.authorization)).text, kept.text)
    // The refusal itself needs no database round trip once the organizations' ancestries are remembered.
    await until(
      async () => {
        const before = trips.get(b)!
        const refused = await call(bUrl, 'GET', historyPath(environment.id), other.tokens.admin.authorization)
        return { status: refused.status, trips: trips.get(b)! - before }
      },
      (answer) => answer.status === 404 && answer.trips === 0,
      { what: 'a refusal without a database round trip' },
    )
  })

  it("lets an ADMIN token of a parent organization read a managed organization's remembered page, and no other of its tokens", async () => {
    const parent = await make.organizationWithTokens()
    const created = await call(aUrl, 'POST', '/organization', parent.tokens.admin.authorization, {
      body: { name: `managed ${randomUUID()}`, plan: 'FREE' },
    })
    assert.equal(created.status, 201, JSON.stringify(created.body))
    const managed = created.body.id as string
    const environment = await make.environment((await make.project(managed)).id)
    const kept = await rememberedByB(environment.id, parent.tokens.admin.authorization)
    assert.equal(kept.status, 200)
    const refused = await call(bUrl, 'GET', historyPath(environment.id), parent.tokens.read.authorization)
    assert.equal(refused.status, 404)
    assert.deepEqual(errorBody(refused.body), errorBody((await call(bUrl, 'GET', historyPath(randomUUID()), parent.tokens.read.authorization)).body))
  })

  it('refuses a revoked token on a remembered page: at once where it was revoked, within the delay elsewhere', async () => {
    const { organization, environment, tokens } = await make.environmentWithTokens()
    const readers = [await make.apiToken(organization.id, 'READ'), await make.apiToken(organization.id, 'READ')]
    for (const reader of readers) await rememberedByB(environment.id, reader.authorization)
    const revoke = (baseUrl: string, tokenId: string) =>
      call(baseUrl, 'DELETE', `/organization/${organization.id}/apiToken/${tokenId}`, tokens.admin.authorization)

    await deafened(b, async () => {
      assert.equal((await revoke(bUrl, readers[0]!.id)).status, 204)
      assert.equal((await call(bUrl, 'GET', historyPath(environment.id), readers[0]!.authorization)).status, 401)
    })

    assert.equal((await revoke(aUrl, readers[1]!.id)).status, 204)
    await until(
      () => call(bUrl, 'GET', historyPath(environment.id), readers[1]!.authorization),
      (answer) => answer.status === 401,
      { what: 'B refusing the token A revoked', timeoutMs: ANNOUNCEMENT_DEADLINE_MS },
    )
    await rememberedByB(environment.id, tokens.read.authorization)
  })

  it("answers a deleted environment's remembered page with 404: at once where it was deleted, within the delay elsewhere", async () => {
    const { project, environment, tokens } = await make.environmentWithTokens()
    const second = await make.environment(project.id)
    const third = await make.environment(project.id)
    await deploy(bUrl, environment.id, tokens.deploy.authorization)
    await idle(environment.id)
    for (const id of [environment.id, second.id, third.id]) await rememberedByB(id, tokens.read.authorization)

    // An environment with history, and one without (it has no version yet).
    await deafened(b, async () => {
      assert.equal((await call(bUrl, 'DELETE', `/environment/${environment.id.toUpperCase()}`, tokens.admin.authorization)).status, 204)
      assert.equal((await call(bUrl, 'GET', historyPath(environment.id), tokens.read.authorization)).status, 404)
    })
    assert.equal((await call(aUrl, 'DELETE', `/environment/${second.id}`, tokens.admin.authorization)).status, 204)
    await until(
      () => call(bUrl, 'GET', historyPath(second.id), tokens.read.authorization),
      (answer) => answer.status === 404,
      { what: 'B answering 404 for the environment A deleted', timeoutMs: ANNOUNCEMENT_DEADLINE_MS },
    )
    // Its project, deleted by A, takes the last one.
    assert.equal((await call(aUrl, 'DELETE', `/project/${project.id}`, tokens.admin.authorization)).status, 204)
    await until(
      () => call(bUrl, 'GET', historyPath(third.id), tokens.read.authorization),
      (answer) => answer.status === 404,
      { what: 'B answering 404 for the environment of the project A deleted', timeoutMs: ANNOUNCEMENT_DEADLINE_MS },
    )
  })
  it('answers 404 at once, where it was deleted, for the environments of a project or an organization named in capitals', async () => {
    const { organization, project, environment, tokens } = await make.environmentWithTokens()
    const otherProject = await make.project(organization.id)
    const inOtherProject = await make.environment(otherProject.id)
    for (const id of [environment.id, inOtherProject.id]) await rememberedByB(id, tokens.read.authorization)
    await deafened(b, async () => {
      assert.equal((await call(bUrl, 'DELETE', `/project/${project.id.toUpperCase()}`, tokens.admin.authorization)).status, 204)
      assert.equal((await call(bUrl, 'GET', historyPath(environment.id), tokens.read.authorization)).status, 404)
      assert.equal((await call(bUrl, 'DELETE', `/organization/${organization.id.toUpperCase()}`, tokens.admin.authorization)).status, 204)
      // Its tokens went with it: the reader is refused before anything else.
      assert.equal((await call(bUrl, 'GET', historyPath(inOtherProject.id), tokens.read.authorization)).status, 401)
    })
  })
})

describe('history changes announced at commit', () => {
  let listener: pg.Client
  const heard: string[] = []
  const heardFor = (environmentId: string) => heard.filter((payload) => payload === environmentId).length

  before(async () => {
    listener = new pg.Client({ connectionString: database.url })
    await listener.connect()
    listener.on('notification', (message) => heard.push(message.payload ?? ''))
    await listener.query('LISTEN berth_history')
  })
  after(() => listener?.end())

  const version = async (environmentId: string) =>
    Number(
      (await setup.selectFrom('environmentHistoryVersions').select('version').where('environmentId', '=', environmentId).executeTakeFirst())
        ?.version ?? 0,
    )

  it('once for every new version, whether a trigger, a runner step or a cancel made it, and for the demo backdating', async () => {
    const { environment, tokens } = await make.environmentWithTokens()
    for (let i = 0; i < 3; i++) await make.helmService(environment.id)
    await deploy(aUrl, environment.id, tokens.deploy.authorization)
    const canceled = await deploy(aUrl, environment.id, tokens.deploy.authorization)
    const cancel = await call(aUrl, 'POST', `/deploymentQueue/${canceled}/cancelDeployment`, tokens.deploy.authorization)
    assert.equal(cancel.status, 202, JSON.stringify(cancel.body))
    const settled = async () => {
      const runs = await setup.selectFrom('deploymentRequests').select('actionStatus').where('environmentId', '=', environment.id).execute()
      return {
        finished: runs.every((run) => isFinished({ action_status: run.actionStatus })),
        version: await version(environment.id),
        heard: heardFor(environment.id),
      }
    }
    // Each transaction bumps the version once here (one run at a time): one announcement each.
    const done = await until(settled, (now) => now.finished && now.version === now.heard, { what: 'an announcement for every version' })
    assert.ok(done.version >= 5, `trigger, trigger, cancel and the runner's steps: ${done.version} versions`)

    const { executionId } = (await setup
      .selectFrom('deploymentRequests')
      .select('id as executionId')
      .where('environmentId', '=', environment.id)
      .executeTakeFirstOrThrow()) as { executionId: string }
    await backdateDeployments(setup, [{ executionId, byMs: 60_000 }])
    await until(settled, (now) => now.version === done.version + 1 && now.heard === done.heard + 1, { what: 'the backdating announced' })
  })

  it('when an environment goes, with or without history, by itself or with its project or organization', async () => {
    const { organization, project, environment, tokens } = await make.environmentWithTokens()
    const withHistory = await make.environment(project.id)
    await deploy(aUrl, withHistory.id, tokens.deploy.authorization)
    const otherProject = await make.project(organization.id)
    const inOtherProject = await make.environment(otherProject.id)
    const lastProject = await make.project(organization.id)
    const inOrganization = await make.environment(lastProject.id)
    const gone = async (id: string, what: string) =>
      until(
        () => heardFor(id),
        (count) => count > 0,
        { what },
      )

    assert.equal((await call(aUrl, 'DELETE', `/environment/${environment.id}`, tokens.admin.authorization)).status, 204)
    await gone(environment.id, 'an environment without history deleted')
    await idle(withHistory.id)
    const before = heardFor(withHistory.id)
    assert.equal((await call(aUrl, 'DELETE', `/environment/${withHistory.id}`, tokens.admin.authorization)).status, 204)
    await until(
      () => heardFor(withHistory.id),
      (count) => count > before,
      { what: 'an environment with history deleted' },
    )
    assert.equal((await call(aUrl, 'DELETE', `/project/${otherProject.id}`, tokens.admin.authorization)).status, 204)
    await gone(inOtherProject.id, "a project's environment deleted with it")
    assert.equal((await call(aUrl, 'DELETE', `/organization/${organization.id}`, tokens.admin.authorization)).status, 204)
    await gone(inOrganization.id, "an organization's environment deleted with it")
  })
})
