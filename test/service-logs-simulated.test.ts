import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { nanosOf } from '#src/modules/executors/followed-output.ts'
import { decodeCursor, encodeCursor } from '#src/modules/services/logs/service-logs.service.ts'
import { createDeploymentsApp, type DeploymentCalls, type DeploymentsTestApp, deploymentCalls } from './helpers/deployments.ts'
import { factories } from './helpers/factories.ts'

// Issue 35, "Service logs", where no engine runs the services: the simulated executor's services
// print nothing. And the follower's position (the events' ids), which must survive a round trip
// and refuse what Berth did not give. test/service-logs.test.ts reads the real Docker engine.

let d: DeploymentsTestApp
let calls: DeploymentCalls
let basePath: string

before(async () => {
  d = await createDeploymentsApp(0)
  calls = deploymentCalls(d.app)
  basePath = await d.listen()
})

after(async () => d?.close())

describe('service logs on the simulated executor', () => {
  it('lists nothing for a deployed service of any kind, and a follower ends at once', async () => {
    const make = factories(d.db)
    const { environment, tokens } = await make.environmentWithTokens()
    const container = await make.containerService(environment.id)
    const job = await make.job(environment.id)
    await calls.trigger(`/environment/${environment.id}/deploy`, tokens.deploy.authorization)
    await calls.waitUntilIdle(environment.id, tokens.read.authorization)

    for (const path of [`/container/${container.id}/log`, `/job/${job.id}/log`]) {
      const res = await calls.inject('GET', path, tokens.read.authorization)
      assert.equal(res.statusCode, 200, res.body)
      assert.deepEqual(res.json(), { results: [] }, path)
    }
    const res = await fetch(`${basePath}/container/${container.id}/log/follow`, {
      headers: { authorization: tokens.read.authorization, accept: 'text/event-stream' },
      signal: AbortSignal.timeout(20_000),
    })
    assert.equal(res.status, 200)
    assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/)
    const body = await res.text()
    assert.doesNotMatch(body, /event: log/)
    assert.match(body, /event: end\n/)
  })
})

describe("a service log follower's position", () => {
  it('comes back from its event id as it was given', () => {
    const cursor = { since: '2026-11-28T12:00:00.000Z', positions: { '0123456789ab': '2026-11-28T12:00:01.123456789Z' } }
    assert.deepEqual(decodeCursor(encodeCursor(cursor)), cursor)
  })

  it('is refused when Berth did not give it: the follower starts afresh', () => {
    const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')
    for (const id of [
      undefined,
      '',
      'yesterday',
      '42',
      encode({ since: 'now', positions: {} }),
      encode({ since: '2026-11-28T12:00:00Z', positions: { 'not-a-container': '2026-11-28T12:00:00Z' } }),
      encode({ since: '2026-11-28T12:00:00Z', positions: { '0123456789ab': "'; drop table services; --" } }),
      encode({ since: '2026-11-28T12:00:00Z', positions: null }),
      'x'.repeat(5000),
    ])
      assert.equal(decodeCursor(id), undefined, String(id).slice(0, 80))
  })

  it('orders the engine times, whose trailing zeros it trims, by their value', () => {
    assert.ok(nanosOf('2026-11-28T12:00:01.5Z') > nanosOf('2026-11-28T12:00:01.123456789Z'))
    assert.equal(nanosOf('2026-11-28T12:00:01.5Z'), nanosOf('2026-11-28T12:00:01.500000000Z'))
    assert.equal(nanosOf('2026-11-28T12:00:01Z') + 1n, nanosOf('2026-11-28T12:00:01.000000001Z'))
    assert.equal(nanosOf('2026-11-28T13:00:01+01:00'), nanosOf('2026-11-28T12:00:01Z'))
    assert.equal(nanosOf('soon'), -1n)
  })
})
