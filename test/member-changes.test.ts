import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import type { LightMyRequestResponse } from 'fastify'
import { type Kysely, sql } from 'kysely'
import type { Database } from '#src/platform/db/schema.ts'
import { createTestApp, type TestApp } from './helpers/app.ts'
import { assertError } from './helpers/assertions.ts'
import { memberCalls, type Person } from './helpers/members.ts'
import { startOidcProvider, type TestIdentityProvider } from './helpers/oidc-provider.ts'

/**
 * Runs `request` while a hand-made membership change holds the organization locked, as the members
 * service's transactions do, and commits the change once the request is either answered (it did
 * not wait for the lock) or blocked on it. Deterministic: no timing decides the outcome.
 */
async function raceWithChange(
  db: Kysely<Database>,
  organizationId: string,
  change: (trx: Kysely<Database>) => Promise<unknown>,
  request: () => Promise<LightMyRequestResponse>,
): Promise<LightMyRequestResponse> {
  const trx = await db.startTransaction().execute()
  let pending: Promise<LightMyRequestResponse> | undefined
  try {
    await trx.selectFrom('organizations').select('id').where('id', '=', organizationId).forNoKeyUpdate().execute()
    await change(trx)
    const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx)
    const holder = rows[0]!.pid
    let answered = false
    pending = request().finally(() => {
      answered = true
    })
    while (!answered) {
      const blocked = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity where ${holder} = any(pg_blocking_pids(pid))`.execute(
        db,
      )
      if (blocked.rows[0]!.n > 0) break
      await sleep(5)
    }
    await trx.commit().execute()
  } catch (error) {
    await trx.rollback().execute()
    throw error
  }
  return pending
}

describe('membership changes and the tokens and requests they race with', () => {
  let idp: TestIdentityProvider
  let t: TestApp
  before(async () => {
    idp = await startOidcProvider()
    t = await createTestApp(idp.env)
  })
  after(async () => {
    await t.close()
    await idp.close()
  })

  const { request, person, organizationOf, put, remove, createToken } = memberCalls(
    () => t,
    () => idp,
  )

  const tokenCount = async (organizationId: string, name: string) =>
    (await t.db.selectFrom('apiTokens').select('id').where('organizationId', '=', organizationId).where('name', '=', name).execute()).length

  const demoteByHand = (organizationId: string, user: Person, role: string) => async (trx: Kysely<Database>) => {
    await trx.updateTable('organizationMembers').set({ role }).where('organizationId', '=', organizationId).where('userId', '=', user.id).execute()
    await trx.updateTable('apiTokens').set({ role }).where('organizationId', '=', organizationId).where('ownerUserId', '=', user.id).execute()
  }

  const removeByHand = (organizationId: string, user: Person) => async (trx: Kysely<Database>) => {
    await trx.deleteFrom('apiTokens').where('organizationId', '=', organizationId).where('ownerUserId', '=', user.id).execute()
    await trx.deleteFrom('organizationMembers').where('organizationId', '=', organizationId).where('userId', '=', user.id).execute()
  }

  it('leaves exactly one ADMIN when two ADMINs demote or remove each other at the same time', async () => {
    for (const action of ['demote', 'remove', 'demote', 'remove']) {
      const alice = await person('alice')
      const bob = await person('bob')
      const organizationId = await organizationOf(alice)
      assert.equal((await put(alice, organizationId, bob.id, { role: 'ADMIN' })).statusCode, 200)

      const change = (by: Person, target: Person) =>
        action === 'demote' ? put(by, organizationId, target.id, { role: 'READ' }) : remove(by, organizationId, target.id)
      const answers = await Promise.all([change(alice, bob), change(bob, alice)])
      const statuses = answers.map((res) => res.statusCode).sort()
      assert.equal(statuses.filter((s) => s < 300).length, 1, `${action}: ${statuses}`)
      // The loser either lost the race inside the lock (409) or was already demoted when checked (403/404).
      for (const res of answers.filter((r) => r.statusCode >= 300)) assert.ok([403, 404, 409].includes(res.statusCode), res.body)

      const admins = await t.db
        .selectFrom('organizationMembers')
        .select('userId')
        .where('organizationId', '=', organizationId)
        .where('role', '=', 'ADMIN')
        .execute()
      assert.equal(admins.length, 1, action)
    }
  })

  it("lowers a demoted member's tokens to its new role, and revokes them when it is removed", async () => {
    const alice = await person('alice')
    const bob = await person('bob')
    const organizationId = await organizationOf(alice)
    await put(alice, organizationId, bob.id, { role: 'WRITE' })
    const direct = (await createToken(bob.authorization, organizationId, { name: 'direct', role: 'WRITE' })).json()
    // A token minted by Bob's token owes its power to Bob too.
    const indirect = (await createToken(`Token ${direct.token}`, organizationId, { name: 'indirect', role: 'WRITE' })).json()
    assert.equal(indirect.role, 'WRITE')
    const unrelated = (await createToken(alice.authorization, organizationId, { name: 'alice', role: 'WRITE' })).json()

    assert.equal((await put(alice, organizationId, bob.id, { role: 'DEPLOY' })).statusCode, 200)
    const roles = Object.fromEntries(
      (await request(alice.authorization, 'GET', `/organization/${organizationId}/apiToken`))
        .json()
        .results.map((r: { name: string; role: string }) => [r.name, r.role]),
    )
    assert.deepEqual(roles, { direct: 'DEPLOY', indirect: 'DEPLOY', alice: 'WRITE' })

    assert.equal((await remove(alice, organizationId, bob.id)).statusCode, 204)
    for (const token of [direct.token, indirect.token]) {
      assertError(await request(`Token ${token}`, 'GET', `/organization/${organizationId}`), 401, 'unauthenticated')
    }
    assert.equal((await request(`Token ${unrelated.token}`, 'GET', `/organization/${organizationId}`)).statusCode, 200)
  })

  it('bounds a chain of tokens by the owner of the chain, and revokes what a deleted token in it created', async () => {
    const alice = await person('alice')
    const bob = await person('bob')
    const organizationId = await organizationOf(alice)
    await put(alice, organizationId, bob.id, { role: 'WRITE' })
    const first = (await createToken(bob.authorization, organizationId, { name: 'first', role: 'WRITE' })).json()
    const second = (await createToken(`Token ${first.token}`, organizationId, { name: 'second', role: 'WRITE' })).json()
    const third = (await createToken(`Token ${second.token}`, organizationId, { name: 'third', role: 'WRITE' })).json()
    assert.equal(third.role, 'WRITE')
    // Bob's demotion lowers every token of the chain: each owes its power to Bob.
    assert.equal((await put(alice, organizationId, bob.id, { role: 'DEPLOY' })).statusCode, 200)
    assertError(await request(`Token ${third.token}`, 'POST', `/organization/${organizationId}/project`, { name: 'p' }), 403, 'forbidden')
    // The token in the middle goes, and what it created goes with it.
    const deleted = await request(`Token ${first.token}`, 'DELETE', `/organization/${organizationId}/apiToken/${second.id}`)
    assert.equal(deleted.statusCode, 204, deleted.body)
    assertError(await request(`Token ${third.token}`, 'GET', `/organization/${organizationId}`), 401, 'unauthenticated')
    assert.equal((await request(`Token ${first.token}`, 'GET', `/organization/${organizationId}`)).statusCode, 200)
    assert.equal((await remove(alice, organizationId, bob.id)).statusCode, 204)
    assertError(await request(`Token ${first.token}`, 'GET', `/organization/${organizationId}`), 401, 'unauthenticated')
  })

  for (const change of ['removed', 'demoted'] as const) {
    it(`does not let a user mint an ADMIN token while it is being ${change}`, async () => {
      const alice = await person('alice')
      const bob = await person('bob')
      const organizationId = await organizationOf(alice)
      await put(alice, organizationId, bob.id, { role: 'ADMIN' })
      const byHand = change === 'removed' ? removeByHand(organizationId, bob) : demoteByHand(organizationId, bob, 'READ')
      const res = await raceWithChange(t.db, organizationId, byHand, () =>
        createToken(bob.authorization, organizationId, { name: 'late', role: 'ADMIN' }),
      )
      assertError(res, change === 'removed' ? 404 : 403, change === 'removed' ? 'not_found' : 'forbidden')
      assert.equal(await tokenCount(organizationId, 'late'), 0)
    })

    it(`does not let a user's token mint an ADMIN token while the user is being ${change}`, async () => {
      const alice = await person('alice')
      const bob = await person('bob')
      const organizationId = await organizationOf(alice)
      await put(alice, organizationId, bob.id, { role: 'ADMIN' })
      const own = (await createToken(bob.authorization, organizationId, { name: 'own', role: 'ADMIN' })).json()
      const byHand = change === 'removed' ? removeByHand(organizationId, bob) : demoteByHand(organizationId, bob, 'READ')
      const res = await raceWithChange(t.db, organizationId, byHand, () =>
        createToken(`Token ${own.token}`, organizationId, { name: 'late', role: 'ADMIN' }),
      )
      assertError(res, change === 'removed' ? 401 : 403, change === 'removed' ? 'unauthenticated' : 'forbidden')
      assert.equal(await tokenCount(organizationId, 'late'), 0)
    })
  }

  /** Bob, an ADMIN of Alice's organization, and an organization a token of Bob's made there: Bob holds ADMIN in it through its parent. */
  async function managedByBob() {
    const alice = await person('alice')
    const bob = await person('bob')
    const parentId = await organizationOf(alice)
    assert.equal((await put(alice, parentId, bob.id, { role: 'ADMIN' })).statusCode, 200)
    const own = (await createToken(bob.authorization, parentId, { name: 'own', role: 'ADMIN' })).json()
    const made = await request(`Token ${own.token}`, 'POST', '/organization', { name: `managed ${bob.name}`, plan: 'FREE' })
    assert.equal(made.statusCode, 201, made.body)
    return { alice, bob, parentId, managedId: made.json().id as string, ownToken: `Token ${own.token}` }
  }

  for (const by of ['user', 'token'] as const) {
    it(`does not let a ${by === 'user' ? 'user' : "user's token"} mint an ADMIN token in a managed organization while the user is demoted in its parent`, async () => {
      const { bob, parentId, managedId, ownToken } = await managedByBob()
      const res = await raceWithChange(t.db, parentId, demoteByHand(parentId, bob, 'READ'), () =>
        createToken(by === 'user' ? bob.authorization : ownToken, managedId, { name: 'late', role: 'ADMIN' }),
      )
      // Bob holds nothing in the managed organization once demoted in its parent: it is not found.
      assertError(res, 404, 'not_found')
      assert.equal(await tokenCount(managedId, 'late'), 0)
    })
  }

  it('leaves no token held beyond the demotion when demotions in a parent and mints in its managed organization run together', async () => {
    for (let round = 0; round < 15; round++) {
      const { alice, bob, parentId, managedId } = await managedByBob()
      const [demoted, minted] = await Promise.all([
        put(alice, parentId, bob.id, { role: 'READ' }),
        createToken(bob.authorization, managedId, { name: 'late', role: 'ADMIN' }),
      ])
      assert.equal(demoted.statusCode, 200, demoted.body)
      assert.ok([201, 404].includes(minted.statusCode), minted.body)
      // A token minted first was deleted with the demotion: Bob holds nothing there any more.
      assert.equal(await tokenCount(managedId, 'late'), 0, `round ${round}: ${minted.statusCode}`)
      if (minted.statusCode === 201) {
        assertError(await request(`Token ${minted.json().token}`, 'GET', `/organization/${managedId}`), 401, 'unauthenticated')
      }
    }
  })

  it('does not let an ADMIN finish a membership change after it was removed itself', async () => {
    const alice = await person('alice')
    const bob = await person('bob')
    const carol = await person('carol')
    const organizationId = await organizationOf(alice)
    await put(alice, organizationId, bob.id, { role: 'ADMIN' })
    await put(alice, organizationId, carol.id, { role: 'READ' })
    const res = await raceWithChange(t.db, organizationId, removeByHand(organizationId, bob), () =>
      put(bob, organizationId, carol.id, { role: 'ADMIN' }),
    )
    assertError(res, 404, 'not_found')
    const carols = await t.db
      .selectFrom('organizationMembers')
      .select('role')
      .where('organizationId', '=', organizationId)
      .where('userId', '=', carol.id)
      .executeTakeFirstOrThrow()
    assert.equal(carols.role, 'READ')
  })
})
