/**
 * Issue 23: no list answer grows with what callers created. Every list Berth owns answers with at
 * most BERTH_LIST_LIMIT items, the first in its order, and `has_more` says whether it was cut.
 * (The reference paginates deployment histories only; those have their own pageSize.) Lists of
 * services are also cut by the bytes of their configurations, and continue with `startId`.
 */
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { createTestApp, type TestApp } from './helpers/app.ts'
import { assertErrorAnswer } from './helpers/assertions.ts'
import { call } from './helpers/berth-processes.ts'
import { factories, uniqueName } from './helpers/factories.ts'

const LIMIT = 2

describe('list limits', () => {
  let t: TestApp
  before(async () => {
    t = await createTestApp({ BERTH_LIST_LIMIT: String(LIMIT) })
  })
  after(async () => t?.close())

  async function list(url: string, authorization: string): Promise<{ names: string[]; hasMore: boolean }> {
    const res = await t.app.inject({ method: 'GET', url, headers: { authorization } })
    assert.equal(res.statusCode, 200, res.body)
    const body = res.json() as { results: { name?: string; id: string }[]; has_more: boolean }
    assert.deepEqual(Object.keys(body).sort(), ['has_more', 'results'])
    return { names: body.results.map((item) => item.name ?? item.id), hasMore: body.has_more }
  }

  /** Makes `make(i)` for i = 0, 1, 2 and checks the list at LIMIT items (then cut) and at LIMIT + 1. */
  async function check(url: string, authorization: string, make: (i: number) => Promise<unknown>, existing = 0) {
    for (let i = 0; i < LIMIT - existing; i++) await make(i)
    const full = await list(url, authorization)
    assert.deepEqual([full.names.length, full.hasMore], [LIMIT, false], `${url} at the limit`)
    await make(LIMIT)
    const cut = await list(url, authorization)
    assert.deepEqual([cut.names.length, cut.hasMore], [LIMIT, true], `${url} over the limit`)
    // The first items in the list's order: the same ones as before.
    assert.deepEqual(cut.names, full.names)
  }

  it('cuts the lists of projects, environments, git tokens and helm repositories, ordered by name', async () => {
    const f = factories(t.db)
    const { organization, tokens } = await f.organizationWithTokens()
    const read = tokens.read.authorization
    await check(`/organization/${organization.id}/project`, read, (i) => f.project(organization.id, `p${i} ${randomUUID()}`))
    const project = await f.project(organization.id)
    await check(`/project/${project.id}/environment`, read, (i) => f.environment(project.id, { name: `e${i} ${randomUUID()}` }))
    await check(`/organization/${organization.id}/gitToken`, read, (i) => f.gitToken(organization.id, { name: `g${i} ${randomUUID()}` }))
    await check(`/organization/${organization.id}/helmRepository`, read, (i) => f.helmRepository(organization.id, { name: `h${i} ${randomUUID()}` }))
  })

  it('cuts the lists of API tokens, members and organizations', async () => {
    const f = factories(t.db)
    const organization = await f.organization()
    const admin = await f.apiToken(organization.id, 'ADMIN')
    await check(`/organization/${organization.id}/apiToken`, admin.authorization, () => f.apiToken(organization.id, 'READ'), 1)

    const member = async () => {
      const user = await t.db
        .insertInto('users')
        .values({ issuer: 'https://issuer.example.com', subject: randomUUID(), name: uniqueName('member'), email: null })
        .returning('id')
        .executeTakeFirstOrThrow()
      await t.db.insertInto('organizationMembers').values({ organizationId: organization.id, userId: user.id, role: 'READ' }).execute()
    }
    await check(`/organization/${organization.id}/member`, admin.authorization, member)

    const createOrganization = async () => {
      const res = await t.app.inject({
        method: 'POST',
        url: '/organization',
        headers: { authorization: admin.authorization },
        payload: { name: uniqueName('managed'), plan: 'FREE' },
      })
      assert.equal(res.statusCode, 201, res.body)
    }
    await check('/organization', admin.authorization, createOrganization, 1)
  })
})

/**
 * The lists of an environment's services (`GET /environment/{id}/helm` and `…/services`), over
 * real HTTP: cut at BERTH_LIST_LIMIT and at BERTH_LIST_MAX_BYTES of stored configurations (always
 * one service at least), with `has_more`, and read on page after page with `startId`.
 */
