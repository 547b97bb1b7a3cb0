import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { createEnvironmentQueue } from '#src/modules/deployments/queue/environment-queue.ts'
import { assertError, assertValidationError } from './helpers/assertions.ts'
import {
  createDeploymentsApp,
  type DeploymentCalls,
  type DeploymentsTestApp,
  deploymentCalls,
  type EnvironmentEntry,
  type HistoryPage,
  isFinished,
  until,
} from './helpers/deployments.ts'
import { factories } from './helpers/factories.ts'

// GET /environment/{id}/deploymentHistoryV2: paging by startId, page sizes, filters, ETags. The
// environments here have no services, so that each of their deployments ends as soon as it starts.

let t: DeploymentsTestApp
let make: ReturnType<typeof factories>
let calls: DeploymentCalls

before(async () => {
  t = await createDeploymentsApp(100)
  make = factories(t.db)
  calls = deploymentCalls(t.app)
})

after(() => t?.close())

const ids = (page: HistoryPage<EnvironmentEntry>) => page.results.map((entry) => entry.identifier.execution_id)

/** An environment without services and `count` finished deployments; their execution ids, newest first. */
async function environmentWithRuns(count: number) {
  const w = await make.environmentWithTokens()
  const triggered: string[] = []
  for (let i = 0; i < count; i++) triggered.push(await deploy(w.environment.id, w.tokens.deploy.authorization))
  await waitForRuns(w.environment.id, w.tokens.read.authorization, count)
  return { ...w, newestFirst: triggered.reverse() }
}

async function deploy(environmentId: string, authorization: string): Promise<string> {
  return (await calls.trigger(`/environment/${environmentId}/deploy`, authorization)).execution_id
}

async function waitForRuns(environmentId: string, authorization: string, count: number) {
  return until(
    () => calls.environmentHistory(environmentId, authorization, { pageSize: 100 }),
    (page) => page.results.length === count && page.results.every(isFinished),
    { what: `${count} finished deployments` },
  )
}

/** Every page from the first, following next_start_id. */
async function allPages(environmentId: string, authorization: string, params: Record<string, string | number> = {}) {
  const pages = [await calls.environmentHistory(environmentId, authorization, params)]
  while (pages.at(-1)!.has_more) {
    pages.push(await calls.environmentHistory(environmentId, authorization, { ...params, startId: pages.at(-1)!.next_start_id! }))
    assert.ok(pages.length < 50, 'paging does not end')
  }
  return pages
}

