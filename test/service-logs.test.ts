import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { type DeploymentCalls, type DeploymentsTestApp, until } from './helpers/deployments.ts'
import { buildScriptImage, type LoopbackRegistry } from './helpers/docker.ts'
import { registryWorld, startDockerSuite, stopDockerSuite } from './helpers/docker-world.ts'
import { factories } from './helpers/factories.ts'

// Issue 35, "Service logs": what a deployed service prints, read from the real Docker engine of
// this machine through `GET /{kind}/{id}/log` and followed with server-sent events.

/** Prints a numbered tick each second (the numbers show a gap or a repeat), a line on stderr, and its secret once. */
const TICKER_SCRIPT = `#!/bin/sh
trap 'exit 0' TERM
echo "the key is $API_KEY"
echo "warming up on stderr" >&2
i=0
while true; do i=$((i+1)); echo "tick-$i"; sleep 1 & wait; done
`
const SECRET = 'ticker-s3cret-value'
/** A database image that says its password (as a careless entrypoint might) and listens on 5432. */
const DATABASE_SCRIPT = `#!/bin/sh
trap 'exit 0' TERM
echo "starting with password $POSTGRES_PASSWORD"
httpd -f -p 5432 -h /tmp &
wait
`

let t: DeploymentsTestApp
let calls: DeploymentCalls
let registry: LoopbackRegistry
let basePath: string
const environments: string[] = []

before(async () => {
  ;({ registry, t, calls } = await startDockerSuite({ BERTH_DOCKER_DATABASE_IMAGES: 'berth-test/logs-library' }, async (registry) => {
    await buildScriptImage('berth-test/ticker:build', 'tick.sh', TICKER_SCRIPT)
    await registry.push('berth-test/ticker:build', 'ticker', '1')
    await buildScriptImage('berth-test/logs-library/postgres:16', 'db.sh', DATABASE_SCRIPT)
  }))
  basePath = await t.listen()
})

after(() => stopDockerSuite({ t, registry }, environments))

interface Log {
  id: string
  created_at: string
  message: string
  pod_name?: string
  version?: string
  instance: string | null
  stream: 'stdout' | 'stderr' | null
}

interface SseEvent {
  event: string
  id?: string
  data: string
}

/**
 * Reads a server-sent event stream until `enough` says so, `event: end`, or the end of the body;
 * then hangs up (a dropped connection). Fails when it takes more than `timeoutMs`.
 */
async function follow(url: string, headers: Record<string, string>, enough: (events: SseEvent[]) => boolean, timeoutMs = 30_000) {
  const stop = new AbortController()
  const timer = setTimeout(() => stop.abort(new Error(`no end to ${url} after ${timeoutMs} ms`)), timeoutMs)
  try {
    const res = await fetch(`${basePath}${url}`, { headers: { accept: 'text/event-stream', ...headers }, signal: stop.signal })
    if (res.status !== 200 || !res.body) return { status: res.status, events: [{ event: 'error', data: await res.text() }] }
    const events: SseEvent[] = []
    const decoder = new TextDecoder()
    let buffer = ''
    const reader = res.body.getReader()
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      buffer += decoder.decode(value, { stream: true })
      for (let end = buffer.indexOf('\n\n'); end !== -1; end = buffer.indexOf('\n\n')) {
        const block = buffer.slice(0, end)
        buffer = buffer.slice(end + 2)
        const event: SseEvent = { event: 'message', data: '' }
        let fields = 0
        for (const line of block.split('\n')) {
          if (line.startsWith(':')) continue
          const [field, ...rest] = line.split(':')
          const text = rest.join(':').replace(/^ /, '')
          fields++
          if (field === 'event') event.event = text
          else if (field === 'id') event.id = text
          else if (field === 'data') event.data += text
        }
        if (fields > 0) events.push(event)
        if (event.event === 'end' || enough(events)) {
          stop.abort()
          return { status: 200, events }
        }
      }
    }
    return { status: 200, events }
  } finally {
    clearTimeout(timer)
  }
}

const logsOf = (events: SseEvent[]) => events.filter((event) => event.event === 'log').map((event) => JSON.parse(event.data) as Log)
const tickOf = (log: Log) => Number(/^tick-(\d+)$/.exec(log.message)?.[1] ?? Number.NaN)
const ticks = (logs: Log[]) => logs.map(tickOf).filter((tick) => !Number.isNaN(tick))

const world = () => registryWorld(t, calls, registry, environments)

async function secretVariable(authorization: string, scope: string, parentId: string, key: string, value: string) {
  const res = await calls.inject('POST', '/variable', authorization, {
    key,
    value,
    is_secret: true,
    variable_scope: scope,
    variable_parent_id: parentId,
  })
  assert.equal(res.statusCode, 201, res.body)
}