describe('lists of services', () => {
  const SERVICE_LIMIT = 2
  const MAX_BYTES = 16 * 1024
  let counted: TestApp
  let sized: TestApp
  let countedUrl: string
  let sizedUrl: string
  before(async () => {
    counted = await createTestApp({ BERTH_LIST_LIMIT: String(SERVICE_LIMIT) })
    sized = await createTestApp({ BERTH_LIST_MAX_BYTES: String(MAX_BYTES) })
    countedUrl = await counted.listen()
    sizedUrl = await sized.listen()
  })
  after(async () => {
    await counted?.close()
    await sized?.close()
  })

  const LISTS = ['helm', 'services']

  /** Every page of a list, read with `startId` from the last item of the page before. */
  async function pages(baseUrl: string, environmentId: string, list: string, authorization: string) {
    const read: { names: string[]; ids: string[]; hasMore: boolean }[] = []
    let startId: string | undefined
    for (let i = 0; i < 50; i++) {
      const { status, body, text } = await call(
        baseUrl,
        'GET',
        `/environment/${environmentId}/${list}${startId ? `?startId=${startId}` : ''}`,
        authorization,
      )
      assert.equal(status, 200, text)
      assert.deepEqual(Object.keys(body).sort(), ['has_more', 'results'])
      const page = {
        names: body.results.map((s: { name: string }) => s.name),
        ids: body.results.map((s: { id: string }) => s.id),
        hasMore: body.has_more,
      }
      assert.ok(page.ids.length > 0 || (read.length === 0 && !page.hasMore), 'a page after a cut holds a service')
      read.push(page)
      if (!page.hasMore) return read
      startId = page.ids.at(-1)
    }
    assert.fail('more than 50 pages')
  }

  it(`cuts at BERTH_LIST_LIMIT by name, says has_more, and startId reads the next page`, async () => {
    const f = factories(counted.db)
    const { environment, project, tokens } = await f.environmentWithTokens()
    const read = tokens.read.authorization
    for (const list of LISTS) assert.deepEqual(await pages(countedUrl, environment.id, list, read), [{ names: [], ids: [], hasMore: false }])
    for (const name of ['d', 'B', 'e', 'a', 'C']) await f.helmService(environment.id, { name })
    for (const list of LISTS) {
      const all = await pages(countedUrl, environment.id, list, read)
      assert.deepEqual(
        all.map((page) => [page.names, page.hasMore]),
        [
          [['a', 'B'], true],
          [['C', 'd'], true],
          [['e'], false],
        ],
        `${list}: by name ignoring case, ${SERVICE_LIMIT} a page`,
      )
    }
    // startId must be a service of the list: not a random id, not another environment's service.
    const other = await f.helmService((await f.environment(project.id)).id)
    for (const startId of [randomUUID(), other.id]) {
      for (const list of LISTS) {
        const answer = await call(countedUrl, 'GET', `/environment/${environment.id}/${list}?startId=${startId}`, read)
        const body = assertErrorAnswer(answer, 400, 'validation_failed')
        assert.deepEqual(body.errors, [{ path: '/startId', message: 'is not the id of a service of this list', location: 'query' }])
      }
    }
  })

  it('cuts the deployment queues of an environment and of a service at BERTH_LIST_LIMIT, oldest first', async () => {
    const f = factories(counted.db)
    const { environment, tokens } = await f.environmentWithTokens()
    const helm = await f.helmService(environment.id)
    // No runner here: what is queued stays queued.
    const queued: string[] = []
    for (let i = 0; i < SERVICE_LIMIT + 1; i++) {
      const { status, body, text } = await call(countedUrl, 'POST', `/helm/${helm.id}/deploy`, tokens.deploy.authorization, { body: {} })
      assert.equal(status, 202, text)
      queued.push(body.execution_id)
    }
    for (const path of [`/environment/${environment.id}/deploymentQueue`, `/service/${helm.id}/deploymentQueue`]) {
      const { status, body, text } = await call(countedUrl, 'GET', path, tokens.read.authorization)
      assert.equal(status, 200, text)
      assert.deepEqual(
        [body.results.map((request: { identifier: { deployment_request_id: string } }) => request.identifier.deployment_request_id), body.has_more],
        [queued.slice(0, SERVICE_LIMIT), true],
        path,
      )
    }
  })

  it('cuts a page before its stored configurations pass BERTH_LIST_MAX_BYTES, always holding one service', async () => {
    const f = factories(sized.db)
    const { environment, tokens } = await f.environmentWithTokens()
    // Values files of 6, 6, 30 (alone over the budget), 6, 6, 1 and 6 KB.
    const kilobytes = [6, 6, 30, 6, 6, 1, 6]
    for (const [i, size] of kilobytes.entries()) {
      await f.helmService(environment.id, {
        name: `s${i}`,
        values_override: { file: { raw: { values: [{ name: 'values.yaml', content: 'x'.repeat(size * 1024) }] } } },
      })
    }
    const stored = await sized.db
      .selectFrom('services')
      .select(['id', 'configurationBytes'])
      .where('environmentId', '=', environment.id)
      .orderBy('name')
      .execute()
    // What the pages must be: the longest run of services, in order, whose sizes add up to at most the budget, and one at least.
    const expected: string[][] = []
    for (const service of stored) {
      const last = expected.at(-1)
      const bytes = last?.reduce((sum, id) => sum + stored.find((s) => s.id === id)!.configurationBytes, 0)
      if (last && bytes! + service.configurationBytes <= MAX_BYTES) last.push(service.id)
      else expected.push([service.id])
    }
    assert.ok(expected.length >= 4, `the sizes make several pages: ${JSON.stringify(expected.map((page) => page.length))}`)
    assert.ok(
      expected.some((page) => page.length === 1 && stored.find((s) => s.id === page[0])!.configurationBytes > MAX_BYTES),
      'a service over the budget has a page of its own',
    )
    for (const list of LISTS) {
      const all = await pages(sizedUrl, environment.id, list, tokens.read.authorization)
      assert.deepEqual(
        all.map((page) => page.ids),
        expected,
        list,
      )
      assert.deepEqual(
        all.map((page) => page.hasMore),
        expected.map((_, i) => i < expected.length - 1),
      )
    }
  })
})
