import assert from 'node:assert/strict'
import { connect, type Socket } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { createTestApp, type TestApp } from './helpers/app.ts'
import { factories } from './helpers/factories.ts'

// Issue 31, item 3: connections that ask for a list of services and never read the answer must
// hold up no one else. A page too large for the socket buffers stays unwritten while its client
// does not read, for up to the 60 s write timeout; another credential's list must not wait for it.

const SERVICES = 100
// Under BERTH_SERVICE_CONFIG_MAX_BYTES's default, which the factories keep: 20 MB a page.
const VALUES_BYTES = 200 * 1024

describe('a client that does not read its list of services', () => {
  let t: TestApp
  let address: { host: string; port: number }
  const sockets: Socket[] = []
  before(async () => {
    t = await createTestApp({
      BERTH_LIST_MAX_BYTES: String(2 * SERVICES * VALUES_BYTES),
      BERTH_RATE_LIMIT_PER_CREDENTIAL: '0',
      BERTH_RATE_LIMIT_PER_ADDRESS: '0',
    })
    await t.app.listen({ port: 0, host: '127.0.0.1' })
    const bound = t.app.server.address() as { port: number }
    address = { host: '127.0.0.1', port: bound.port }
  })
  after(async () => {
    for (const socket of sockets) socket.destroy()
    await t?.close()
  })

  /** Asks for `path` and reads nothing past the first bytes of the answer; resolves once those came. */
  function askWithoutReading(path: string, authorization: string): Promise<Socket> {
    return new Promise((resolve, reject) => {
      const socket = connect(address.port, address.host)
      sockets.push(socket)
      socket.once('error', reject)
      socket.once('data', () => {
        socket.pause()
        resolve(socket)
      })
      socket.write(`GET ${path} HTTP/1.1\r\nHost: berth\r\nAuthorization: ${authorization}\r\n\r\n`)
    })
  }

  it("answers an ADMIN's list of the same organization while three READ connections sit on theirs", async () => {
    const f = factories(t.db)
    const { environment, tokens } = await f.environmentWithTokens()
    for (let i = 0; i < SERVICES; i++) {
      await f.helmService(environment.id, {
        name: `big-${i}`,
        values_override: { file: { raw: { values: [{ name: 'values.yaml', content: 'x'.repeat(VALUES_BYTES - 4096) }] } } },
      })
    }
    const path = `/environment/${environment.id}/helm`
    // The first is being written (its first bytes came), the next two wait behind it.
    const stalled = [await askWithoutReading(path, tokens.read.authorization)]
    for (let i = 0; i < 2; i++) {
      const socket = connect(address.port, address.host)
      sockets.push(socket)
      socket.pause()
      socket.write(`GET ${path} HTTP/1.1\r\nHost: berth\r\nAuthorization: ${tokens.read.authorization}\r\n\r\n`)
      stalled.push(socket)
    }
    const closed = stalled.map(() => false)
    for (const [index, socket] of stalled.entries()) {
      socket.once('close', () => {
        closed[index] = true
      })
    }

    const started = performance.now()
    // Bounded well under the 60 s a stalled page may hold its turn: waiting behind them fails here.
    const res = await fetch(`http://${address.host}:${address.port}${path}`, {
      headers: { authorization: tokens.admin.authorization },
      signal: AbortSignal.timeout(45_000),
    })
    assert.equal(res.status, 200)
    const body = (await res.json()) as { results: unknown[] }
    assert.equal(body.results.length, SERVICES)
    process.stderr.write(`the ADMIN list took ${Math.round(performance.now() - started)} ms\n`)
    assert.deepEqual(closed, [false, false, false], 'the stalled connections are still open: the ADMIN did not wait for them')
  })
})
