/**
 * Issue 23: no list answer grows with what callers created. Every list Berth owns answers with at
 * most BERTH_LIST_LIMIT items, the first in its order, and `has_more` says whether it was cut.
 * (The reference paginates deployment histories only; those have their own pageSize.)
 */
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { createTestApp, type TestApp } from './helpers/app.ts'
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
