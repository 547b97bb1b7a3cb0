import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { sql } from 'kysely'
import { createApiTokensRepository } from '#src/modules/api-tokens/api-tokens.repository.ts'
import { createTokenUsageTracker } from '#src/modules/api-tokens/token-usage.ts'
import { type Db, openDatabase } from '#src/platform/db/database.ts'
import { testDatabaseUrl } from './helpers/app.ts'
import { factories } from './helpers/factories.ts'

describe('API token usage written in batches', () => {
  let db: Db
  before(() => {
    db = openDatabase(testDatabaseUrl(), 4)
  })
  after(() => db.destroy())

  const lastUsed = async (id: string) =>
    (await db.selectFrom('apiTokens').select('lastUsedAt').where('id', '=', id).executeTakeFirstOrThrow()).lastUsedAt

  // Without skipping, the flush would wait for the holder, which waits for the flush: the timeout ends it.
  it('skips a token another transaction holds, without waiting, and writes it on a later flush', { timeout: 15_000 }, async () => {
    const { tokens } = await factories(db).organizationWithTokens()
    const errors: unknown[] = []
    const tracker = createTokenUsageTracker(createApiTokensRepository(db), 60_000, (error) => errors.push(error))
    const at = new Date('2026-01-02T03:04:05.000Z')
    tracker.touch(tokens.read.id, at)
    tracker.touch(tokens.write.id, at)

    let release: () => void = () => {}
    const released = new Promise<void>((resolve) => {
      release = resolve
    })
    let locked: () => void = () => {}
    const isLocked = new Promise<void>((resolve) => {
      locked = resolve
    })
    // A member change capping this organization's tokens holds their rows until it commits.
    const holder = db.transaction().execute(async (trx) => {
      await sql`select id from api_tokens where id = ${tokens.read.id} for update`.execute(trx)
      locked()
      await released
    })
    await isLocked
    await tracker.flush()
    assert.equal((await lastUsed(tokens.write.id))?.toISOString(), at.toISOString(), 'the free token is written')
    assert.equal(await lastUsed(tokens.read.id), null, 'the held token is left alone')
    assert.equal(tracker.pendingFor(tokens.read.id)?.toISOString(), at.toISOString(), 'and kept for later')
    release()
    await holder

    await tracker.flush()
    assert.equal((await lastUsed(tokens.read.id))?.toISOString(), at.toISOString())
    assert.equal(tracker.pendingFor(tokens.read.id), undefined)
    assert.deepEqual(errors, [])
  })

  it('forgets the usage of a token deleted before the flush', async () => {
    const { tokens } = await factories(db).organizationWithTokens()
    const tracker = createTokenUsageTracker(createApiTokensRepository(db), 60_000, () => {})
    tracker.touch(tokens.deploy.id)
    await db.deleteFrom('apiTokens').where('id', '=', tokens.deploy.id).execute()
    await tracker.flush()
    assert.equal(tracker.pendingFor(tokens.deploy.id), undefined)
  })
})
