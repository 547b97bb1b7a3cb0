import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import pg from 'pg'
import lockfile from 'proper-lockfile'
import { type Db, openDatabase } from '#src/platform/db/database.ts'
import { initCluster, type PostmasterState, readPostmaster, startPostmaster, stopPostmaster } from '#src/platform/db/embedded-postmaster.ts'
import { migrateToLatest } from '#src/platform/db/migrate.ts'
import { TEST_SECRET_KEY } from './helpers/app.ts'
import { type Answer, call, historyPage, logLines, processGroup } from './helpers/berth-processes.ts'
import { isFinished, until } from './helpers/deployments.ts'
import { factories } from './helpers/factories.ts'
import { type RunningServer, runCli, startServer } from './helpers/process.ts'

// PostgreSQL stopped under a running `berth serve`: requests fail fast with 503 in the error shape,
// /readyz turns 503 while /healthz stays up, and the server recovers by itself once PostgreSQL is
// back, with every deployment it accepted carried out.

const CONNECT_TIMEOUT_MS = 1_000

/** Fails unless a request is answered 503 `service_unavailable`, and well before it could have hung. */
async function assertUnavailable(request: () => Promise<Answer>, what: string): Promise<void> {
  const started = Date.now()
  const answer = await request()
  const elapsed = Date.now() - started
  assert.equal(answer.status, 503, `${what}: ${answer.text}`)
  assert.equal(answer.body.code, 'service_unavailable', what)
  assert.equal(answer.body.status, 503)
  assert.match(String(answer.body.request_id), /\S/)
  assert.ok(answer.headers.get('retry-after'), `${what}: Retry-After`)
  // A configured bound, not a speed figure: the connection timeout, plus room for a loaded machine.
  assert.ok(elapsed < CONNECT_TIMEOUT_MS + 4_000, `${what} took ${elapsed} ms: it waited past the connection timeout`)
}

