import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { sql } from 'kysely'
import { isFinished as runFinished } from '#src/modules/deployments/queue/deployment-progress.ts'
import { createDeploymentRunner } from '#src/modules/deployments/runner/deployment-runner.ts'
import { createDeploymentRunsRepository, type DeploymentRunsRepository } from '#src/modules/deployments/runner/deployment-runs.repository.ts'
import { createSimulatedExecutor } from '#src/modules/executors/simulated-executor.ts'
import { KINDS } from '#src/modules/services/kinds/registry.ts'
import { createTestApp } from './helpers/app.ts'
import { assertError, assertIsoTimestamp, UUID } from './helpers/assertions.ts'
import { createDeploymentsApp, type DeploymentCalls, type DeploymentsTestApp, deploymentCalls, isFinished, until } from './helpers/deployments.ts'
import { factories } from './helpers/factories.ts'
import { createIsolatedDatabase } from './helpers/isolated-database.ts'

// A deployment's logs (reference listEnvironmentLogs, "EnvironmentLogs"): what the runner and the
// simulated executor wrote, read after the end or while it runs, followed live with server-sent
// events (Berth extension), never showing a value of the values override, and pruned by age.

interface LogLine {
  id: string
  type: string
  timestamp: string
  details: {
    organization_id: string
    cluster_id: string
    execution_id: string
    transmitter: { id: string; name: string; type: string }
    stage: { step: string; id: string | null; name: string | null }
  }
  error: { tag: string; user_log_message: string } | null
  message: { safe_message: string } | null
}

const LINE_KEYS = ['details', 'error', 'id', 'message', 'timestamp', 'type']

// 1.5 s a service: long enough to read the logs of a deployment while it runs.
let d: DeploymentsTestApp
let make: ReturnType<typeof factories>
let calls: DeploymentCalls
let basePath: string

before(async () => {
  d = await createDeploymentsApp(1500)
  make = factories(d.db)
  calls = deploymentCalls(d.app)
  basePath = await d.listen()
})
after(() => d?.close())

const logsUrl = (environmentId: string, version?: string) =>
  `/environment/${environmentId}/logs${version === undefined ? '' : `?version=${encodeURIComponent(version)}`}`

async function logs(environmentId: string, authorization: string, version?: string): Promise<LogLine[]> {
  const res = await calls.inject('GET', logsUrl(environmentId, version), authorization)
  assert.equal(res.statusCode, 200, res.body)
  return res.json()
}

const text = (lines: LogLine[]) => lines.map((line) => line.message?.safe_message ?? '')

/** Deploys the environment and waits for the end; returns the execution id. */
async function deployed(environmentId: string, authorization: string): Promise<string> {
  const queued = await calls.trigger(`/environment/${environmentId}/deploy`, authorization)
  await calls.waitUntilIdle(environmentId, authorization)
  return queued.execution_id
}

interface SseEvent {
  event: string
  id?: string
  data: string
}

/**
 * Reads a server-sent event stream to its `event: end` (or the end of the body); the events in
 * order. Fails when it takes more than `timeoutMs`.
 */
async function follow(
  url: string,
  headers: Record<string, string>,
  timeoutMs = 20_000,
): Promise<{ status: number; type: string; events: SseEvent[] }> {
  const res = await fetch(`${basePath}${url}`, { headers: { accept: 'text/event-stream', ...headers }, signal: AbortSignal.timeout(timeoutMs) })
  const type = res.headers.get('content-type') ?? ''
  if (res.status !== 200 || !res.body) return { status: res.status, type, events: [{ event: 'error', data: await res.text() }] }
  const events: SseEvent[] = []
  const decoder = new TextDecoder()
  let buffer = ''
  const reader = res.body.getReader()
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      buffer += decoder.decode(value, { stream: true })
      let end = buffer.indexOf('\n\n')
      while (end !== -1) {
        const block = buffer.slice(0, end)
        buffer = buffer.slice(end + 2)
        const event: SseEvent = { event: 'message', data: '' }
        let fields = 0
        for (const line of block.split('\n')) {
          // A comment (a keep-alive) is no event.
          if (line.startsWith(':')) continue
          const [field, ...rest] = line.split(':')
          const value = rest.join(':').replace(/^ /, '')
          fields++
          if (field === 'event') event.event = value
          else if (field === 'id') event.id = value
          else if (field === 'data') event.data += value
        }
        if (fields > 0) events.push(event)
        if (event.event === 'end') return { status: res.status, type, events }
        end = buffer.indexOf('\n\n')
      }
    }
  } finally {
    await reader.cancel().catch(() => {})
  }
  return { status: res.status, type, events }
}

