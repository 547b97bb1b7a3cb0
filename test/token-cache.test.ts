import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { sql } from 'kysely'
import type { ApiTokenRow, ApiTokensRepository } from '#src/modules/api-tokens/api-tokens.repository.ts'
import { createApiTokensService } from '#src/modules/api-tokens/api-tokens.service.ts'
import { createTokenCache } from '#src/modules/api-tokens/token-cache.ts'
import type { TokenUsageTracker } from '#src/modules/api-tokens/token-usage.ts'
import type { OrganizationsService } from '#src/modules/organizations/organizations.service.ts'
import { generateApiToken } from '#src/platform/auth/api-token-codec.ts'
import { createTestApp, type TestApp } from './helpers/app.ts'
import { until } from './helpers/deployments.ts'
import { factories, uniqueName } from './helpers/factories.ts'

// API tokens are remembered for a moment after they authenticate; every change to one is
// announced by PostgreSQL (migration 0005) and forgets it in every replica.

const row = (id = 'token-1'): ApiTokenRow =>
  ({ id, organizationId: 'org-1', name: 'ci', role: 'ADMIN', expiredAt: null, ownerUserId: null }) as unknown as ApiTokenRow

describe('token cache', () => {
  it('remembers a token until its time is up, and only while changes are being announced', () => {
    const cache = createTokenCache({ ttlMs: 1_000, maxEntries: 10 })
    cache.set('d', row(), cache.generation, 0)
    assert.equal(cache.get('d', 0), undefined, 'nothing is kept before listening starts')
    cache.setListening(true)
    cache.set('d', row(), cache.generation, 0)
    assert.equal(cache.get('d', 999)?.id, 'token-1')
    assert.equal(cache.get('d', 1_000), undefined, 'expired')
    cache.set('d', row(), cache.generation, 0)
    cache.setListening(false)
    assert.equal(cache.get('d', 1), undefined, 'losing the announcements forgets everything')
  })

  it('does not keep a read that started before a change was announced', () => {
    const cache = createTokenCache({ ttlMs: 1_000, maxEntries: 10 })
    cache.setListening(true)
    const readStarted = cache.generation
    cache.forget('token-1') // announced while the read was under way
    cache.set('d', row(), readStarted, 0)
    assert.equal(cache.get('d', 0), undefined)
  })

  it('forgets a changed token by id, and keeps at most maxEntries', () => {
    const cache = createTokenCache({ ttlMs: 1_000, maxEntries: 2 })
    cache.setListening(true)
    for (const id of ['a', 'b', 'c']) cache.set(id, row(id), cache.generation, 0)
    assert.deepEqual(
      ['a', 'b', 'c'].map((id) => cache.get(id, 0)?.id),
      [undefined, 'b', 'c'],
    )
    cache.forget('b')
    assert.equal(cache.get('b', 0), undefined)
    assert.equal(cache.get('c', 0)?.id, 'c')
  })

  it('spares the database a lookup for a remembered token', async () => {
    let lookups = 0
    const token = generateApiToken()
    const repo = {
      async findByDigest() {
        lookups++
        return row()
      },
    } as unknown as ApiTokensRepository
    const cache = createTokenCache({ ttlMs: 60_000, maxEntries: 10 })
    cache.setListening(true)
    const usage = { touch() {} } as unknown as TokenUsageTracker
    const service = createApiTokensService({ repo, organizations: {} as OrganizationsService, usage, cache })
    await service.authenticate(token)
    await service.authenticate(token)
    assert.equal(lookups, 1)
  })
})