describe('PostgreSQL stopped under a running server', () => {
  let dir: string
  let clusterDir: string
  let logFile: string
  let postmaster: PostmasterState | undefined
  let db: Db | undefined
  const processes = processGroup()
  let server: RunningServer
  let url: string

  before(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'berth-outage-'))
    // As root, PostgreSQL runs as the postgres system user, which must reach the cluster directory.
    await fs.chmod(dir, 0o711)
    clusterDir = path.join(dir, 'cluster')
    logFile = path.join(dir, 'postgres.log')
    const credentials = { user: 'berth', password: randomBytes(12).toString('hex') }
    await initCluster(clusterDir, credentials, () => {})
    postmaster = await startPostmaster(clusterDir, logFile)
    const admin = new pg.Client({ connectionString: `postgres://berth:${credentials.password}@127.0.0.1:${postmaster.port}/postgres` })
    await admin.connect()
    await admin.query('create database berth')
    await admin.end()
    url = `postgres://berth:${credentials.password}@127.0.0.1:${postmaster.port}/berth`
    db = openDatabase(url, 2)
    await migrateToLatest(db)
    server = await processes.add(
      startServer({
        DATABASE_URL: url,
        BERTH_SECRET_KEY: TEST_SECRET_KEY,
        BERTH_DB_CONNECT_TIMEOUT_MS: String(CONNECT_TIMEOUT_MS),
        BERTH_DB_QUERY_TIMEOUT_MS: '2000',
        BERTH_SIMULATED_STEP_MS: '1000',
        BERTH_RUNNER_POLL_MS: '100',
      }),
    )
  })

  after(async () => {
    await processes.stopAll()
    await db?.destroy()
    const running = await readPostmaster(clusterDir).catch(() => undefined)
    if (running) await stopPostmaster(running.pid).catch(() => {})
    await fs.rm(dir, { recursive: true, force: true })
  })

  it('answers 503 fast while it is down, /readyz with it, and recovers by itself with every accepted deployment carried out', async () => {
    const make = factories(db!)
    const { environment, tokens } = await make.environmentWithTokens()
    await make.helmService(environment.id)
    const authorization = tokens.deploy.authorization
    const base = server.baseUrl

    assert.equal((await call(base, 'GET', '/readyz', undefined)).status, 200)
    const accepted = 3
    for (let i = 0; i < accepted; i++) {
      const res = await call(base, 'POST', `/environment/${environment.id}/deploy`, authorization)
      assert.equal(res.status, 202, res.text)
    }
    // Stopped while the runner is in the middle of the first deployment.
    await until(
      () => historyPage(base, environment.id, authorization, { pageSize: '100' }),
      (page) => page.results.at(-1)?.action_status === 'ONGOING',
      { what: 'the first deployment running' },
    )
    await stopPostmaster(postmaster!.pid)
    await assertUnavailable(() => call(base, 'GET', `/environment/${environment.id}/status`, authorization), 'a read')
    await assertUnavailable(() => call(base, 'POST', `/environment/${environment.id}/deploy`, authorization), 'a trigger')
    await assertUnavailable(() => call(base, 'GET', `/environment/${environment.id}/deploymentHistoryV2`, authorization), 'a history page')
    await assertUnavailable(() => call(base, 'GET', '/readyz', undefined), '/readyz')
    const health = await call(base, 'GET', '/healthz', undefined)
    assert.equal(health.status, 200, 'the process itself is alive')

    // Back on the same port, as a restarted server or a fail-over address would be.
    postmaster = await startPostmaster(clusterDir, logFile, { port: postmaster!.port })
    await until(
      async () => (await call(base, 'GET', '/readyz', undefined)).status,
      (status) => status === 200,
      { timeoutMs: 20_000, intervalMs: 200, what: '/readyz back to 200' },
    )
    const history = await until(
      () => historyPage(base, environment.id, authorization, { pageSize: '100' }),
      (page) => page.results.length === accepted && page.results.every(isFinished),
      { timeoutMs: 30_000, intervalMs: 250, what: 'every accepted deployment finished' },
    )
    assert.deepEqual(
      history.results.map((entry) => entry.action_status),
      Array(accepted).fill('SUCCESS'),
      `none was lost or cut short by the outage: ${JSON.stringify(history.results.map((entry) => entry.message))}`,
    )
    // The trigger refused during the outage was not queued behind the client's back.
    assert.equal(history.results.length, accepted)
    assert.equal((await call(base, 'POST', `/environment/${environment.id}/deploy`, authorization)).status, 202)
  })
})