describe('deployment logs of a finished deployment', () => {
  it('answers the lines oldest first in the EnvironmentLogs shape, with what the simulator did for each service', async () => {
    const { environment, tokens, organization } = await make.environmentWithTokens()
    const repository = await make.helmRepository(organization.id)
    const helm = await make.helmService(environment.id, {
      name: 'cache',
      source: { helm_repository: { repository: repository.id, chart_name: 'redis', chart_version: '18.1.0' } },
      arguments: ['--wait'],
    })
    const executionId = await deployed(environment.id, tokens.deploy.authorization)
    const clusterId = (await calls.inject('GET', `/environment/${environment.id}`, tokens.read.authorization)).json().cluster_id

    const lines = await logs(environment.id, tokens.read.authorization, executionId)
    assert.ok(lines.length >= 8, `only ${lines.length} lines`)
    for (const line of lines) {
      assert.deepEqual(Object.keys(line).sort(), LINE_KEYS)
      assert.match(line.id, /^\d+$/)
      assert.equal(line.type, 'INFO', JSON.stringify(line))
      assertIsoTimestamp(line.timestamp, 'timestamp')
      assert.deepEqual(Object.keys(line.details).sort(), ['cluster_id', 'execution_id', 'organization_id', 'stage', 'transmitter'])
      assert.equal(line.details.organization_id, organization.id)
      assert.equal(line.details.cluster_id, clusterId)
      assert.equal(line.details.execution_id, executionId)
      assert.deepEqual(Object.keys(line.details.stage).sort(), ['id', 'name', 'step'])
      assert.equal(typeof line.details.stage.step, 'string')
      assert.equal(line.error, null)
      assert.equal(typeof line.message?.safe_message, 'string')
    }
    const ids = lines.map((line) => BigInt(line.id))
    assert.ok(
      ids.every((id, i) => i === 0 || id > ids[i - 1]!),
      'oldest first: ids increase',
    )
    assert.ok(
      lines.every((line, i) => i === 0 || line.timestamp >= lines[i - 1]!.timestamp),
      'oldest first: timestamps do not go back',
    )

    const ofService = lines.filter((line) => line.details.transmitter.id === helm.id)
    const ofEnvironment = lines.filter((line) => line.details.transmitter.id === environment.id)
    assert.equal(ofService.length + ofEnvironment.length, lines.length, 'every line is of the service or of the environment')
    for (const line of ofService) {
      assert.deepEqual(line.details.transmitter, { id: helm.id, name: 'cache', type: 'HELM' })
      assert.equal(line.details.stage.name, 'HELM DEFAULT')
    }
    for (const line of ofEnvironment) assert.deepEqual(line.details.transmitter, { id: environment.id, name: environment.name, type: 'ENVIRONMENT' })

    const said = text(ofService)
    assert.ok(
      said.some((message) => message.includes('chart redis version 18.1.0')),
      said.join('\n'),
    )
    assert.ok(
      said.some((message) => message.includes('helm upgrade --install cache') && message.includes('--wait')),
      said.join('\n'),
    )
    assert.ok(said.some((message) => /deploy succeeded/.test(message)))
    assert.deepEqual(
      ofService.map((line) => line.details.stage.step).filter((step, i, all) => all.indexOf(step) === i),
      ['start', 'variables', 'chart', 'values', 'install', 'end'],
      'the steps of a helm deploy, in order',
    )
    assert.match(text(ofEnvironment)[0]!, /^deploy of 1 stage\(s\) triggered by API token /)
    assert.ok(text(ofEnvironment).includes('stage HELM DEFAULT started'))
    assert.equal(text(lines).at(-1), 'deploy succeeded')
  })

  it('shows a failed service’s ERROR lines, with their error, and the deployment’s reason at the end', async () => {
    const { environment, tokens } = await make.environmentWithTokens()
    const failing = await make.helmService(environment.id, { values_override: { set: [['berth.simulate.fail', 'true']] } })
    const healthy = await make.helmService(environment.id)
    const executionId = await deployed(environment.id, tokens.deploy.authorization)
    const lines = await logs(environment.id, tokens.read.authorization, executionId)

    const errors = lines.filter((line) => line.type === 'ERROR')
    assert.ok(errors.length >= 2, JSON.stringify(errors))
    const ofFailing = errors.filter((line) => line.details.transmitter.id === failing.id)
    assert.equal(ofFailing.length, 1)
    assert.match(ofFailing[0]!.message!.safe_message, /simulated deploy failure/)
    assert.deepEqual(ofFailing[0]!.error, { tag: 'DEPLOYMENT_ERROR', user_log_message: ofFailing[0]!.message!.safe_message })
    assert.equal(ofFailing[0]!.details.transmitter.type, 'HELM')
    const last = lines.at(-1)!
    assert.equal(last.type, 'ERROR')
    assert.equal(last.details.transmitter.type, 'ENVIRONMENT')
    assert.match(last.message!.safe_message, /^stage HELM DEFAULT failed: /)
    assert.ok(!errors.some((line) => line.details.transmitter.id === healthy.id), 'the healthy service wrote no error')
    for (const line of lines.filter((l) => l.type !== 'ERROR')) assert.equal(line.error, null)
  })

  it('answers the newest deployment’s lines without a version, none before the first, and 404 for an unknown version or another organization', async () => {
    const { environment, project, tokens } = await make.environmentWithTokens()
    const auth = tokens.read.authorization
    assert.deepEqual(await logs(environment.id, auth), [], 'an environment never deployed has no lines')
    await make.helmService(environment.id)
    const first = await deployed(environment.id, tokens.deploy.authorization)
    const second = await deployed(environment.id, tokens.deploy.authorization)

    const newest = await logs(environment.id, auth)
    assert.ok(newest.length > 0)
    assert.ok(
      newest.every((line) => line.details.execution_id === second),
      'the newest deployment’s',
    )
    assert.deepEqual(newest, await logs(environment.id, auth, second))
    const older = await logs(environment.id, auth, first)
    assert.ok(older.length > 0 && older.every((line) => line.details.execution_id === first))

    assertError(await calls.inject('GET', logsUrl(environment.id, randomUUID()), auth), 404, 'not_found')
    assertError(await calls.inject('GET', logsUrl(environment.id, 'not-an-execution-id'), auth), 404, 'not_found')
    // A deployment of another environment is not one of this environment's.
    const other = await make.environment(project.id)
    assertError(await calls.inject('GET', logsUrl(other.id, first), auth), 404, 'not_found')
    const stranger = await make.organizationWithTokens()
    assertError(await calls.inject('GET', logsUrl(environment.id), stranger.tokens.admin.authorization), 404, 'not_found')
    assertError(await calls.inject('GET', logsUrl(environment.id, first), stranger.tokens.admin.authorization), 404, 'not_found')
    const refused = await follow(`${logsUrl(environment.id, first).replace('/logs', '/logs/follow')}`, {
      authorization: stranger.tokens.admin.authorization,
    })
    assert.equal(refused.status, 404)
    assert.match(refused.type, /^application\/json/)
  })

  it('never shows a value of the values override, only its keys', async () => {
    const { environment, tokens } = await make.environmentWithTokens()
    const secrets = ['s3cr3t-value-123', 'an0ther-s3cr3t-456', '{"token":"j50n-s3cr3t-789"}', 'r4w-f1le-s3cr3t']
    const helm = await make.helmService(environment.id, {
      values_override: {
        set: [['db.password', secrets[0]!]],
        set_string: [['api.token', secrets[1]!]],
        set_json: [['auth', secrets[2]!]],
        file: { raw: { values: [{ name: 'secrets.yaml', content: `password: ${secrets[3]}` }] } },
      },
    })
    const deploy = await deployed(environment.id, tokens.deploy.authorization)
    await calls.trigger(`/helm/${helm.id}/redeploy`, tokens.deploy.authorization)
    await calls.waitUntilIdle(environment.id, tokens.deploy.authorization)
    const redeploy = (await calls.entries(environment.id, tokens.read.authorization))[0]!.identifier.execution_id

    for (const executionId of [deploy, redeploy]) {
      const lines = await logs(environment.id, tokens.read.authorization, executionId)
      const whole = JSON.stringify(lines)
      for (const secret of secrets) assert.ok(!whole.includes(secret.slice(0, 12)), `the logs show ${secret}`)
      assert.ok(whole.includes('db.password') && whole.includes('api.token') && whole.includes('secrets.yaml'), 'the keys and file names may show')
    }
    const followed = await follow(`/environment/${environment.id}/logs/follow?version=${deploy}`, { authorization: tokens.read.authorization })
    for (const secret of secrets) assert.ok(!JSON.stringify(followed.events).includes(secret.slice(0, 12)))
  })
})

