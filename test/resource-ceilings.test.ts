import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createTestApp, type TestApp } from './helpers/app.ts'
import { assertValidationError } from './helpers/assertions.ts'
import { factories, uniqueName } from './helpers/factories.ts'

// Issue 31, item 4: what an organization's services ask of the host together is bounded. A WRITE
// token asking for 1,000 instances of 256 GiB each gets a 400 saying which ceiling it would pass.

describe('per-organization resource ceilings (BERTH_ORGANIZATION_MAX_MEMORY_MB, BERTH_ORGANIZATION_MAX_CPU)', () => {
  let t: TestApp
  before(async () => {
    t = await createTestApp({ BERTH_ORGANIZATION_MAX_MEMORY_MB: '1000', BERTH_ORGANIZATION_MAX_CPU: '2000' })
  })
  after(() => t?.close())

  async function world() {
    const f = factories(t.db)
    const w = await f.environmentWithTokens()
    const registry = await f.containerRegistry(w.organization.id)
    const container = (extra: object) =>
      t.app.inject({
        method: 'POST',
        url: `/environment/${w.environment.id}/container`,
        headers: { authorization: w.tokens.write.authorization },
        payload: {
          name: uniqueName('c'),
          registry_id: registry.id,
          image_name: 'acme/web',
          tag: '1',
          healthchecks: {},
          cpu: 100,
          memory: 100,
          ...extra,
        },
      })
    return { ...w, registry, container }
  }

  const pathsOf = (errors: { path: string; message: string }[]) => errors.map((error) => error.path)

  it('refuses 1,000 instances of 256 GiB at create, naming memory and its ceiling', async () => {
    const { container } = await world()
    const res = await container({ memory: 262_144, min_running_instances: 1, max_running_instances: 1000 })
    const errors = assertValidationError(res)
    assert.deepEqual(pathsOf(errors), ['/memory', '/cpu'])
    assert.match(errors[0]!.message, /over its ceiling of 1000 MB \(BERTH_ORGANIZATION_MAX_MEMORY_MB\)/)
  })

  it('counts every service of the organization, instances × size, and names each ceiling passed; an edit that asks no more passes', async () => {
    const { container, tokens, project, registry } = await world()
    const first = await container({ memory: 400, cpu: 500, min_running_instances: 1, max_running_instances: 2 })
    assert.equal(first.statusCode, 201, first.body)
    // 800 MB and 1000 millicores used: 300 MB more is over, and 3 × 400 millicores too.
    const over = await container({ memory: 300, cpu: 400, min_running_instances: 1, max_running_instances: 3 })
    assert.deepEqual(pathsOf(assertValidationError(over)), ['/memory', '/cpu'])
    // Another environment of the organization counts as well.
    const other = await factories(t.db).environment(project.id)
    const elsewhere = await t.app.inject({
      method: 'POST',
      url: `/environment/${other.id}/job`,
      headers: { authorization: tokens.write.authorization },
      payload: {
        name: uniqueName('job'),
        cpu: 1500,
        memory: 100,
        source: { image: { image_name: 'busybox', tag: '1', registry_id: registry.id } },
        schedule: { on_start: { arguments: ['echo', 'hi'] } },
        healthchecks: {},
      },
    })
    assert.deepEqual(pathsOf(assertValidationError(elsewhere)), ['/cpu'])

    // Raising the first service's instances past the ceiling is refused; lowering them passes.
    const edit = (extra: object) =>
      t.app.inject({
        method: 'PUT',
        url: `/container/${first.json().id}`,
        headers: { authorization: tokens.write.authorization },
        payload: { ...(first.json() as object), ...extra },
      })
    assert.deepEqual(pathsOf(assertValidationError(await edit({ max_running_instances: 3 }))), ['/memory'])
    const lowered = await edit({ max_running_instances: 1 })
    assert.equal(lowered.statusCode, 200, lowered.body)
  })
})