describe('the embedded PostgreSQL stopped under a running server', () => {
  let dataDir: string
  let authorization = ''
  const processes = processGroup()

  before(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'berth-outage-embedded-'))
    // As root, PostgreSQL runs as the postgres system user, which must reach the cluster directory.
    await fs.chmod(dataDir, 0o711)
  })
  after(async () => {
    await processes.stopAll()
    await fs.rm(dataDir, { recursive: true, force: true })
  })

  // Token usage flushed often, so that its retries fall within the outage too.
  const env = () => ({
    DATABASE_URL: undefined,
    BERTH_DATA_DIR: dataDir,
    BERTH_DB_CONNECT_TIMEOUT_MS: String(CONNECT_TIMEOUT_MS),
    BERTH_TOKEN_USAGE_FLUSH_MS: '200',
  })
  const cluster = () => path.join(dataDir, 'postgres')
  const ready = (server: RunningServer) =>
    until(
      async () => (await call(server.baseUrl, 'GET', '/readyz', undefined)).status,
      (status) => status === 200,
      { timeoutMs: 60_000, intervalMs: 200, what: '/readyz back to 200' },
    )
  const lines = (server: RunningServer, msg: RegExp) => logLines(server).filter((line) => msg.test(String(line.msg)))
  const OUTAGE = /^the embedded PostgreSQL stopped/
  const RECOVERY = /^the embedded PostgreSQL runs again/

  it('is started again by the server, on its port, after its postmaster is killed; the outage is logged once and the recovery once', async () => {
    const server = await processes.add(startServer(env(), { timeoutMs: 120_000 }))
    const token = await runCli(['token', 'create', '--org', 'outage'], env(), { timeoutMs: 120_000 })
    assert.equal(token.code, 0, token.stderr)
    authorization = `Token ${token.stdout.trim()}`
    const running = await readPostmaster(cluster())
    assert.ok(running, `a postmaster in ${cluster()}`)

    process.kill(running.pid, 'SIGKILL')
    // Backends outlive a killed postmaster for a moment, so /readyz alone may still answer from the
    // old one: wait for the server to have started a new postmaster, then for /readyz.
    await until(
      () => readPostmaster(cluster()),
      (postmaster) => postmaster !== undefined && postmaster.pid !== running.pid,
      { timeoutMs: 60_000, intervalMs: 100, what: 'a new postmaster' },
    )
    await ready(server)
    const restarted = await readPostmaster(cluster())
    assert.ok(restarted && restarted.pid !== running.pid, 'the same postmaster answers')
    assert.equal(restarted.port, running.port)
    // The data is there, and the token still works (no command had to start anything).
    assert.equal((await call(server.baseUrl, 'GET', '/organization', authorization)).status, 200)
    await until(
      async () => lines(server, RECOVERY).length,
      (count) => count > 0,
      { timeoutMs: 10_000, intervalMs: 100, what: 'the recovery line' },
    )
    assert.equal(lines(server, OUTAGE).length, 1, server.stdout())
    assert.equal(lines(server, RECOVERY).length, 1, server.stdout())
    assert.equal(lines(server, OUTAGE)[0]!.level, 40)
  })

  it('stays quiet while it cannot be started at once, answers 503 meanwhile, and comes back when it can', async () => {
    const server = processes.started[0] as RunningServer
    const running = await readPostmaster(cluster())
    assert.ok(running)
    // A use of the token just before: its usage is pending, and every flush during the outage fails.
    assert.equal((await call(server.baseUrl, 'GET', '/organization', authorization)).status, 200)
    const before = logLines(server).length
    // Holding the data dir's lock keeps the server from starting it again, as a slow start would.
    const unlock = await lockfile.lock(dataDir, { lockfilePath: path.join(dataDir, 'embedded.lock'), realpath: false, stale: 10_000 })
    try {
      process.kill(running.pid, 'SIGKILL')
      await until(
        async () => lines(server, OUTAGE).length,
        (count) => count === 2,
        { timeoutMs: 20_000, intervalMs: 100, what: 'the outage line' },
      )
      await assertUnavailable(() => call(server.baseUrl, 'GET', '/readyz', undefined), '/readyz')
      // Three seconds of outage, with the runner, the webhook deliverer and the backup runner polling,
      // the listener and the usage flush retrying, and the embedded server restarted: each part that
      // finds the database gone says so at most once (the 503 asked above is logged too).
      await new Promise((resolve) => setTimeout(resolve, 3_000))
      const during = logLines(server)
        .slice(before)
        .filter((line) => (line.level ?? 0) >= 40 && line.msg !== 'request failed')
      assert.ok(during.length <= 6, `${during.length} warnings during the outage: ${JSON.stringify(during.map((line) => line.msg))}`)
      const messages = during.map((line) => line.msg)
      assert.equal(new Set(messages).size, messages.length, `a warning repeated: ${JSON.stringify(messages)}`)
    } finally {
      await unlock()
    }
    await ready(server)
    assert.equal((await readPostmaster(cluster()))?.port, running.port)
    await until(
      async () => lines(server, RECOVERY).length,
      (count) => count === 2,
      { timeoutMs: 10_000, intervalMs: 100, what: 'the second recovery line' },
    )
    assert.equal(lines(server, OUTAGE).length, 2)
  })
})
