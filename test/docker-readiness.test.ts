import assert from 'node:assert/strict'
import { createServer, type Server } from 'node:net'
import { after, before, describe, it } from 'node:test'
import type Docker from 'dockerode'
import { waitReady } from '#src/modules/executors/docker/readiness.ts'

// A probeless instance's readiness (issue 50): it is up as soon as its port takes a connection,
// without waiting out the settle second; one that exits first is not. The engine is a stand-in
// whose container runs at 127.0.0.1 for its first inspection and has exited from the second on,
// so only the port check can make it ready.

function engineWhoseContainerExitsAfterOneLook(): Docker {
  let looks = 0
  const inspect = async () => {
    looks++
    return looks === 1
      ? { State: { Running: true, ExitCode: 0 }, NetworkSettings: { Networks: { env: { IPAddress: '127.0.0.1' } } } }
      : { State: { Running: false, ExitCode: 3 }, NetworkSettings: { Networks: {} } }
  }
  return { getContainer: () => ({ inspect }) } as unknown as Docker
}

describe('the readiness of an instance without a probe', () => {
  let server: Server
  let port: number
  before(async () => {
    server = createServer((socket) => socket.end())
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    port = (server.address() as { port: number }).port
  })
  after(() => new Promise<void>((resolve) => server.close(() => resolve())))

  it('is ready as soon as its port takes a connection', async () => {
    const readiness = await waitReady(engineWhoseContainerExitsAfterOneLook(), 'c', null, port, new AbortController().signal)
    assert.deepEqual(readiness, { ready: true })
  })

  it('is not ready when it exits before its port answers or the settle time ends', async () => {
    const closed = createServer()
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
    const closedPort = (closed.address() as { port: number }).port
    await new Promise<void>((resolve) => closed.close(() => resolve()))
    const readiness = await waitReady(engineWhoseContainerExitsAfterOneLook(), 'c', null, closedPort, new AbortController().signal)
    assert.deepEqual(readiness, { ready: false, reason: 'it exited with code 3' })
  })

  it('without a port, waits out the settle time and sees an exit', async () => {
    const readiness = await waitReady(engineWhoseContainerExitsAfterOneLook(), 'c', null, undefined, new AbortController().signal)
    assert.deepEqual(readiness, { ready: false, reason: 'it exited with code 3' })
  })
})
