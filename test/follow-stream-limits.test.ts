/**
 * Issue 42, item 6: log follow streams are bounded. 200 follow streams opened with one READ token
 * over real HTTP: those past BERTH_FOLLOW_STREAMS_PER_CREDENTIAL are refused with 429 in the
 * documented error shape, another token of the organization is refused past
 * BERTH_FOLLOW_STREAMS_PER_ORGANIZATION, and another organization is still served, its follow
 * streams included. Streams closed give their places back.
 */
import assert from 'node:assert/strict'
import http from 'node:http'
import { after, before, describe, it } from 'node:test'
import { createDeploymentsApp, type DeploymentsTestApp, deploymentCalls, until } from './helpers/deployments.ts'
import { factories } from './helpers/factories.ts'

const PER_CREDENTIAL = 5
const PER_ORGANIZATION = 8

// biome-ignore lint/suspicious/noExplicitAny: error bodies are read field by field
type Body = Record<string, any>

describe('log follow streams are bounded (issue 42)', () => {
  let t: DeploymentsTestApp
  let base: string
  let f: ReturnType<typeof factories>
  const open: AbortController[] = []

  before(async () => {
    // Deployments that stay running: their logs are followed until the test lets go.
    t = await createDeploymentsApp(600_000, {
      BERTH_FOLLOW_STREAMS_PER_CREDENTIAL: String(PER_CREDENTIAL),
      BERTH_FOLLOW_STREAMS_PER_ORGANIZATION: String(PER_ORGANIZATION),
      BERTH_RATE_LIMIT_PER_CREDENTIAL: '100000',
    })
    base = await t.listen()
    f = factories(t.db)
  })
  after(async () => {
    for (const controller of open) controller.abort()
    await t?.close()
  })

  /** An organization with an environment whose deployment runs (the simulator's long step). */
  async function runningWorld() {
    const w = await f.environmentWithTokens()
    await f.helmService(w.environment.id)
    await deploymentCalls(t.app).trigger(`/environment/${w.environment.id}/deploy`, w.tokens.deploy.authorization)
    return w
  }

  /** Opens a follow stream on a connection of its own; its status, and its body left open until the test aborts it. */
  function follow(url: string, authorization: string) {
    const controller = new AbortController()
    open.push(controller)
    return new Promise<{ status: number; body: Body; headers: http.IncomingHttpHeaders; controller: AbortController }>((resolve, reject) => {
      const req = http.get(`${base}${url}`, { headers: { authorization }, agent: false, signal: controller.signal }, (res) => {
        const status = res.statusCode ?? 0
        if (status === 200) {
          res.on('error', () => {})
          resolve({ status, body: {}, headers: res.headers, controller })
          return
        }
        let text = ''
        res.setEncoding('utf8')
        res.on('data', (chunk: string) => {
          text += chunk
        })
        res.on('end', () => {
          controller.abort()
          resolve({ status, body: JSON.parse(text) as Body, headers: res.headers, controller })
        })
      })
      req.on('error', (error) => {
        if (!controller.signal.aborted) reject(error)
      })
    })
  }

  it('refuses streams past the limits with 429 in the error shape, serves other organizations, and gives places back on close', async () => {
    const a = await runningWorld()
    const b = await runningWorld()
    const url = `/environment/${a.environment.id}/logs/follow`

    const attempts = await Promise.all(Array.from({ length: 200 }, () => follow(url, a.tokens.read.authorization)))
    const served = attempts.filter((attempt) => attempt.status === 200)
    const refused = attempts.filter((attempt) => attempt.status !== 200)
    assert.equal(served.length, PER_CREDENTIAL)
    assert.equal(refused.length, 200 - PER_CREDENTIAL)
    for (const attempt of refused) {
      assert.equal(attempt.status, 429)
      assert.equal(attempt.body.status, 429)
      assert.equal(attempt.body.code, 'rate_limited')
      assert.equal(typeof attempt.body.error, 'string')
      assert.match(attempt.body.message, /BERTH_FOLLOW_STREAMS_PER_CREDENTIAL is 5/)
      assert.equal(attempt.body.detail, attempt.body.message)
      assert.equal(typeof attempt.body.request_id, 'string')
      assert.equal(attempt.headers['retry-after'], '5')
    }

    // Another credential of the organization: up to the organization's limit, then 429 too; a
    // service's follower counts in the same organization.
    const more = await Promise.all(Array.from({ length: 10 }, () => follow(url, a.tokens.write.authorization)))
    assert.equal(more.filter((attempt) => attempt.status === 200).length, PER_ORGANIZATION - PER_CREDENTIAL)
    const beyond = more.find((attempt) => attempt.status === 429)
    assert.match(beyond?.body.message ?? '', /BERTH_FOLLOW_STREAMS_PER_ORGANIZATION is 8/)

    // Another organization is served, its follow streams included.
    const organization = await fetch(`${base}/organization/${b.organization.id}`, { headers: { authorization: b.tokens.read.authorization } })
    assert.equal(organization.status, 200)
    const theirs = await follow(`/environment/${b.environment.id}/logs/follow`, b.tokens.read.authorization)
    assert.equal(theirs.status, 200)
    theirs.controller.abort()

    // Closed streams give their places back.
    for (const attempt of [...served, ...more]) attempt.controller.abort()
    const again = await until(
      () => follow(url, a.tokens.read.authorization),
      (attempt) => attempt.status === 200,
      { what: 'a stream opened again once the others closed' },
    )
    assert.equal(again.status, 200)
    again.controller.abort()
  })

  it('counts the service logs follower alike, and refuses no stream the credential may not open anyway (404 before 429)', async () => {
    const a = await runningWorld()
    const helm = await f.helmService(a.environment.id)
    const held = await Promise.all(
      Array.from({ length: PER_CREDENTIAL }, () => follow(`/environment/${a.environment.id}/logs/follow`, a.tokens.read.authorization)),
    )
    assert.ok(held.every((attempt) => attempt.status === 200))
    const service = await follow(`/helm/${helm.id}/log/follow`, a.tokens.read.authorization)
    assert.equal(service.status, 429)
    assert.equal(service.body.code, 'rate_limited')
    // Another organization's environment: not found, whatever the limits.
    const other = await runningWorld()
    const foreign = await follow(`/environment/${other.environment.id}/logs/follow`, a.tokens.read.authorization)
    assert.equal(foreign.status, 404)
    for (const attempt of held) attempt.controller.abort()
  })

  it('a client that only closes the response (as an inject hanging up does) gives its place back too', async () => {
    const a = await runningWorld()
    for (let i = 0; i < PER_CREDENTIAL * 3; i++) {
      const hangUp = new AbortController()
      const res = await t.app.inject({
        method: 'GET',
        url: `/environment/${a.environment.id}/logs/follow`,
        headers: { authorization: a.tokens.read.authorization },
        payloadAsStream: true,
        signal: hangUp.signal,
      })
      assert.equal(res.statusCode, 200, `stream ${i}`)
      const stream = res.stream()
      await new Promise<void>((resolve) => {
        stream.once('data', () => resolve())
        stream.once('close', () => resolve())
      })
      hangUp.abort()
      stream.destroy()
    }
  })
})
