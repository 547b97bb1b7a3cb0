import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { createTestApp, type TestApp } from './helpers/app.ts'
import { assertError, assertIsoTimestamp, assertValidationError, UUID } from './helpers/assertions.ts'
import {
  createDeploymentsApp,
  type DeploymentsTestApp,
  deploymentCalls,
  durationMs,
  type EnvironmentEntry,
  type ServiceEntry,
} from './helpers/deployments.ts'
import { factories } from './helpers/factories.ts'

// Deployment stages (reference "Deployment Stage Main Calls"): the stage a new service joins, the
// stages' CRUD and order, moving services between them, who may do what, and what a deployment
// makes of them.

interface StageService {
  id: string
  created_at: string
  updated_at: string
  service_id: string
  service_type: string
  is_skipped: boolean
}

interface Stage {
  id: string
  created_at: string
  updated_at: string
  environment: { id: string }
  name: string
  description: string
  deployment_order: number
  services: StageService[]
}

const STAGE_KEYS = ['created_at', 'deployment_order', 'description', 'environment', 'id', 'name', 'services', 'updated_at']
const STAGE_SERVICE_KEYS = ['created_at', 'id', 'is_skipped', 'service_id', 'service_type', 'updated_at']

/** The stage endpoints through `app.inject`. */
function stageCalls(app: FastifyInstance) {
  const send = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, authorization: string, payload?: object) =>
    app.inject({ method, url, headers: { authorization }, ...(payload === undefined ? {} : { payload }) })
  const ok = <T>(res: LightMyRequestResponse, status = 200): T => {
    assert.equal(res.statusCode, status, `${res.statusCode}: ${res.body}`)
    return res.json() as T
  }
  return {
    send,
    list: async (environmentId: string, authorization: string) =>
      ok<{ results: Stage[] }>(await send('GET', `/environment/${environmentId}/deploymentStage`, authorization)).results,
    create: async (environmentId: string, authorization: string, body: object) =>
      ok<Stage>(await send('POST', `/environment/${environmentId}/deploymentStage`, authorization, body)),
    get: async (stageId: string, authorization: string) => ok<Stage>(await send('GET', `/deploymentStage/${stageId}`, authorization)),
    ofService: async (serviceId: string, authorization: string) =>
      ok<Stage>(await send('GET', `/service/${serviceId}/deploymentStage`, authorization)),
    move: async (stageId: string, where: 'Before' | 'After', otherId: string, authorization: string) =>
      ok<{ results: Stage[] }>(await send('PUT', `/deploymentStage/${stageId}/move${where}/${otherId}`, authorization)).results,
    attach: async (stageId: string, serviceId: string, authorization: string, body?: object) =>
      ok<{ results: Stage[] }>(await send('PUT', `/deploymentStage/${stageId}/service/${serviceId}`, authorization, body)).results,
  }
}

/** The stages as [name, order, service ids] triples, for comparing a whole list at once. */
const layout = (stages: Stage[]) => stages.map((stage) => [stage.name, stage.deployment_order, stage.services.map((s) => s.service_id).sort()])

function assertStageShape(stage: Stage, environmentId: string) {
  assert.deepEqual(Object.keys(stage).sort(), STAGE_KEYS)
  assert.match(stage.id, UUID)
  assertIsoTimestamp(stage.created_at, 'created_at')
  assertIsoTimestamp(stage.updated_at, 'updated_at')
  assert.deepEqual(stage.environment, { id: environmentId })
  assert.equal(typeof stage.description, 'string')
  assert.ok(Number.isInteger(stage.deployment_order))
  for (const service of stage.services) {
    assert.deepEqual(Object.keys(service).sort(), STAGE_SERVICE_KEYS)
    assert.match(service.service_id, UUID)
    assertIsoTimestamp(service.created_at, 'services[].created_at')
    assertIsoTimestamp(service.updated_at, 'services[].updated_at')
  }
}