describe('remembered tokens and organization lists across replicas', () => {
  let a: TestApp
  let b: TestApp
  before(async () => {
    ;[a, b] = [await createTestApp(), await createTestApp()]
  })
  after(async () => {
    await a?.close()
    await b?.close()
  })

  const status = async (t: TestApp, authorization: string) =>
    (await t.app.inject({ method: 'GET', url: '/organization', headers: { authorization } })).statusCode

  async function untilRejected(t: TestApp, authorization: string): Promise<void> {
    const deadline = Date.now() + 3_000
    while ((await status(t, authorization)) !== 401) {
      assert.ok(Date.now() < deadline, 'the other replica still accepts the revoked token')
      await sleep(10)
    }
  }

  it('forgets a deleted token in the replica that deleted it at once, and in the others when the change is announced', async () => {
    const make = factories(a.db)
    const { organization, tokens } = await make.organizationWithTokens()
    const doomed = tokens.read
    // Both replicas have seen, and may remember, the token.
    for (const t of [a, b]) for (let i = 0; i < 2; i++) assert.equal(await status(t, doomed.authorization), 200)
    const res = await a.app.inject({
      method: 'DELETE',
      url: `/organization/${organization.id}/apiToken/${doomed.id}`,
      headers: { authorization: tokens.admin.authorization },
    })
    assert.equal(res.statusCode, 204, res.body)
    assert.equal(await status(a, doomed.authorization), 401, 'at once where it was deleted')
    await untilRejected(b, doomed.authorization)
  })

  it('forgets every token of a deleted organization, and a token whose role changed elsewhere', async () => {
    const make = factories(a.db)
    const { organization, tokens } = await make.organizationWithTokens()
    for (const t of [a, b]) assert.equal(await status(t, tokens.write.authorization), 200)
    // A change made outside both replicas (here: straight in the database) is announced too.
    await a.db.updateTable('apiTokens').set({ role: 'READ' }).where('id', '=', tokens.write.id).execute()
    const deadline = Date.now() + 3_000
    for (;;) {
      const res = await b.app.inject({
        method: 'DELETE',
        url: `/organization/${organization.id}`,
        headers: { authorization: tokens.write.authorization },
      })
      if (res.statusCode === 403) break
      assert.ok(Date.now() < deadline, `the replica still takes the token for WRITE: ${res.statusCode}`)
      await sleep(10)
    }
    const res = await a.app.inject({
      method: 'DELETE',
      url: `/organization/${organization.id}`,
      headers: { authorization: tokens.admin.authorization },
    })
    assert.equal(res.statusCode, 204, res.body)
    assert.equal(await status(a, tokens.read.authorization), 401, 'at once where it was deleted')
    await untilRejected(b, tokens.read.authorization)
  })

  // `GET /organization` for an API token is remembered too; every change to organizations is
  // announced (migration 0007) and forgets the lists in every replica.
  const names = async (t: TestApp, authorization: string): Promise<string[]> => {
    const res = await t.app.inject({ method: 'GET', url: '/organization', headers: { authorization } })
    assert.equal(res.statusCode, 200, res.body)
    return (res.json() as { results: { name: string }[] }).results.map((o) => o.name)
  }

  it('serves a remembered list without reading the database again', async () => {
    const { organization, tokens } = await factories(a.db).organizationWithTokens()
    assert.deepEqual(await names(a, tokens.read.authorization), [organization.name])
    // A change that is not announced (triggers off for this transaction) is not seen until the list expires.
    const renamed = uniqueName('Unannounced')
    await a.db.transaction().execute(async (trx) => {
      await sql`set local session_replication_role = replica`.execute(trx)
      await trx.updateTable('organizations').set({ name: renamed }).where('id', '=', organization.id).execute()
    })
    assert.deepEqual(await names(a, tokens.read.authorization), [organization.name])
  })

  it('shows its own change at once in the replica that made it, and in the others when it is announced', async () => {
    const { organization, tokens } = await factories(a.db).organizationWithTokens()
    for (const t of [a, b]) assert.deepEqual(await names(t, tokens.admin.authorization), [organization.name])

    const created = uniqueName('Created')
    const res = await a.app.inject({
      method: 'POST',
      url: '/organization',
      headers: { authorization: tokens.admin.authorization },
      payload: { name: created, plan: 'FREE' },
    })
    assert.equal(res.statusCode, 201, res.body)
    assert.deepEqual(await names(a, tokens.admin.authorization), [organization.name, created], 'at once where it was created')
    await until(
      () => names(b, tokens.admin.authorization),
      (list) => list.includes(created),
      { timeoutMs: 3_000, what: 'the other replica listing the new organization' },
    )

    // A change made outside both replicas (here: straight in the database) is announced too.
    const renamed = uniqueName('Renamed')
    await a.db.updateTable('organizations').set({ name: renamed }).where('id', '=', organization.id).execute()
    for (const t of [a, b]) {
      await until(
        () => names(t, tokens.admin.authorization),
        (list) => list[0] === renamed,
        { timeoutMs: 3_000, what: 'a replica listing the renamed organization' },
      )
    }

    const deleted = await a.app.inject({
      method: 'DELETE',
      url: `/organization/${(res.json() as { id: string }).id}`,
      headers: { authorization: tokens.admin.authorization },
    })
    assert.equal(deleted.statusCode, 204, deleted.body)
    assert.deepEqual(await names(a, tokens.admin.authorization), [renamed], 'at once where it was deleted')
    await until(
      () => names(b, tokens.admin.authorization),
      (list) => list.length === 1,
      { timeoutMs: 3_000, what: 'the other replica forgetting the deleted organization' },
    )
  })
})
