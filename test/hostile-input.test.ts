/**
 * Issue 8, hostile input: fast-check throws random and adversarial paths, query strings, headers
 * and bodies at every route of the OpenAPI document (and at unknown ones). Never a 5xx, always the
 * error shape, no credential, stack trace or SQL in an answer, and a refused write changes nothing
 * in the database. HOSTILE_SEED replays a run (fast-check prints the seed of a failing one),
 * HOSTILE_RUNS sets its length, and HOSTILE_STATS=1 prints how often each route answered each code.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import fc from 'fast-check'
import { assertNoPollution, type Harness, prototypeState, requestArb, startHarness } from './helpers/hostile.ts'

const RUNS = Number(process.env.HOSTILE_RUNS ?? 400)
const SEED = process.env.HOSTILE_SEED === undefined ? undefined : Number(process.env.HOSTILE_SEED)

describe('hostile input at every route, property-based', () => {
  let h: Harness
  let prototypes: string
  before(async () => {
    prototypes = prototypeState()
    h = await startHarness()
  })
  after(async () => h?.close())

  it('never answers 5xx, answers every error in the error shape, shows no secret, and a refused write changes nothing', async () => {
    let refusedWrites = 0
    let accepted = 0
    const stats = new Map<string, number>()
    await fc.assert(
      fc.asyncProperty(requestArb(h.routes), async (request) => {
        const { res, sent } = await h.send(request)
        if (process.env.HOSTILE_STATS) {
          const key = `${res.statusCode} ${res.statusCode >= 400 && sent.method !== 'HEAD' ? res.json().code : ''} ${sent.route ? `${sent.method} ${sent.route.template}` : 'unknown'}`
          stats.set(key, (stats.get(key) ?? 0) + 1)
        }
        if (res.statusCode < 400) accepted++
        else if (sent.method !== 'GET' && sent.method !== 'HEAD' && sent.method !== 'OPTIONS') refusedWrites++
      }),
      { numRuns: RUNS, ...(SEED === undefined ? {} : { seed: SEED }) },
    )
    if (process.env.HOSTILE_STATS)
      console.log(
        [...stats]
          .sort()
          .map(([k, n]) => `${n}\t${k}`)
          .join('\n'),
      )
    // The run must have exercised both sides: refused writes, and requests that got through.
    assert.ok(refusedWrites > RUNS / 10, `only ${refusedWrites} refused writes`)
    assert.ok(accepted > 0, 'no request was accepted: the world or the ADMIN token is broken')
  })

  it('leaves every built-in prototype as it was', () => {
    assertNoPollution(prototypes)
  })
})