describe('deployment logs of a running deployment', () => {
  it('can be read while it runs, and grow until it ends', async () => {
    const { environment, tokens } = await make.environmentWithTokens()
    await make.helmService(environment.id)
    await make.helmService(environment.id)
    const auth = tokens.read.authorization
    const { execution_id: executionId } = await calls.trigger(`/environment/${environment.id}/deploy`, tokens.deploy.authorization)

    // Lines of the deployment, read at a moment it still ran (its entry read after them says so).
    const early = await until(
      async () => {
        const lines = await logs(environment.id, auth, executionId)
        const [entry] = await calls.entries(environment.id, auth)
        return { lines, running: entry?.action_status === 'ONGOING' }
      },
      ({ lines, running }) => lines.length > 0 && running,
      { what: 'lines of the running deployment', timeoutMs: 15_000 },
    )
    assert.ok(!text(early.lines).includes('deploy succeeded'))
    await calls.waitUntilIdle(environment.id, auth)
    const all = await logs(environment.id, auth, executionId)
    assert.ok(all.length > early.lines.length, 'more lines once it ended')
    assert.deepEqual(all.slice(0, early.lines.length), early.lines, 'the lines read early come first, unchanged')
    assert.equal(text(all).at(-1), 'deploy succeeded')
  })

  it('follows a deployment with server-sent events from its first line to `event: end`, every line the list then shows', async () => {
    const { environment, tokens } = await make.environmentWithTokens()
    await make.helmService(environment.id)
    const auth = tokens.read.authorization
    const { execution_id: executionId } = await calls.trigger(`/environment/${environment.id}/deploy`, tokens.deploy.authorization)

    const followed = await follow(`/environment/${environment.id}/logs/follow?version=${executionId}`, { authorization: auth })
    assert.equal(followed.status, 200, JSON.stringify(followed.events))
    assert.match(followed.type, /^text\/event-stream/)
    assert.equal(followed.events.at(-1)?.event, 'end', 'the stream ends with `event: end`')
    const events = followed.events.slice(0, -1)
    assert.ok(
      events.every((event) => event.event === 'log'),
      JSON.stringify(events.map((event) => event.event)),
    )
    const sent = events.map((event) => JSON.parse(event.data) as LogLine)
    assert.deepEqual(
      events.map((event) => event.id),
      sent.map((line) => line.id),
      "each event's id is its line's",
    )
    const [entry] = await calls.entries(environment.id, auth)
    assert.ok(isFinished(entry!), 'the stream ended once the deployment had')
    assert.deepEqual(sent, await logs(environment.id, auth, executionId), 'every line, once, in order')
    assert.equal(text(sent).at(-1), 'deploy succeeded')
  })

  it('resumes after the line Last-Event-ID names, and from the first line for a Last-Event-ID it cannot read', async () => {
    const { environment, tokens } = await make.environmentWithTokens()
    await make.helmService(environment.id)
    const auth = tokens.read.authorization
    const executionId = await deployed(environment.id, tokens.deploy.authorization)
    const lines = await logs(environment.id, auth, executionId)
    const url = `/environment/${environment.id}/logs/follow?version=${executionId}`
    const data = (events: SseEvent[]) => events.filter((event) => event.event === 'log').map((event) => JSON.parse(event.data) as LogLine)

    const resumed = await follow(url, { authorization: auth, 'last-event-id': lines[2]!.id })
    assert.equal(resumed.events.at(-1)?.event, 'end')
    assert.deepEqual(data(resumed.events), lines.slice(3), 'the lines after the third')
    const atEnd = await follow(url, { authorization: auth, 'last-event-id': lines.at(-1)!.id })
    assert.deepEqual(
      atEnd.events.map((event) => event.event),
      ['end'],
    )
    const garbled = await follow(url, { authorization: auth, 'last-event-id': 'yesterday' })
    assert.deepEqual(data(garbled.events), lines)
    // Without a version, the newest deployment's.
    assert.deepEqual(data((await follow(`/environment/${environment.id}/logs/follow`, { authorization: auth })).events), lines)
    const unknown = await follow(`/environment/${environment.id}/logs/follow?version=${randomUUID()}`, { authorization: auth })
    assert.equal(unknown.status, 404)
  })
})

