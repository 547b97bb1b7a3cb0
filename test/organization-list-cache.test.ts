import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { sql } from 'kysely'
import { createTestApp, type TestApp } from './helpers/app.ts'
import { until } from './helpers/deployments.ts'
import { factories, uniqueName } from './helpers/factories.ts'

// `GET /organization` for an API token is remembered for a moment, so that a poller costs no
// database round trip; every change to organizations is announced by PostgreSQL (migration 0007)
// and forgets the lists in every replica.

describe('remembered organization lists across replicas', () => {
  let a: TestApp
  let b: TestApp
  before(async () => {
    ;[a, b] = [await createTestApp(), await createTestApp()]
  })
  after(async () => {
    await a?.close()
    await b?.close()
  })

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