describe('service logs on the Docker engine', () => {
  it("lists and follows a container's lines, each with its instance, time and stream, secrets masked; resumes a dropped stream without a gap or a repeat; ends when it stops", async () => {
    const { environment, tokens, registryId } = await world()
    const created = await calls.inject('POST', `/environment/${environment.id}/container`, tokens.write.authorization, {
      name: 'ticker',
      registry_id: registryId,
      image_name: 'ticker',
      tag: '1',
      arguments: [],
      cpu: 250,
      memory: 64,
      min_running_instances: 1,
      max_running_instances: 1,
      ports: [],
      healthchecks: {},
    })
    assert.equal(created.statusCode, 201, created.body)
    const containerId = created.json().id as string
    await secretVariable(tokens.write.authorization, 'CONTAINER', containerId, 'API_KEY', SECRET)

    // Before any deployment: nothing printed.
    const empty = await calls.inject('GET', `/container/${containerId}/log`, tokens.read.authorization)
    assert.equal(empty.statusCode, 200, empty.body)
    assert.deepEqual(empty.json(), { results: [] })

    const queued = await calls.trigger(`/container/${containerId}/deploy`, tokens.deploy.authorization)
    const [entry] = await calls.waitUntilIdle(environment.id, tokens.read.authorization)
    assert.equal(entry!.status, 'DEPLOYED')

    // READ reads the last lines: the ticks, the stderr line, the secret masked.
    const listed = await until(
      async () => {
        const res = await calls.inject('GET', `/container/${containerId}/log`, tokens.read.authorization)
        assert.equal(res.statusCode, 200, res.body)
        return { body: res.body, results: (res.json() as { results: Log[] }).results }
      },
      (found) => ticks(found.results).length >= 2,
      { what: 'two ticks in the container log', timeoutMs: 20_000, intervalMs: 250 },
    )
    assert.doesNotMatch(listed.body, new RegExp(SECRET))
    assert.ok(listed.results.some((log) => log.message === 'the key is ***' && log.stream === 'stdout'))
    const stderr = listed.results.find((log) => log.message === 'warming up on stderr')
    assert.equal(stderr?.stream, 'stderr')
    const tick = listed.results.find((log) => log.message === 'tick-1')!
    assert.equal(tick.instance, '0')
    assert.equal(tick.version, queued.execution_id)
    assert.match(tick.pod_name ?? '', /^berth-ticker-/)
    assert.match(tick.id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-8[0-9a-f]{3}-[0-9a-f]{12}$/)
    assert.ok(!Number.isNaN(Date.parse(tick.created_at)))
    assert.deepEqual(
      ticks(listed.results),
      ticks(listed.results).map((_, index) => index + 1),
      'every tick once, in order',
    )

    // Another organization's member is told the container does not exist, as for a random id.
    const stranger = await factories(t.db).environmentWithTokens()
    const refused = await calls.inject('GET', `/container/${containerId}/log`, stranger.tokens.admin.authorization)
    assert.equal(refused.statusCode, 404, refused.body)
    const refusedFollow = await follow(`/container/${containerId}/log/follow`, { authorization: stranger.tokens.admin.authorization }, () => true)
    assert.equal(refusedFollow.status, 404)
    // A job's route does not read a container.
    assert.equal((await calls.inject('GET', `/job/${containerId}/log`, tokens.read.authorization)).statusCode, 404)

    // Following: the last lines, then ticks printed after it began.
    const lastListed = Math.max(...ticks(listed.results))
    const first = await follow(`/container/${containerId}/log/follow`, { authorization: tokens.read.authorization }, (events) =>
      ticks(logsOf(events)).some((n) => n > lastListed + 1),
    )
    assert.equal(first.status, 200, JSON.stringify(first.events))
    const firstLogs = logsOf(first.events)
    assert.doesNotMatch(JSON.stringify(first.events), new RegExp(SECRET))
    assert.ok(firstLogs.some((log) => log.message === 'the key is ***'))
    assert.deepEqual(
      ticks(firstLogs),
      ticks(firstLogs).map((_, index) => index + 1),
      'the follower got every tick once, in order',
    )

    // Dropped: ticks go on meanwhile; resuming at the last event's id gives the next tick first, and none twice.
    const lastEvent = first.events.filter((event) => event.event === 'log').at(-1)!
    const lastTick = Math.max(...ticks(firstLogs))
    await new Promise((resolve) => setTimeout(resolve, 2500))
    const resumed = await follow(
      `/container/${containerId}/log/follow`,
      { authorization: tokens.read.authorization, 'last-event-id': lastEvent.id! },
      (events) => ticks(logsOf(events)).length >= 4,
    )
    assert.equal(resumed.status, 200, JSON.stringify(resumed.events))
    const resumedTicks = ticks(logsOf(resumed.events))
    assert.deepEqual(
      resumedTicks,
      resumedTicks.map((_, index) => lastTick + 1 + index),
      'the resumed stream goes on at the next tick',
    )
    assert.ok(!logsOf(resumed.events).some((log) => log.message === 'the key is ***'), 'nothing before the id is sent again')

    // A garbled Last-Event-ID starts afresh, from the last lines.
    const garbled = await follow(
      `/container/${containerId}/log/follow`,
      { authorization: tokens.read.authorization, 'last-event-id': 'yesterday' },
      (events) => ticks(logsOf(events)).length >= 1,
    )
    assert.equal(ticks(logsOf(garbled.events))[0], 1)

    // A redeploy's new instance joins the stream, which goes on meanwhile.
    let redeployed = ''
    const following = follow(
      `/container/${containerId}/log/follow`,
      { authorization: tokens.read.authorization },
      (events) => logsOf(events).some((log) => log.version === redeployed && tickOf(log) >= 2),
      90_000,
    )
    redeployed = (await calls.trigger(`/container/${containerId}/redeploy`, tokens.deploy.authorization)).execution_id
    const across = await following
    assert.notEqual(across.events.at(-1)?.event, 'end', 'the stream went on across the redeploy')
    const fresh = logsOf(across.events).filter((log) => log.version === redeployed)
    assert.deepEqual(ticks(fresh).slice(0, 2), [1, 2], "the new instance's lines from its first")
    await calls.waitUntilIdle(environment.id, tokens.read.authorization)

    // The stream ends once the container stops.
    const ending = follow(`/container/${containerId}/log/follow`, { authorization: tokens.read.authorization }, () => false, 90_000)
    await calls.trigger(`/container/${containerId}/stop`, tokens.deploy.authorization)
    const ended = await ending
    assert.equal(ended.status, 200)
    assert.equal(ended.events.at(-1)?.event, 'end', 'the stream ends with `event: end`')
  })

  it("masks a database's password in what it prints", async () => {
    const { environment, tokens } = await world()
    const database = await factories(t.db).database(environment.id)
    await calls.trigger(`/database/${database.id}/deploy`, tokens.deploy.authorization)
    const [entry] = await calls.waitUntilIdle(environment.id, tokens.read.authorization)
    assert.equal(entry!.status, 'DEPLOYED')
    const credentials = (await calls.inject('GET', `/database/${database.id}/masterCredentials`, tokens.write.authorization)).json()
    assert.ok(credentials.password.length >= 8)
    const listed = await until(
      () => calls.inject('GET', `/database/${database.id}/log`, tokens.read.authorization),
      (res) => res.statusCode !== 200 || res.body.includes('starting with password'),
      { what: "the database's first line", timeoutMs: 20_000, intervalMs: 250 },
    )
    assert.equal(listed.statusCode, 200, listed.body)
    assert.ok(!listed.body.includes(credentials.password), 'the password is masked')
    assert.deepEqual(
      (listed.json() as { results: Log[] }).results.map((log) => log.message),
      ['starting with password ***'],
    )
  })

  it("keeps a job run's output readable once the run ended, secrets masked", async () => {
    const { environment, tokens, registryId } = await world()
    await secretVariable(tokens.write.authorization, 'ENVIRONMENT', environment.id, 'JOB_TOKEN', 'job-s3cret-value')
    const res = await calls.inject('POST', `/environment/${environment.id}/job`, tokens.write.authorization, {
      name: 'migrate',
      cpu: 250,
      memory: 64,
      max_nb_restart: 0,
      max_duration_seconds: 60,
      source: { image: { image_name: 'ticker', tag: '1', registry_id: registryId } },
      schedule: { on_start: { entrypoint: '/bin/sh', arguments: ['-c', 'echo "job-marker with $JOB_TOKEN"; echo "job-warning" >&2; exit 0'] } },
      healthchecks: {},
    })
    assert.equal(res.statusCode, 201, res.body)
    const jobId = res.json().id as string
    const queued = await calls.trigger(`/job/${jobId}/deploy`, tokens.deploy.authorization)
    const [entry] = await calls.waitUntilIdle(environment.id, tokens.read.authorization)
    assert.equal(entry!.status, 'DEPLOYED')

    const listed = await calls.inject('GET', `/job/${jobId}/log`, tokens.read.authorization)
    assert.equal(listed.statusCode, 200, listed.body)
    const { results } = listed.json() as { results: Log[] }
    assert.doesNotMatch(listed.body, /job-s3cret-value/)
    const marker = results.find((log) => log.message === 'job-marker with ***')
    assert.ok(marker, listed.body)
    assert.equal(marker.version, queued.execution_id)
    assert.ok(results.some((log) => log.message === 'job-warning'))

    const stranger = await factories(t.db).environmentWithTokens()
    assert.equal((await calls.inject('GET', `/job/${jobId}/log`, stranger.tokens.admin.authorization)).statusCode, 404)
  })
})
