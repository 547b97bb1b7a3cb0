import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { deleteRows, findRow, hasRow, lockRow, lockRows, updateRow } from '#src/platform/db/rows-by-keys.ts'
import { createTestApp, type TestApp } from './helpers/app.ts'
import { factories } from './helpers/factories.ts'

// The statements on a row picked by equal keys (src/platform/db/rows-by-keys.ts): every key narrows,
// and no keys at all is refused rather than reading or deleting every row.

describe('rows picked by their keys', () => {
  let t: TestApp

  before(async () => {
    t = await createTestApp()
  })
  after(async () => t?.close())

  it('reads, finds and deletes only the row whose every key matches, in its organization', async () => {
    const f = factories(t.db)
    const { organization, project } = await f.environmentWithTokens()
    const other = await f.organization()

    assert.equal(await hasRow(t.db, 'projects', { organizationId: organization.id, id: project.id }), true)
    assert.equal(await hasRow(t.db, 'projects', { organizationId: other.id, id: project.id }), false)
    assert.deepEqual(await findRow(t.db, 'projects', { organizationId: organization.id, id: project.id }, ['id', 'name']), {
      id: project.id,
      name: project.name,
    })
    assert.equal(await findRow(t.db, 'projects', { organizationId: other.id, id: project.id }, ['id']), undefined)

    assert.equal(await deleteRows(t.db, 'projects', { organizationId: other.id, id: project.id }), false)
    assert.equal(await hasRow(t.db, 'projects', { id: project.id }), true)
    assert.equal(await deleteRows(t.db, 'projects', { organizationId: organization.id, id: project.id }), true)
    assert.equal(await hasRow(t.db, 'projects', { id: project.id }), false)
  })

  it('locks only the row whose every key matches, for the rest of the transaction', async () => {
    const f = factories(t.db)
    const { organization, project } = await f.environmentWithTokens()
    const other = await f.organization()

    await t.db.transaction().execute(async (trx) => {
      assert.equal(await lockRow(trx, 'projects', { organizationId: other.id, id: project.id }), false)
      assert.equal(await lockRow(trx, 'projects', { organizationId: organization.id, id: project.id }), true)
      // Another connection cannot lock it meanwhile: `nowait` fails at once instead of waiting.
      await assert.rejects(() => t.db.selectFrom('projects').select('id').where('id', '=', project.id).forUpdate().noWait().execute())
    })
    assert.equal(await lockRow(t.db, 'projects', { organizationId: organization.id, id: project.id }), true)
  })

  it('locks the rows whose every key matches and answers their ids in order', async () => {
    const f = factories(t.db)
    const { organization, project } = await f.environmentWithTokens()
    const second = await f.project(organization.id)
    const other = await f.organization()

    await t.db.transaction().execute(async (trx) => {
      assert.deepEqual(await lockRows(trx, 'projects', { organizationId: other.id }), [])
      assert.deepEqual(await lockRows(trx, 'projects', { organizationId: organization.id }), [project.id, second.id].sort())
      await assert.rejects(() => t.db.selectFrom('projects').select('id').where('id', '=', second.id).forUpdate().noWait().execute())
    })
    await assert.rejects(() => lockRows(t.db, 'projects', {}), /no keys/)
  })

  it('updates only the row whose every key matches, stamping updatedAt, and answers it as it is then', async () => {
    const f = factories(t.db)
    const { organization, project } = await f.environmentWithTokens()
    const other = await f.organization()

    assert.equal(await updateRow(t.db, 'projects', { organizationId: other.id, id: project.id }, { description: 'elsewhere' }), undefined)
    const before = new Date()
    const updated = await updateRow(t.db, 'projects', { organizationId: organization.id, id: project.id }, { description: 'renamed' })
    assert.equal(updated?.id, project.id)
    assert.equal(updated?.description, 'renamed')
    assert.ok(updated?.updatedAt && updated.updatedAt >= before)
    assert.deepEqual(await findRow(t.db, 'projects', { id: project.id }, ['description']), { description: 'renamed' })
  })

  it('refuses to pick rows by no keys', async () => {
    await assert.rejects(() => deleteRows(t.db, 'projects', {}), /no keys/)
    await assert.rejects(() => hasRow(t.db, 'projects', {}), /no keys/)
    await assert.rejects(() => lockRow(t.db, 'projects', {}), /no keys/)
    await assert.rejects(() => updateRow(t.db, 'projects', {}, { description: 'every row' }), /no keys/)
  })
})
