import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { setImmediate as tick } from 'node:timers/promises'
import { createKeyedTurns } from '#src/platform/keyed-turns.ts'

/** A piece of work that runs until released, recording when it started and ended. */
function gate(log: string[], name: string) {
  let release: () => void = () => {}
  const released = new Promise<void>((resolve) => {
    release = resolve
  })
  return {
    release: () => release(),
    work: async () => {
      log.push(`${name} start`)
      await released
      log.push(`${name} end`)
      return name
    },
  }
}

describe('keyed turns', () => {
  it('runs the work of one key one at a time in call order, and the work of other keys at once', async () => {
    const turns = createKeyedTurns()
    const log: string[] = []
    const [a1, a2, b1] = [gate(log, 'a1'), gate(log, 'a2'), gate(log, 'b1')]
    const results = [turns.run('a', a1.work), turns.run('a', a2.work), turns.run('b', b1.work)]
    await tick()
    assert.deepEqual(log, ['a1 start', 'b1 start'], 'a2 waits for a1; b1 does not')
    a2.release() // released early: it still may not start before a1 ends
    await tick()
    assert.deepEqual(log, ['a1 start', 'b1 start'])
    a1.release()
    b1.release()
    assert.deepEqual(await Promise.all(results), ['a1', 'a2', 'b1'])
    assert.ok(log.indexOf('a1 end') < log.indexOf('a2 start'))
    await tick()
    assert.equal(turns.size, 0, 'nothing kept once every turn is over')
  })

  it('lets the next turn run after a failed one, and hands the failure to its own caller only', async () => {
    const turns = createKeyedTurns()
    const failed = turns.run('a', async () => {
      throw new Error('boom')
    })
    const next = turns.run('a', async () => 'next')
    await assert.rejects(failed, /boom/)
    assert.equal(await next, 'next')
  })

  it('holds a turn until the promise holdUntil returns settles, and not after a failed work', async () => {
    const turns = createKeyedTurns()
    const log: string[] = []
    let release: () => void = () => {}
    const held = new Promise<void>((resolve) => {
      release = resolve
    })
    const first = turns.run(
      'a',
      async () => 'page',
      async (result) => {
        log.push(`holding ${result}`)
        await held
      },
    )
    const second = turns.run('a', async () => log.push('second'))
    assert.equal(await first, 'page', 'the caller has its result while the turn is held')
    await tick()
    assert.deepEqual(log, ['holding page'], 'the next turn waits for the hold')
    release()
    await second
    assert.deepEqual(log, ['holding page', 'second'])

    const failed = turns.run(
      'a',
      async () => {
        throw new Error('boom')
      },
      async () => {
        log.push('never')
        await new Promise(() => {})
      },
    )
    await assert.rejects(failed, /boom/)
    assert.equal(await turns.run('a', async () => 'after'), 'after')
    assert.ok(!log.includes('never'))
  })
})