describe('deployment stages', () => {
  // The shared test database has no runner: what is queued stays queued.
  let t: TestApp
  let make: ReturnType<typeof factories>
  let calls: ReturnType<typeof stageCalls>
  before(async () => {
    t = await createTestApp()
    make = factories(t.db)
    calls = stageCalls(t.app)
  })
  after(() => t?.close())

  it('puts a new helm service in HELM DEFAULT, made when the environment has none, and every later one in the same stage', async () => {
    const { environment, tokens } = await make.environmentWithTokens()
    const auth = tokens.read.authorization
    assert.deepEqual(await calls.list(environment.id, auth), [], 'an environment without services has no stage')

    const first = await make.helmService(environment.id)
    const stage = await calls.ofService(first.id, auth)
    assertStageShape(stage, environment.id)
    assert.equal(stage.name, 'HELM DEFAULT')
    assert.equal(stage.deployment_order, 1)
    assert.equal(stage.description, '')
    assert.deepEqual(
      stage.services.map((service) => [service.service_id, service.service_type, service.is_skipped]),
      [[first.id, 'HELM', false]],
    )

    const second = await make.helmService(environment.id)
    assert.equal((await calls.ofService(second.id, auth)).id, stage.id, 'the second helm service joins the same stage')
    const stages = await calls.list(environment.id, auth)
    assert.deepEqual(layout(stages), [['HELM DEFAULT', 1, [first.id, second.id].sort()]])
  })

  it('makes HELM DEFAULT again, after the stages people made, once it was emptied and deleted', async () => {
    const { environment, tokens } = await make.environmentWithTokens()
    const auth = tokens.write.authorization
    const own = await calls.create(environment.id, auth, { name: 'Own', description: 'made by hand' })
    const helm = await make.helmService(environment.id)
    const helmDefault = await calls.ofService(helm.id, auth)
    assert.deepEqual(layout(await calls.list(environment.id, auth)), [
      ['Own', 1, []],
      ['HELM DEFAULT', 2, [helm.id]],
    ])

    await calls.attach(own.id, helm.id, auth)
    assert.equal((await calls.send('DELETE', `/deploymentStage/${helmDefault.id}`, auth)).statusCode, 204)
    const next = await make.helmService(environment.id)
    const made = await calls.ofService(next.id, auth)
    assert.equal(made.name, 'HELM DEFAULT')
    assert.notEqual(made.id, helmDefault.id, 'a new stage')
    assert.deepEqual(layout(await calls.list(environment.id, auth)), [
      ['Own', 1, [helm.id]],
      ['HELM DEFAULT', 2, [next.id]],
    ])
  })

  it('creates, lists in order, gets, renames and deletes stages, numbering them 1..n', async () => {
    const { environment, tokens } = await make.environmentWithTokens()
    const auth = tokens.write.authorization
    const names = ['Databases', 'Backends', 'Frontends']
    const created: Stage[] = []
    for (const name of names) {
      const res = await calls.send('POST', `/environment/${environment.id}/deploymentStage`, auth, { name, description: `the ${name}` })
      assert.equal(res.statusCode, 200, 'the reference answers 200 to a create')
      const stage = res.json() as Stage
      assertStageShape(stage, environment.id)
      assert.equal(stage.name, name)
      assert.equal(stage.description, `the ${name}`)
      assert.deepEqual(stage.services, [])
      created.push(stage)
    }
    assert.deepEqual(
      created.map((stage) => stage.deployment_order),
      [1, 2, 3],
      'each new stage deploys after the others',
    )

    const listed = await calls.list(environment.id, tokens.read.authorization)
    assert.deepEqual(
      listed.map((stage) => [stage.id, stage.name, stage.deployment_order]),
      created.map((stage) => [stage.id, stage.name, stage.deployment_order]),
    )
    for (const stage of listed) assertStageShape(stage, environment.id)
    assert.deepEqual(await calls.get(created[1]!.id, tokens.read.authorization), listed[1])

    // A create without a description describes it as empty.
    const bare = await calls.create(environment.id, auth, { name: 'Bare' })
    assert.equal(bare.description, '')
    assert.equal(bare.deployment_order, 4)

    const renamed = (await calls.send('PUT', `/deploymentStage/${created[1]!.id}`, auth, { name: 'Services', description: null })).json() as Stage
    assert.equal(renamed.id, created[1]!.id)
    assert.equal(renamed.name, 'Services')
    assert.equal(renamed.description, '')
    assert.equal(renamed.deployment_order, 2, 'a rename keeps the place')
    assert.equal((await calls.get(created[1]!.id, auth)).name, 'Services')

    assert.equal((await calls.send('DELETE', `/deploymentStage/${created[1]!.id}`, auth)).statusCode, 204)
    assertError(await calls.send('GET', `/deploymentStage/${created[1]!.id}`, auth), 404, 'not_found')
    assertError(await calls.send('DELETE', `/deploymentStage/${created[1]!.id}`, auth), 404, 'not_found')
    assert.deepEqual(
      (await calls.list(environment.id, auth)).map((stage) => [stage.name, stage.deployment_order]),
      [
        ['Databases', 1],
        ['Frontends', 2],
        ['Bare', 3],
      ],
      'the stages after a deleted one move up',
    )
  })

  it('answers 409 to a name its environment already has, whatever the case, and lets another environment use it', async () => {
    const { environment, project, tokens } = await make.environmentWithTokens()
    const auth = tokens.write.authorization
    const build = await calls.create(environment.id, auth, { name: 'Build' })
    const test = await calls.create(environment.id, auth, { name: 'Test' })
    assertError(await calls.send('POST', `/environment/${environment.id}/deploymentStage`, auth, { name: 'build' }), 409, 'conflict')
    assertError(await calls.send('POST', `/environment/${environment.id}/deploymentStage`, auth, { name: '  BUILD ' }), 409, 'conflict')
    assertError(await calls.send('PUT', `/deploymentStage/${test.id}`, auth, { name: 'BUILD' }), 409, 'conflict')
    assert.equal((await calls.get(test.id, auth)).name, 'Test', 'a refused rename changes nothing')
    // A stage may change the case of its own name.
    const recased = await calls.send('PUT', `/deploymentStage/${build.id}`, auth, { name: 'BUILD' })
    assert.equal(recased.statusCode, 200, recased.body)
    assert.equal((recased.json() as Stage).name, 'BUILD')
    assert.equal((await calls.list(environment.id, auth)).length, 2)

    const other = await make.environment(project.id)
    assert.equal((await calls.create(other.id, auth, { name: 'build' })).name, 'build')
  })

  it('answers 400 to a name that is blank or too long, on create and on rename, and changes nothing', async () => {
    const { environment, tokens } = await make.environmentWithTokens()
    const auth = tokens.write.authorization
    const stage = await calls.create(environment.id, auth, { name: 'Kept' })
    for (const name of ['', '   ', '\t\n', 'x'.repeat(256)]) {
      const created = assertValidationError(await calls.send('POST', `/environment/${environment.id}/deploymentStage`, auth, { name }))
      assert.deepEqual(
        created.map((error) => error.path),
        ['/name'],
        JSON.stringify(name),
      )
      const renamed = assertValidationError(await calls.send('PUT', `/deploymentStage/${stage.id}`, auth, { name }))
      assert.deepEqual(
        renamed.map((error) => error.path),
        ['/name'],
        JSON.stringify(name),
      )
    }
    assertValidationError(await calls.send('POST', `/environment/${environment.id}/deploymentStage`, auth, {}))
    assert.deepEqual(
      (await calls.list(environment.id, auth)).map((s) => s.name),
      ['Kept'],
    )
    // Names are kept trimmed.
    assert.equal((await calls.create(environment.id, auth, { name: '  Padded  ' })).name, 'Padded')
  })

  it('refuses to delete a stage while it holds services (409), and deletes it once they moved out (204)', async () => {
    const { environment, tokens } = await make.environmentWithTokens()
    const auth = tokens.write.authorization
    const helm = await make.helmService(environment.id)
    const helmDefault = await calls.ofService(helm.id, auth)
    const spare = await calls.create(environment.id, auth, { name: 'Spare' })

    const refused = assertError(await calls.send('DELETE', `/deploymentStage/${helmDefault.id}`, auth), 409, 'conflict')
    assert.match(refused.message, /HELM DEFAULT/)
    assert.deepEqual(layout(await calls.list(environment.id, auth)), [
      ['HELM DEFAULT', 1, [helm.id]],
      ['Spare', 2, []],
    ])

    await calls.attach(spare.id, helm.id, auth)
    assert.equal((await calls.send('DELETE', `/deploymentStage/${helmDefault.id}`, auth)).statusCode, 204)
    assert.deepEqual(layout(await calls.list(environment.id, auth)), [['Spare', 1, [helm.id]]])
  })

  it('moves a stage before or after another and answers the stages in their new order', async () => {
    const { environment, tokens } = await make.environmentWithTokens()
    const auth = tokens.write.authorization
    const [a, b, c, d] = [
      await calls.create(environment.id, auth, { name: 'A' }),
      await calls.create(environment.id, auth, { name: 'B' }),
      await calls.create(environment.id, auth, { name: 'C' }),
      await calls.create(environment.id, auth, { name: 'D' }),
    ] as [Stage, Stage, Stage, Stage]
    const order = (stages: Stage[]) => stages.map((stage) => `${stage.deployment_order}:${stage.name}`)

    const afterBefore = await calls.move(d.id, 'Before', b.id, auth)
    assert.deepEqual(order(afterBefore), ['1:A', '2:D', '3:B', '4:C'])
    for (const stage of afterBefore) assertStageShape(stage, environment.id)
    assert.deepEqual(order(await calls.list(environment.id, auth)), order(afterBefore), 'the answer is the list as stored')

    assert.deepEqual(order(await calls.move(a.id, 'After', c.id, auth)), ['1:D', '2:B', '3:C', '4:A'])
    assert.deepEqual(order(await calls.move(a.id, 'Before', d.id, auth)), ['1:A', '2:D', '3:B', '4:C'], 'to the very front')
    assert.deepEqual(order(await calls.move(a.id, 'After', c.id, auth)), ['1:D', '2:B', '3:C', '4:A'], 'to the very end')
    // Where it already is, and next to itself: nothing moves.
    assert.deepEqual(order(await calls.move(b.id, 'After', d.id, auth)), ['1:D', '2:B', '3:C', '4:A'])
    assert.deepEqual(order(await calls.move(c.id, 'Before', c.id, auth)), ['1:D', '2:B', '3:C', '4:A'])
    assert.equal((await calls.get(a.id, auth)).deployment_order, 4)
  })

  it('answers 404 to a move next to a stage of another environment, or next to no stage, and moves nothing', async () => {
    const { environment, project, tokens } = await make.environmentWithTokens()
    const auth = tokens.write.authorization
    const a = await calls.create(environment.id, auth, { name: 'A' })
    await calls.create(environment.id, auth, { name: 'B' })
    const elsewhere = await calls.create((await make.environment(project.id)).id, auth, { name: 'Elsewhere' })
    for (const where of ['Before', 'After']) {
      assertError(await calls.send('PUT', `/deploymentStage/${a.id}/move${where}/${elsewhere.id}`, auth), 404, 'not_found')
      assertError(await calls.send('PUT', `/deploymentStage/${elsewhere.id}/move${where}/${a.id}`, auth), 404, 'not_found')
      assertError(await calls.send('PUT', `/deploymentStage/${a.id}/move${where}/${randomUUID()}`, auth), 404, 'not_found')
    }
    assert.deepEqual(
      (await calls.list(environment.id, auth)).map((stage) => stage.name),
      ['A', 'B'],
    )
  })

  it('moves a service into another stage of its environment, and answers 404 for a stage or service of another environment', async () => {
    const { environment, project, tokens } = await make.environmentWithTokens()
    const auth = tokens.write.authorization
    const [one, two] = [await make.helmService(environment.id), await make.helmService(environment.id)]
    const helmDefault = await calls.ofService(one.id, auth)
    const first = await calls.create(environment.id, auth, { name: 'First' })

    // The official clients send no body when the caller gives none.
    const moved = await calls.attach(first.id, two.id, auth)
    assert.deepEqual(layout(moved), [
      ['HELM DEFAULT', 1, [one.id]],
      ['First', 2, [two.id]],
    ])
    const entry = moved[1]!.services[0]!
    assert.deepEqual([entry.service_id, entry.service_type, entry.is_skipped], [two.id, 'HELM', false])
    assert.equal((await calls.ofService(two.id, auth)).id, first.id)

    const otherEnvironment = await make.environment(project.id)
    const stranger = await make.helmService(otherEnvironment.id)
    const strangerStage = await calls.ofService(stranger.id, auth)
    assertError(await calls.send('PUT', `/deploymentStage/${first.id}/service/${stranger.id}`, auth, {}), 404, 'not_found')
    assertError(await calls.send('PUT', `/deploymentStage/${strangerStage.id}/service/${one.id}`, auth, {}), 404, 'not_found')
    assertError(await calls.send('PUT', `/deploymentStage/${first.id}/service/${randomUUID()}`, auth, {}), 404, 'not_found')
    assertError(await calls.send('PUT', `/deploymentStage/${randomUUID()}/service/${one.id}`, auth, {}), 404, 'not_found')
    assert.equal((await calls.ofService(one.id, auth)).id, helmDefault.id, 'nothing moved')
    assert.equal((await calls.ofService(stranger.id, auth)).id, strangerStage.id)
    assertError(await calls.send('GET', `/service/${randomUUID()}/deploymentStage`, auth), 404, 'not_found')
  })

  it('leaves a service marked is_skipped out of environment deployments, and a move without is_skipped un-skips it', async () => {
    const { environment, tokens } = await make.environmentWithTokens()
    const auth = tokens.write.authorization
    const [kept, skipped] = [await make.helmService(environment.id), await make.helmService(environment.id)]
    const helmDefault = await calls.ofService(kept.id, auth)
    const later = await calls.create(environment.id, auth, { name: 'Later' })

    const marked = await calls.attach(helmDefault.id, skipped.id, auth, { is_skipped: true })
    const flags = (stages: Stage[]) =>
      Object.fromEntries(stages.flatMap((stage) => stage.services.map((service) => [service.service_id, [stage.name, service.is_skipped]])))
    assert.deepEqual(flags(marked), { [kept.id]: ['HELM DEFAULT', false], [skipped.id]: ['HELM DEFAULT', true] }, 'skipped where it is')

    const history = deploymentCalls(t.app)
    const queued = await history.trigger(`/environment/${environment.id}/deploy`, tokens.deploy.authorization)
    const [entry] = await history.entries(environment.id, auth)
    assert.equal(entry!.identifier.execution_id, queued.execution_id)
    assert.deepEqual(
      entry!.stages.map((stage) => [stage.name, stage.services.map((service) => service.identifier.service_id)]),
      [['HELM DEFAULT', [kept.id]]],
      'the skipped service is left out of the environment deployment',
    )
    // A deployment of the service itself still includes it.
    const own = await history.trigger(`/helm/${skipped.id}/deploy`, tokens.deploy.authorization)
    const [ownEntry] = await history.entries(environment.id, auth)
    assert.equal(ownEntry!.identifier.execution_id, own.execution_id)
    assert.deepEqual(
      ownEntry!.stages[0]!.services.map((service) => service.identifier.service_id),
      [skipped.id],
    )

    // The reference: "Moving the service to a different stage automatically un-skips it".
    assert.deepEqual(flags(await calls.attach(later.id, skipped.id, auth)), { [kept.id]: ['HELM DEFAULT', false], [skipped.id]: ['Later', false] })
    assert.deepEqual(flags(await calls.attach(later.id, skipped.id, auth, { is_skipped: false })), {
      [kept.id]: ['HELM DEFAULT', false],
      [skipped.id]: ['Later', false],
    })
  })

  it('lets READ list and read stages, needs WRITE to change them (403 for DEPLOY), and hides other organizations’ stages (404)', async () => {
    const { environment, tokens } = await make.environmentWithTokens()
    const helm = await make.helmService(environment.id)
    const helmDefault = await calls.ofService(helm.id, tokens.read.authorization)
    const spare = await calls.create(environment.id, tokens.admin.authorization, { name: 'Spare' })

    for (const reader of [tokens.read, tokens.deploy]) {
      assert.equal((await calls.list(environment.id, reader.authorization)).length, 2)
      assert.equal((await calls.get(spare.id, reader.authorization)).name, 'Spare')
      assert.equal((await calls.ofService(helm.id, reader.authorization)).id, helmDefault.id)
    }

    const changes: [string, string, string, object | undefined][] = [
      ['POST', `/environment/${environment.id}/deploymentStage`, 'create', { name: 'Nope' }],
      ['PUT', `/deploymentStage/${spare.id}`, 'rename', { name: 'Nope' }],
      ['DELETE', `/deploymentStage/${spare.id}`, 'delete', undefined],
      ['PUT', `/deploymentStage/${spare.id}/moveBefore/${helmDefault.id}`, 'move before', undefined],
      ['PUT', `/deploymentStage/${spare.id}/moveAfter/${helmDefault.id}`, 'move after', undefined],
      ['PUT', `/deploymentStage/${spare.id}/service/${helm.id}`, 'attach', {}],
    ]
    for (const token of [tokens.read, tokens.deploy]) {
      for (const [method, url, what, body] of changes) {
        const res = await calls.send(method as 'POST' | 'PUT' | 'DELETE', url, token.authorization, body)
        assert.equal(res.statusCode, 403, `${what} as ${token.role}: ${res.body}`)
        assertError(res, 403, 'forbidden')
      }
    }
    assert.deepEqual(layout(await calls.list(environment.id, tokens.read.authorization)), [
      ['HELM DEFAULT', 1, [helm.id]],
      ['Spare', 2, []],
    ])

    // Another organization's admin sees none of it.
    const stranger = await make.organizationWithTokens()
    const auth = stranger.tokens.admin.authorization
    assertError(await calls.send('GET', `/environment/${environment.id}/deploymentStage`, auth), 404, 'not_found')
    assertError(await calls.send('POST', `/environment/${environment.id}/deploymentStage`, auth, { name: 'Nope' }), 404, 'not_found')
    assertError(await calls.send('GET', `/deploymentStage/${spare.id}`, auth), 404, 'not_found')
    assertError(await calls.send('GET', `/service/${helm.id}/deploymentStage`, auth), 404, 'not_found')
    for (const [method, url, , body] of changes.slice(1)) {
      assertError(await calls.send(method as 'PUT' | 'DELETE', url, auth, body), 404, 'not_found')
    }
    // Its own stage next to ours, and our service into its stage, are no more found.
    const theirs = await make.environmentWithTokens()
    const theirStage = await calls.create(theirs.environment.id, theirs.tokens.admin.authorization, { name: 'Theirs' })
    const theirAuth = theirs.tokens.admin.authorization
    assertError(await calls.send('PUT', `/deploymentStage/${theirStage.id}/moveBefore/${spare.id}`, theirAuth), 404, 'not_found')
    assertError(await calls.send('PUT', `/deploymentStage/${theirStage.id}/service/${helm.id}`, theirAuth, {}), 404, 'not_found')
    assert.equal((await calls.ofService(helm.id, tokens.read.authorization)).id, helmDefault.id)
  })
})