describe('deployment log retention', () => {
  it('deletes the lines older than the retention, and only those', async () => {
    const { environment, tokens } = await make.environmentWithTokens()
    await make.helmService(environment.id)
    const auth = tokens.read.authorization
    const executionId = await deployed(environment.id, tokens.deploy.authorization)
    const before = await logs(environment.id, auth, executionId)
    const [old, ...kept] = before as [LogLine, ...LogLine[]]
    await sql`update deployment_logs set created_at = now() - interval '2 hours' where id = ${old.id}::bigint`.execute(d.db)

    const runs = createDeploymentRunsRepository(d.db)
    assert.equal(await runs.pruneLogs(3 * 3_600_000), 0, 'nothing is older than three hours')
    assert.equal(await runs.pruneLogs(3_600_000), 1, 'the one line older than an hour')
    assert.deepEqual(await logs(environment.id, auth, executionId), kept)
    assert.equal(await runs.pruneLogs(3_600_000), 0)
    assert.match(executionId, UUID)
  })
})

describe('deployment log lines and the end of a deployment', () => {
  it('writes every line of a deployment before it is saved finished, so that a follower that sees it finished has every line', async () => {
    // A database of its own and a runner whose repository records the order of its writes.
    const database = await createIsolatedDatabase()
    const app = await createTestApp({ DATABASE_URL: database.url })
    try {
      const own = factories(app.db)
      const { environment, tokens } = await own.environmentWithTokens()
      await own.helmService(environment.id, { values_override: { set: [['berth.simulate.fail', 'true']] } })
      await deploymentCalls(app.app).trigger(`/environment/${environment.id}/deploy`, tokens.deploy.authorization)
      const runs = createDeploymentRunsRepository(app.db)
      const writes: string[] = []
      const recording: DeploymentRunsRepository = {
        ...runs,
        async save(run, runnerId, leaseMs, kinds) {
          const saved = await runs.save(run, runnerId, leaseMs, kinds)
          if (saved === 'saved' && runFinished(run)) writes.push('finished')
          return saved
        },
        async appendLogs(lines) {
          await runs.appendLogs(lines)
          for (const line of lines) writes.push(`line: ${line.message}`)
        },
      }
      const runner = createDeploymentRunner({
        kinds: KINDS,
        runs: recording,
        executor: createSimulatedExecutor({ stepMs: 20 }),
        options: { leaseMs: 2000, pollMs: 20, concurrency: 1, cancelMs: 10 },
        log: { info() {}, warn() {} },
      })
      runner.start()
      await until(
        () => deploymentCalls(app.app).entries(environment.id, tokens.read.authorization),
        (entries) => entries[0]?.action_status === 'ERROR',
      )
      await runner.stop()
      const finishedAt = writes.indexOf('finished')
      assert.ok(finishedAt > 0, writes.join('\n'))
      assert.deepEqual(writes.slice(finishedAt + 1), [], 'lines written after the run was saved finished')
    } finally {
      await app.close()
      await database.drop()
    }
  })
})
