import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import net from 'node:net'
import { after, before, describe, it } from 'node:test'
import { assertNoSecretsInLogs, baseEnv, call, entryOf, logLines, pidOf, processScenario, UNFINISHED, warnings } from './helpers/berth-processes.ts'
import { until } from './helpers/deployments.ts'
import { factories } from './helpers/factories.ts'
import { type FakeProvider, manyBranches, startFakeProvider } from './helpers/fake-git-providers.ts'
import { type RunningServer, startServer, startWorker } from './helpers/process.ts'

// `berth serve` stopped with SIGTERM: it stops accepting connections at once, lets the requests
// under way finish (for up to BERTH_SHUTDOWN_GRACE_MS), hands the deployments its runner holds
// back with their lease released, and exits; another runner resumes what was handed back.

/** Whether a new TCP connection to the server is accepted now. */
function connect(baseUrl: string): Promise<'accepted' | 'refused' | string> {
  const { hostname, port } = new URL(baseUrl)
  return new Promise((resolve) => {
    const socket = net.connect({ host: hostname, port: Number(port) })
    socket.once('connect', () => {
      socket.destroy()
      resolve('accepted')
    })
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED' ? 'refused' : (error.code ?? String(error))))
  })
}

const REPOSITORY = 'acme/app'

describe('berth serve stopped with SIGTERM', () => {
  const scenario = processScenario()
  const { group } = scenario
  let fake: FakeProvider

  before(async () => {
    fake = await startFakeProvider('github')
    fake.repositories.set(REPOSITORY, manyBranches(5))
  })
  after(async () => {
    await fake?.close()
  })

  /** An organization with a GitHub token the fake accepts, and an environment of two helm services. */
  async function setup() {
    const make = factories(scenario.db)
    const { organization, tokens, environment } = await make.environmentWithTokens()
    for (let i = 0; i < 2; i++) await make.helmService(environment.id)
    const secret = `ghp_${randomUUID().replaceAll('-', '')}`
    fake.tokens.add(secret)
    await make.gitToken(organization.id, { token: secret, gitApiUrl: fake.url })
    const branchesPath = `/organization/${organization.id}/account/github/repository/branch?name=${encodeURIComponent(REPOSITORY)}`
    const secrets = [...Object.values(tokens).flatMap((token) => [token.token, token.authorization]), secret]
    return { organization, tokens, environmentId: environment.id, branchesPath, secrets }
  }

  /** Starts a serve whose runner runs deployments slowly, and a deployment on it, under way when this returns. */
  async function serveRunningADeployment(graceMs: number, environmentId: string, deploy: string, read: string) {
    const server = await group.add(
      startServer(
        baseEnv(scenario.database, {
          BERTH_SHUTDOWN_GRACE_MS: String(graceMs),
          // A step far longer than the test: the runner must hand the run back, not finish it.
          BERTH_SIMULATED_STEP_MS: '60000',
          BERTH_RUNNER_LEASE_MS: '30000',
          BERTH_GIT_ALLOW_PRIVATE_URLS: 'true',
          BERTH_GIT_CACHE_TTL_MS: '0',
          BERTH_GIT_TIMEOUT_MS: '60000',
        }),
      ),
    )
    const deployed = await call(server.baseUrl, 'POST', `/environment/${environmentId}/deploy`, deploy)
    assert.equal(deployed.status, 202, deployed.text)
    const executionId = deployed.body.execution_id as string
    await until(
      () => entryOf(server.baseUrl, environmentId, read, executionId),
      (entry) => entry?.stages[0]?.status === 'ONGOING',
      { what: 'the deployment running its stage', timeoutMs: 20_000, intervalMs: 50 },
    )
    const row = await scenario.db.selectFrom('deploymentRequests').selectAll().where('id', '=', executionId).executeTakeFirstOrThrow()
    assert.equal(pidOf(row.leaseOwner!), server.child.pid, "the serve's own runner holds the deployment")
    return { server, executionId }
  }

  /** Starts the slow branch listing and resolves once the provider has it, so that it is under way. */
  async function slowRequest(server: RunningServer, path: string, authorization: string) {
    const seen = fake.requests.length
    let settled = false
    const answer = call(server.baseUrl, 'GET', path, authorization).finally(() => {
      settled = true
    })
    answer.catch(() => {}) // awaited by the test; a rejection is what one case expects
    await until(
      () => fake.requests.length,
      (count) => count > seen,
      { what: 'the listing reaching the provider', timeoutMs: 10_000 },
    )
    return { answer, settled: () => settled }
  }

  async function assertHandedBack(executionId: string) {
    const row = await scenario.db.selectFrom('deploymentRequests').selectAll().where('id', '=', executionId).executeTakeFirstOrThrow()
    assert.equal(row.actionStatus, 'ONGOING', 'handed back unfinished')
    assert.equal(row.leaseOwner, null, 'the lease is released: no runner holds the deployment')
    assert.equal(row.leaseExpiresAt, null)
    assert.equal(row.claims, 1)
    return row
  }

  /** Starts a worker and waits until it has resumed the deployment to its end. */
  async function resumeElsewhere(executionId: string, startedAt: Date | null) {
    const worker = await group.add(startWorker(baseEnv(scenario.database, { BERTH_SIMULATED_STEP_MS: '200', BERTH_RUNNER_LEASE_MS: '30000' })))
    const row = await until(
      () => scenario.db.selectFrom('deploymentRequests').selectAll().where('id', '=', executionId).executeTakeFirstOrThrow(),
      (found) => !UNFINISHED.includes(found.actionStatus),
      { what: 'the deployment resumed to its end', timeoutMs: 20_000, intervalMs: 50 },
    )
    assert.equal(row.actionStatus, 'SUCCESS', row.message ?? '')
    assert.equal(row.status, 'DEPLOYED')
    assert.equal(row.claims, 2, 'claimed by the serve, then by the worker that resumed it')
    assert.equal(row.leaseOwner, worker.runnerId)
    assert.equal(row.startedAt?.getTime(), startedAt?.getTime(), 'resumed, not started again')
    assert.deepEqual(warnings(worker), [], 'the worker found a handed-back run, not a lost one')
    assert.equal(await worker.stop('SIGTERM', 15_000), 0, worker.logs())
    return worker
  }

  it('stops accepting at once, finishes the request under way, hands its deployment back and exits 0 within the grace period', async () => {
    const GRACE_MS = 5_000
    const { tokens, environmentId, branchesPath, secrets } = await setup()
    const { server, executionId } = await serveRunningADeployment(GRACE_MS, environmentId, tokens.deploy.authorization, tokens.read.authorization)
    assert.equal(await connect(server.baseUrl), 'accepted')

    // Well under the grace period, long enough to be under way through the whole stop.
    fake.delayMs = 3_000
    const slow = await slowRequest(server, branchesPath, tokens.read.authorization)
    const signalledAt = Date.now()
    const exited = server.stop('SIGTERM', 30_000)

    await until(
      () => connect(server.baseUrl),
      (outcome) => outcome === 'refused',
      { what: 'new connections refused', timeoutMs: 10_000 },
    )
    assert.equal(slow.settled(), false, 'new connections were refused while the request was still under way')

    const answer = await slow.answer
    assert.equal(answer.status, 200, answer.text)
    assert.deepEqual(
      (answer.body.results as { name: string }[]).map((branch) => branch.name).sort(),
      manyBranches(5)
        .branches.map((branch) => branch.name)
        .sort(),
    )

    assert.equal(await exited, 0, server.logs())
    const stopMs = Date.now() - signalledAt
    // A functional bound (grace plus room for a loaded machine), not a performance figure.
    assert.ok(stopMs < GRACE_MS + 5_000, `exited ${stopMs} ms after SIGTERM, grace ${GRACE_MS} ms`)
    const lines = logLines(server)
    assert.ok(
      lines.some((line) => line.msg === 'shutting down' && line.reason === 'SIGTERM'),
      server.logs(),
    )
    assert.equal(lines.at(-1)?.msg, 'stopped', server.logs())
    assert.deepEqual(warnings(server), [], 'a clean stop: nothing cut off, nothing lost')

    const handedBack = await assertHandedBack(executionId)
    const worker = await resumeElsewhere(executionId, handedBack.startedAt)
    assertNoSecretsInLogs([server, worker], [...secrets, ...fake.requests.flatMap((request) => request.authorization ?? [])])
  })

  it('cuts off a request still running at the end of the grace period, still hands its deployment back, and exits 1', async () => {
    const GRACE_MS = 2_000
    const { tokens, environmentId, branchesPath, secrets } = await setup()
    const { server, executionId } = await serveRunningADeployment(GRACE_MS, environmentId, tokens.deploy.authorization, tokens.read.authorization)

    fake.delayMs = 30_000
    const slow = await slowRequest(server, branchesPath, tokens.read.authorization)
    const signalledAt = Date.now()
    const code = await server.stop('SIGTERM', 30_000)
    const stopMs = Date.now() - signalledAt
    fake.delayMs = 0
    assert.equal(code, 1, server.logs())
    assert.ok(stopMs < GRACE_MS + 5_000, `exited ${stopMs} ms after SIGTERM, grace ${GRACE_MS} ms`)
    await assert.rejects(slow.answer, 'the request was cut off')
    assert.ok(
      logLines(server).some((line) => line.msg === 'requests still running after the grace period; closing them' && line.graceMs === GRACE_MS),
      server.logs(),
    )
    assert.equal(logLines(server).at(-1)?.msg, 'stopped', server.logs())

    const handedBack = await assertHandedBack(executionId)
    const worker = await resumeElsewhere(executionId, handedBack.startedAt)
    assertNoSecretsInLogs([server, worker], [...secrets, ...fake.requests.flatMap((request) => request.authorization ?? [])])
  })
})

