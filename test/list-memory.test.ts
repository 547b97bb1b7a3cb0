/**
 * Issue 23: one READ token must not exhaust the server's memory or its pool. A real `berth serve`
 * process, on its default limits, holds an environment full of services (BERTH_SERVICES_PER_ENVIRONMENT,
 * 200) at the largest configuration (BERTH_SERVICE_CONFIG_MAX_BYTES, 256 KiB): 50 MiB, six pages
 * of BERTH_LIST_MAX_BYTES (8 MiB). One READ token lists it with 20 requests at once, round after
 * round, over the helm list and the list of all services, and asks for the environment's statuses
 * (which name every service) meanwhile. The server's resident memory (VmRSS,
 * sampled all along) stays within RSS_BOUND_MIB of what it was before, every request is answered
 * 200 with a page, and so are another organization's requests made meanwhile. No timing is asserted.
 */
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { describe, it } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { type Answer, baseEnv, call, processScenario } from './helpers/berth-processes.ts'
import { factories } from './helpers/factories.ts'
import { startServer } from './helpers/process.ts'

/** The bound docs/resources.md states (Limits): how far the server's RSS may grow over its baseline during the storm. */
// 300 when written (+170 to +197 MiB measured then); raised to 400 on 2026-11-28, when the same
// storm measured +287 to +316 MiB on the CI machine; back to 300 once the idle heap shrank (issue 30,
// docs/memory.md): +210 to +243 MiB measured then on the loaded CI machine, +308 and +319 at the
// code before. Still below what each regression it guards against cost.
const RSS_BOUND_MIB = 300
const CONFIG_MAX_BYTES = 256 * 1024
const SERVICES = 200
const CONCURRENT = 20
const ROUNDS = 3
/** Requests for the environment's statuses beside each round's lists. */
const STATUSES = 5

/** The process's resident set size in MiB, from /proc/<pid>/status. */
function rssMib(pid: number): number {
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  if (!match) throw new Error(`no VmRSS for pid ${pid}`)
  return Number(match[1]) / 1024
}

/** A helm request from a git repository, whose one raw values file holds `content`. */
const helmRequest = (name: string, content: string) => ({
  name,
  auto_deploy: false,
  arguments: [],
  source: { git_repository: { url: 'https://github.com/acme/charts.git', branch: 'main', root_path: '/charts/api' } },
  values_override: { file: { raw: { values: [{ name: 'values.yaml', content }] } } },
})

describe('20 concurrent lists of an environment full of the largest services', () => {
  const scenario = processScenario()

  it(`keep the server within ${RSS_BOUND_MIB} MiB of its baseline and other organizations served`, async () => {
    const server = await scenario.group.add(
      startServer(baseEnv(scenario.database, { BERTH_LOG_LEVEL: 'info', BERTH_RUNNER_IN_SERVE: 'false', BERTH_RATE_LIMIT_PER_CREDENTIAL: '0' })),
    )
    const pid = server.child.pid!
    const f = factories(scenario.db)

    // Every service's configuration exactly at the limit, as compact JSON (a probe with an empty
    // values file, in an environment of its own, tells what the rest of a configuration weighs).
    const { environment, project, tokens } = await f.environmentWithTokens()
    const probe = await f.helmService((await f.environment(project.id)).id, helmRequest('probe', ''))
    const row = await scenario.db.selectFrom('services').select('configuration').where('id', '=', probe.id).executeTakeFirstOrThrow()
    const content = 'x'.repeat(CONFIG_MAX_BYTES - Buffer.byteLength(JSON.stringify(row.configuration)))
    const ids: string[] = []
    for (let i = 0; i < SERVICES; i++) ids.push((await f.helmService(environment.id, helmRequest(`s${String(i).padStart(3, '0')}`, content))).id)
    const read = tokens.read.authorization

    // Another organization, whose requests are made during the storm.
    const other = await f.environmentWithTokens()
    await f.helmService(other.environment.id, helmRequest('theirs', 'replicas: 1'))
    const list = (path: string, authorization = read) => call(server.baseUrl, 'GET', path, authorization)
    const theirRequests = () => [
      list(`/environment/${other.environment.id}/helm`, other.tokens.read.authorization),
      list('/organization', other.tokens.read.authorization),
    ]

    // The baseline: the server warmed up by small lists, before any large one.
    for (const answer of await Promise.all([...theirRequests(), ...theirRequests()])) assert.equal(answer.status, 200, answer.text)
    await sleep(500)
    const baseline = rssMib(pid)

    let peak = baseline
    let sampling = true
    const sampler = (async () => {
      while (sampling) {
        peak = Math.max(peak, rssMib(pid))
        await sleep(10)
      }
    })()

    const theirs: Answer[] = []
    // What each storm request answered, without its body: 60 pages of 8 MiB would weigh on this process.
    const storms: { status: number; results: number; hasMore: boolean; text: string }[] = []
    const statusAnswers: { status: number; helms: number; text: string }[] = []
    try {
      for (let round = 0; round < ROUNDS; round++) {
        const storm = Array.from({ length: CONCURRENT }, (_, i) => {
          // From the start, and from services further on.
          const startId = [undefined, ids[50], ids[100], ids[150]][(i + round) % 4]
          const kind = i % 2 === 0 ? 'helm' : 'services'
          return list(`/environment/${environment.id}/${kind}${startId ? `?startId=${startId}` : ''}`).then((answer) => ({
            status: answer.status,
            results: answer.body.results?.length ?? 0,
            hasMore: answer.body.has_more,
            text: answer.status === 200 ? '' : answer.text.slice(0, 500),
          }))
        })
        // Statuses list every service of the environment too, without reading their configurations.
        const statuses = Array.from({ length: STATUSES }, () => list(`/environment/${environment.id}/statuses`)).map((answer) =>
          answer.then(({ status, body, text }) => ({ status, helms: body.helms?.length ?? 0, text: status === 200 ? '' : text.slice(0, 500) })),
        )
        // Made while the storm's requests are in flight.
        const others = theirRequests()
        storms.push(...(await Promise.all(storm)))
        statusAnswers.push(...(await Promise.all(statuses)))
        theirs.push(...(await Promise.all(others)))
      }
    } finally {
      sampling = false
      await sampler
    }

    const growth = peak - baseline
    console.log(`server RSS: baseline ${baseline.toFixed(0)} MiB, peak ${peak.toFixed(0)} MiB (+${growth.toFixed(0)} MiB)`)
    assert.ok(growth < RSS_BOUND_MIB, `the server grew by ${growth.toFixed(0)} MiB (from ${baseline.toFixed(0)} MiB), over ${RSS_BOUND_MIB} MiB`)
    for (const answer of storms) {
      assert.equal(answer.status, 200, answer.text)
      assert.ok(answer.results > 0 && answer.results < 50 && answer.hasMore, `a page of the services, not all of them: ${answer.results}`)
    }
    for (const answer of statusAnswers) assert.deepEqual([answer.status, answer.helms], [200, SERVICES], answer.text)
    for (const answer of theirs) assert.equal(answer.status, 200, answer.text)
    assert.deepEqual(
      theirs.filter((_, i) => i % 2 === 0).map((answer) => answer.body.results.map((helm: { name: string }) => helm.name)),
      Array.from({ length: ROUNDS }, () => ['theirs']),
    )
  })
})