describe('deployment stages in deployments', () => {
  // 800 ms a service: long enough to act while one runs.
  let d: DeploymentsTestApp
  before(async () => {
    d = await createDeploymentsApp(800)
  })
  after(() => d?.close())

  /** When a service's part ended (its entry's `updated_at`) and began (that less its duration). */
  const endOf = (service: ServiceEntry) => Date.parse(service.auditing_data.updated_at)
  const startOf = (service: ServiceEntry) => endOf(service) - durationMs(service.total_duration)
  const stageLayout = (entry: EnvironmentEntry) =>
    entry.stages.map((stage) => [stage.name, stage.services.map((service) => service.identifier.service_id)])

  it('deploys the stages in the order people gave them', async () => {
    const make = factories(d.db)
    const calls = stageCalls(d.app)
    const deployments = deploymentCalls(d.app)
    const { environment, tokens } = await make.environmentWithTokens()
    const auth = tokens.write.authorization
    const [one, two] = [await make.helmService(environment.id), await make.helmService(environment.id)]
    const a = await calls.create(environment.id, auth, { name: 'A' })
    const b = await calls.create(environment.id, auth, { name: 'B' })
    await calls.attach(a.id, one.id, auth)
    await calls.attach(b.id, two.id, auth)
    assert.deepEqual(
      (await calls.move(b.id, 'Before', a.id, auth)).map((stage) => stage.name),
      ['HELM DEFAULT', 'B', 'A'],
    )

    const queued = await deployments.trigger(`/environment/${environment.id}/deploy`, tokens.deploy.authorization)
    const [entry] = await deployments.waitUntilIdle(environment.id, tokens.read.authorization)
    assert.equal(entry!.identifier.execution_id, queued.execution_id)
    assert.equal(entry!.action_status, 'SUCCESS')
    assert.deepEqual(
      stageLayout(entry!),
      [
        ['B', [two.id]],
        ['A', [one.id]],
      ],
      'only the stages that hold a service, in the order they were moved to',
    )
    assert.deepEqual(
      entry!.stages.map((stage) => stage.status),
      ['DONE', 'DONE'],
    )
    const [inB, inA] = [entry!.stages[0]!.services[0]!, entry!.stages[1]!.services[0]!]
    assert.ok(endOf(inB) <= startOf(inA), `the service of B ended at ${inB.auditing_data.updated_at}, after the service of A began`)

    // Moved back, the next deployment follows the new order.
    await calls.move(a.id, 'Before', b.id, auth)
    await deployments.trigger(`/environment/${environment.id}/deploy`, tokens.deploy.authorization)
    const [next] = await deployments.waitUntilIdle(environment.id, tokens.read.authorization)
    assert.deepEqual(stageLayout(next!), [
      ['A', [one.id]],
      ['B', [two.id]],
    ])
  })

  it('finishes a running deployment whose stage was emptied and deleted meanwhile, and keeps the stage in its history as it was', async () => {
    const make = factories(d.db)
    const calls = stageCalls(d.app)
    const deployments = deploymentCalls(d.app)
    const { environment, tokens } = await make.environmentWithTokens()
    const auth = tokens.write.authorization
    const [early, late] = [await make.helmService(environment.id), await make.helmService(environment.id)]
    const helmDefault = await calls.ofService(early.id, auth)
    const doomed = await calls.create(environment.id, auth, { name: 'Doomed' })
    await calls.attach(doomed.id, late.id, auth)

    const queued = await deployments.trigger(`/environment/${environment.id}/deploy`, tokens.deploy.authorization)
    await deployments.waitForEntries(
      environment.id,
      tokens.read.authorization,
      (entries) => entries[0]?.stages[0]?.status === 'ONGOING',
      'the first stage running',
    )
    // While the first stage runs, the second is emptied and deleted, and the first renamed.
    await calls.attach(helmDefault.id, late.id, auth)
    assert.equal((await calls.send('DELETE', `/deploymentStage/${doomed.id}`, auth)).statusCode, 204)
    const renamed = await calls.send('PUT', `/deploymentStage/${helmDefault.id}`, auth, { name: 'Renamed' })
    assert.equal(renamed.statusCode, 200, renamed.body)

    const [entry] = await deployments.waitUntilIdle(environment.id, tokens.read.authorization)
    assert.equal(entry!.identifier.execution_id, queued.execution_id)
    assert.equal(entry!.action_status, 'SUCCESS', entry!.message ?? '')
    assert.deepEqual(
      stageLayout(entry!),
      [
        ['HELM DEFAULT', [early.id]],
        ['Doomed', [late.id]],
      ],
      'the stages as they were at the trigger',
    )
    assert.deepEqual(
      entry!.stages.map((stage) => [stage.status, stage.services[0]!.status]),
      [
        ['DONE', 'DEPLOYED'],
        ['DONE', 'DEPLOYED'],
      ],
    )
    assert.equal((await deployments.helmStatus(late.id, tokens.read.authorization)).state, 'DEPLOYED')
    // And the next deployment is planned with the stages as they are now.
    await deployments.trigger(`/environment/${environment.id}/deploy`, tokens.deploy.authorization)
    const [next] = await deployments.waitUntilIdle(environment.id, tokens.read.authorization)
    assert.deepEqual(
      stageLayout(next!).map(([name, ids]) => [name, [...(ids as string[])].sort()]),
      [['Renamed', [early.id, late.id].sort()]],
    )
  })
})