describe('berth worker stopped with SIGTERM while a cancel winds down', () => {
  const scenario = processScenario()
  const { group } = scenario

  it('does not wait past BERTH_SHUTDOWN_GRACE_MS: it exits 1 and leaves the run to its lease', async () => {
    const make = factories(scenario.db)
    const { tokens, environment } = await make.environmentWithTokens()
    await make.helmService(environment.id)
    const api = await group.add(startServer(baseEnv(scenario.database, { BERTH_RUNNER_IN_SERVE: 'false' })))
    // A step of a minute: the cancel then winds down for 5 s, far past the grace period of 1 s.
    const worker = await group.add(
      startWorker(baseEnv(scenario.database, { BERTH_SIMULATED_STEP_MS: '60000', BERTH_SHUTDOWN_GRACE_MS: '1000', BERTH_RUNNER_LEASE_MS: '30000' })),
    )
    const deployed = await call(api.baseUrl, 'POST', `/environment/${environment.id}/deploy`, tokens.deploy.authorization)
    assert.equal(deployed.status, 202, deployed.text)
    const executionId = String(deployed.body.execution_id)
    await until(
      () => entryOf(api.baseUrl, environment.id, tokens.read.authorization, executionId),
      (entry) => entry?.action_status === 'ONGOING',
      { what: 'the deployment running on the worker' },
    )
    const canceled = await call(api.baseUrl, 'POST', `/environment/${environment.id}/cancelDeployment`, tokens.deploy.authorization)
    assert.ok(canceled.status < 300, canceled.text)
    // The runner hears of the cancel at its next lease renewal (every BERTH_RUNNER_POLL_MS, 50 ms here).
    await new Promise((resolve) => setTimeout(resolve, 1_000))
    assert.equal(await worker.stop('SIGTERM', 4_000), 1, 'stopped at the end of the grace period, not when the cancel ended')
    assert.ok(
      logLines(worker).some((line) => line.msg === 'deployments still winding down after the grace period; leaving them to their leases'),
      worker.logs(),
    )
  })
})