describe('environment deployment history', () => {
  it('is an empty first page before any deployment', async () => {
    const { environment, tokens } = await make.environmentWithTokens()
    assert.deepEqual(await calls.environmentHistory(environment.id, tokens.read.authorization), {
      page: 1,
      page_size: 20,
      results: [],
      next_start_id: null,
      has_more: false,
    })
  })

  it('pages 45 deployments newest first in pages of 20, 20 and 5 through startId', async () => {
    const { environment, tokens, newestFirst } = await environmentWithRuns(45)
    const auth = tokens.read.authorization

    const pages = await allPages(environment.id, auth, { pageSize: 20 })
    assert.deepEqual(
      pages.map((page) => [page.page, page.page_size, page.results.length, page.has_more]),
      [
        [1, 20, 20, true],
        [2, 20, 20, true],
        [3, 20, 5, false],
      ],
    )
    for (const page of pages.slice(0, 2)) assert.equal(page.next_start_id, page.results.at(-1)!.identifier.execution_id)
    assert.equal(pages[2]!.next_start_id, null)
    assert.deepEqual(pages.flatMap(ids), newestFirst, 'every deployment once, newest first')
    const created = pages.flatMap((page) => page.results.map((entry) => entry.auditing_data.created_at))
    for (let i = 1; i < created.length; i++) assert.ok(created[i - 1]! > created[i]!, `created_at not decreasing at ${i}`)

    assert.deepEqual(ids(await calls.environmentHistory(environment.id, auth)), newestFirst.slice(0, 20), 'pageSize defaults to 20')
    const everything = await calls.environmentHistory(environment.id, auth, { pageSize: 100 })
    assert.deepEqual([ids(everything), everything.has_more, everything.next_start_id], [newestFirst, false, null])
    const exact = await calls.environmentHistory(environment.id, auth, { pageSize: 45 })
    assert.deepEqual([exact.results.length, exact.has_more, exact.next_start_id], [45, false, null])
    const oneShort = await calls.environmentHistory(environment.id, auth, { pageSize: 44 })
    assert.deepEqual([oneShort.has_more, oneShort.next_start_id], [true, newestFirst[43]])

    // Pages that end exactly at the last entry.
    const fifteens = await allPages(environment.id, auth, { pageSize: 15 })
    assert.deepEqual(
      fifteens.map((page) => [page.page, page.results.length, page.has_more]),
      [
        [1, 15, true],
        [2, 15, true],
        [3, 15, false],
      ],
    )
    assert.deepEqual(fifteens.flatMap(ids), newestFirst)

    // Any entry can start a page; after the oldest there is nothing.
    const fromMiddle = await calls.environmentHistory(environment.id, auth, { pageSize: 7, startId: newestFirst[9]! })
    assert.deepEqual(ids(fromMiddle), newestFirst.slice(10, 17))
    assert.equal(fromMiddle.page, 2)
    const afterOldest = await calls.environmentHistory(environment.id, auth, { startId: newestFirst[44]! })
    assert.deepEqual([afterOldest.results, afterOldest.has_more, afterOldest.next_start_id], [[], false, null])
  })

  it('never repeats or skips an entry while deployments are added between page reads', async () => {
    const { environment, tokens, newestFirst } = await environmentWithRuns(25)
    const auth = tokens.read.authorization
    const added: string[] = []

    const first = await calls.environmentHistory(environment.id, auth, { pageSize: 10 })
    for (let i = 0; i < 3; i++) added.push(await deploy(environment.id, tokens.deploy.authorization))
    const second = await calls.environmentHistory(environment.id, auth, { pageSize: 10, startId: first.next_start_id! })
    for (let i = 0; i < 2; i++) added.push(await deploy(environment.id, tokens.deploy.authorization))
    const third = await calls.environmentHistory(environment.id, auth, { pageSize: 10, startId: second.next_start_id! })

    assert.deepEqual([first, second, third].flatMap(ids), newestFirst)
    assert.deepEqual(
      [first, second, third].map((page) => page.has_more),
      [true, true, false],
    )
    const fresh = await calls.environmentHistory(environment.id, auth, { pageSize: 10 })
    assert.deepEqual(ids(fresh), [...added.reverse(), ...newestFirst.slice(0, 5)], 'a new first page starts with what was added')
    await waitForRuns(environment.id, auth, 30)
  })

  it("gives each run a creation time after the previous run's, even when the clock says otherwise", async () => {
    // History order is creation order; the queue promises it is queue order too. A previous run
    // created "later" than the database's clock (a clock stepped back, or two triggers within one
    // millisecond once times are kept to the millisecond) must not be overtaken.
    const { environment, organization, tokens } = await make.environmentWithTokens()
    const runs = createEnvironmentQueue(t.db)
    const ahead = new Date(Date.now() + 3_600_000).toISOString()
    const first = await runs.withEnvironmentLocked(environment.id, async (queue, next) => {
      const { seq } = await next()
      const run = {
        id: randomUUID(),
        organizationId: organization.id,
        environmentId: environment.id,
        serviceId: null,
        triggerAction: 'DEPLOY' as const,
        origin: 'API' as const,
        triggeredBy: 'test',
        status: 'DEPLOYMENT_QUEUED' as const,
        actionStatus: 'QUEUED' as const,
        message: null,
        createdAt: ahead,
        updatedAt: ahead,
        startedAt: null,
        endedAt: null,
        progress: { stages: [] },
      }
      await queue.insert(run, seq, [])
      return run.id
    })
    const second = await deploy(environment.id, tokens.deploy.authorization)
    const entries = (await waitForRuns(environment.id, tokens.read.authorization, 2)).results
    assert.deepEqual(
      entries.map((entry) => entry.identifier.execution_id),
      [second, first],
      'the later trigger is the newer entry',
    )
    assert.ok(entries[0]!.auditing_data.created_at > ahead, `created ${entries[0]!.auditing_data.created_at}, not after ${ahead}`)
  })

  it('answers 400 to a pageSize outside 1..100 or not an integer, and to a startId that is not of this history', async () => {
    const { environment, tokens, newestFirst } = await environmentWithRuns(2)
    const stranger = await environmentWithRuns(1)
    const url = `/environment/${environment.id}/deploymentHistoryV2`
    const auth = tokens.read.authorization

    for (const pageSize of ['0', '-1', '101', 'abc', '1.5', '']) {
      const errors = assertValidationError(await calls.inject('GET', `${url}?pageSize=${pageSize}`, auth))
      assert.deepEqual(
        errors.map((error) => [error.path, error.location]),
        [['/pageSize', 'query']],
        `pageSize=${pageSize}`,
      )
    }
    for (const pageSize of [1, 100]) {
      assert.equal((await calls.environmentHistory(environment.id, auth, { pageSize })).page_size, pageSize)
    }
    for (const startId of [randomUUID(), stranger.newestFirst[0]!, 'not-a-uuid', newestFirst[0]!.toUpperCase().replaceAll('-', '')]) {
      const body = assertError(await calls.inject('GET', `${url}?startId=${startId}`, auth), 400, 'validation_failed')
      assert.deepEqual(
        body.errors?.map((error) => error.path),
        ['/startId'],
        `startId=${startId}: ${JSON.stringify(body)}`,
      )
    }
    for (const query of ['status=NOPE', 'trigger_action=deploy', 'origin=SOMEWHERE', 'from=yesterday', 'to=2026-13-01T00:00:00Z']) {
      assertValidationError(await calls.inject('GET', `${url}?${query}`, auth))
    }
  })

  it('filters by status, trigger_action, origin, from and to, and pages the filtered listing', async () => {
    const { environment, tokens } = await make.environmentWithTokens()
    const base = `/environment/${environment.id}`
    for (const action of ['deploy', 'stop', 'deploy', 'stop', 'redeploy']) await calls.trigger(`${base}/${action}`, tokens.deploy.authorization)
    const all = (await waitForRuns(environment.id, tokens.read.authorization, 5)).results
    assert.deepEqual(
      all.map((entry) => [entry.trigger_action, entry.status]),
      [
        ['RESTART', 'RESTARTED'],
        ['STOP', 'STOPPED'],
        ['DEPLOY', 'DEPLOYED'],
        ['STOP', 'STOPPED'],
        ['DEPLOY', 'DEPLOYED'],
      ],
    )
    const id = (i: number) => all[i]!.identifier.execution_id
    const created = (i: number) => all[i]!.auditing_data.created_at
    const listed = async (params: Record<string, string | number>) =>
      ids(await calls.environmentHistory(environment.id, tokens.read.authorization, params))

    assert.deepEqual(await listed({ trigger_action: 'STOP' }), [id(1), id(3)])
    assert.deepEqual(await listed({ status: 'STOPPED' }), [id(1), id(3)])
    assert.deepEqual(await listed({ status: 'RESTARTED' }), [id(0)])
    assert.deepEqual(await listed({ trigger_action: 'DEPLOY', status: 'DEPLOYED' }), [id(2), id(4)])
    assert.deepEqual(await listed({ trigger_action: 'DEPLOY', status: 'STOPPED' }), [])
    assert.deepEqual(await listed({ origin: 'API' }), [0, 1, 2, 3, 4].map(id))
    assert.deepEqual(await listed({ origin: 'CLI' }), [])
    assert.deepEqual(await listed({ from: created(2) }), [id(0), id(1), id(2)], 'from is inclusive')
    assert.deepEqual(await listed({ to: created(2) }), [id(3), id(4)], 'to is exclusive')
    assert.deepEqual(await listed({ from: created(3), to: created(1) }), [id(2), id(3)])

    const pages = await allPages(environment.id, tokens.read.authorization, { trigger_action: 'STOP', pageSize: 1 })
    assert.deepEqual(
      pages.map((page) => [page.page, ids(page), page.has_more, page.next_start_id]),
      [
        [1, [id(1)], true, id(1)],
        [2, [id(3)], false, null],
      ],
    )
    const deploys = await allPages(environment.id, tokens.read.authorization, { from: created(3), pageSize: 2 })
    assert.deepEqual(
      deploys.map((page) => [page.page, ids(page)]),
      [
        [1, [id(0), id(1)]],
        [2, [id(2), id(3)]],
      ],
    )
  })

  it('answers 304 to If-None-Match while the page is unchanged, and gives a changed page a new ETag', async () => {
    const { environment, tokens } = await environmentWithRuns(1)
    const url = `/environment/${environment.id}/deploymentHistoryV2`
    const get = (headers: Record<string, string> = {}, query = '') =>
      calls.inject('GET', `${url}${query}`, tokens.read.authorization, undefined, headers)

    const first = await get()
    assert.equal(first.statusCode, 200)
    const etag = String(first.headers.etag)
    assert.match(etag, /^"[^"]+"$/)
    assert.equal(String((await get()).headers.etag), etag, 'the same page has the same ETag')

    for (const ifNoneMatch of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const cached = await get({ 'if-none-match': ifNoneMatch })
      assert.equal(cached.statusCode, 304, ifNoneMatch)
      assert.equal(cached.body, '')
      assert.equal(cached.headers.etag, etag)
    }
    const other = await get({ 'if-none-match': '"other"' })
    assert.equal(other.statusCode, 200)
    assert.deepEqual(other.json(), first.json())

    const smaller = await get({ 'if-none-match': etag }, '?pageSize=1')
    assert.equal(smaller.statusCode, 200, 'another page size is another page')
    assert.notEqual(smaller.headers.etag, etag)

    await deploy(environment.id, tokens.deploy.authorization)
    const changed = await get({ 'if-none-match': etag })
    assert.equal(changed.statusCode, 200)
    assert.notEqual(changed.headers.etag, etag)
    assert.equal((changed.json() as HistoryPage<EnvironmentEntry>).results.length, 2)

    const settled = await waitForRuns(environment.id, tokens.read.authorization, 2)
    const now = await get()
    assert.deepEqual(ids(now.json() as HistoryPage<EnvironmentEntry>), ids(settled))
    assert.equal((await get({ 'if-none-match': String(now.headers.etag) })).statusCode, 304)
  })
})
