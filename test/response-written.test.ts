import assert from 'node:assert/strict'
import { EventEmitter } from 'node:events'
import { describe, it } from 'node:test'
import { setImmediate as tick } from 'node:timers/promises'
import type { FastifyReply } from 'fastify'
import { responseWritten } from '#src/platform/http/response-written.ts'

/** A reply whose raw response is an event emitter that records being destroyed. */
function fakeReply(state: { writableFinished?: boolean; destroyed?: boolean } = {}) {
  const raw = Object.assign(new EventEmitter(), {
    writableFinished: state.writableFinished ?? false,
    destroyed: state.destroyed ?? false,
    destroy() {
      raw.destroyed = true
      raw.emit('close')
    },
  })
  return { raw, reply: { raw } as unknown as FastifyReply }
}

/** Whether the promise has settled by the next turn of the event loop. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false
  void promise.then(() => {
    done = true
  })
  await tick()
  return done
}

describe('responseWritten', () => {
  it('resolves once the response is written out, or its connection closed', async () => {
    for (const event of ['finish', 'close']) {
      const { raw, reply } = fakeReply()
      const written = responseWritten(reply, 60_000)
      assert.equal(await settled(written), false)
      raw.emit(event)
      assert.equal(await settled(written), true, event)
      assert.equal(raw.destroyed, false)
      assert.equal(raw.listenerCount('finish') + raw.listenerCount('close'), 0, 'no listener left behind')
    }
  })

  it('resolves at once for a response already written or closed', async () => {
    assert.equal(await settled(responseWritten(fakeReply({ writableFinished: true }).reply, 60_000)), true)
    assert.equal(await settled(responseWritten(fakeReply({ destroyed: true }).reply, 60_000)), true)
  })

  it('closes the connection of a response not written out in time', async () => {
    const { raw, reply } = fakeReply()
    // Its timer does not keep a process alive (a stopping server need not wait for it): this one does.
    const alive = setTimeout(() => {}, 10_000)
    await responseWritten(reply, 20)
    clearTimeout(alive)
    assert.equal(raw.destroyed, true)
  })
})
