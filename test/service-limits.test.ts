/**
 * Issue 23: what one service and one environment may hold. A service's configuration is at most
 * BERTH_SERVICE_CONFIG_MAX_BYTES of compact JSON, on create and on edit (400, naming the limit,
 * nothing changed); an environment holds at most BERTH_SERVICES_PER_ENVIRONMENT services (409
 * past it, also when creates race), and as many deployment stages. Over real HTTP, on loopback.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createTestApp, type TestApp } from './helpers/app.ts'
import { assertErrorAnswer } from './helpers/assertions.ts'
import { type Body, call } from './helpers/berth-processes.ts'
import { factories, uniqueName } from './helpers/factories.ts'

const CONFIG_MAX_BYTES = 8 * 1024
const PER_ENVIRONMENT = 3

/** A helm request whose one raw values file holds `content`. */
const helmRequest = (content: string, name = uniqueName('chart')): Body => ({
  name,
  auto_deploy: false,
  source: { git_repository: { url: 'https://github.com/acme/charts.git', branch: 'main', root_path: '/charts/api' } },
  arguments: [],
  values_override: { file: { raw: { values: [{ name: 'values.yaml', content }] } } },
})

describe('service limits', () => {
  let t: TestApp
  let baseUrl: string
  let f: ReturnType<typeof factories>
  before(async () => {
    t = await createTestApp({ BERTH_SERVICE_CONFIG_MAX_BYTES: String(CONFIG_MAX_BYTES), BERTH_SERVICES_PER_ENVIRONMENT: String(PER_ENVIRONMENT) })
    baseUrl = await t.listen()
    f = factories(t.db)
  })
  after(async () => t?.close())

  const count = async (environmentId: string) =>
    Number(
      (
        await t.db
          .selectFrom('services')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('environmentId', '=', environmentId)
          .executeTakeFirstOrThrow()
      ).n,
    )

  /** The service's configuration as the core stores it: compact JSON, in UTF-8 bytes. */
  async function storedBytes(serviceId: string): Promise<number> {
    const row = await t.db.selectFrom('services').select('configuration').where('id', '=', serviceId).executeTakeFirstOrThrow()
    return Buffer.byteLength(JSON.stringify(row.configuration))
  }

  describe('BERTH_SERVICE_CONFIG_MAX_BYTES', () => {
    it('takes a configuration of exactly the limit and refuses one byte more with 400 naming the limit, on create and on edit', async () => {
      const { environment, tokens } = await f.environmentWithTokens()
      const write = tokens.write.authorization
      const created = await call(baseUrl, 'POST', `/environment/${environment.id}/helm`, write, { body: helmRequest('') })
      assert.equal(created.status, 201, created.text)
      // Each ASCII character of the values file is one byte of the configuration.
      const room = CONFIG_MAX_BYTES - (await storedBytes(created.body.id))
      assert.ok(room > 1000, `the empty service leaves ${room} bytes`)

      const atLimit = await call(baseUrl, 'POST', `/environment/${environment.id}/helm`, write, { body: helmRequest('x'.repeat(room)) })
      assert.equal(atLimit.status, 201, atLimit.text)
      assert.equal(await storedBytes(atLimit.body.id), CONFIG_MAX_BYTES)

      const over = await call(baseUrl, 'POST', `/environment/${environment.id}/helm`, write, { body: helmRequest('x'.repeat(room + 1)) })
      const body = assertErrorAnswer(over, 400, 'validation_failed')
      const message = `the service's configuration would be ${CONFIG_MAX_BYTES + 1} bytes of JSON, over the limit of ${CONFIG_MAX_BYTES} bytes (BERTH_SERVICE_CONFIG_MAX_BYTES)`
      assert.equal(body.message, message)
      assert.deepEqual(body.errors, [{ path: '', message, location: 'body' }])
      assert.equal(await count(environment.id), 2, 'nothing was created')

      // Bytes, not characters: a two-byte character counts twice.
      const wide = await call(baseUrl, 'POST', `/environment/${environment.id}/helm`, write, {
        body: helmRequest('é'.repeat(Math.floor(room / 2) + 1)),
      })
      assert.match(assertErrorAnswer(wide, 400, 'validation_failed').message, /over the limit of 8192 bytes/)

      // An edit over the limit changes nothing; one at the limit goes through.
      const before = await call(baseUrl, 'GET', `/helm/${created.body.id}`, write)
      const edit = await call(baseUrl, 'PUT', `/helm/${created.body.id}`, write, { body: helmRequest('x'.repeat(room + 1), created.body.name) })
      assert.equal(assertErrorAnswer(edit, 400, 'validation_failed').message, message)
      const after = await call(baseUrl, 'GET', `/helm/${created.body.id}`, write)
      assert.deepEqual(after.body, before.body)
      assert.equal(after.headers.get('etag'), before.headers.get('etag'))
      const edited = await call(baseUrl, 'PUT', `/helm/${created.body.id}`, write, { body: helmRequest('x'.repeat(room), created.body.name) })
      assert.equal(edited.status, 200, edited.text)
      assert.equal(await storedBytes(created.body.id), CONFIG_MAX_BYTES)
    })
  })
  describe('BERTH_SERVICES_PER_ENVIRONMENT', () => {
    const FULL = `the environment already holds ${PER_ENVIRONMENT} services, the most an environment may (BERTH_SERVICES_PER_ENVIRONMENT)`
    const create = (environmentId: string, authorization: string) =>
      call(baseUrl, 'POST', `/environment/${environmentId}/helm`, authorization, { body: helmRequest('replicas: 1') })

    it('answers 409 naming the limit once the environment is full, and takes a service again after a delete', async () => {
      const { environment, project, tokens } = await f.environmentWithTokens()
      const write = tokens.write.authorization
      const made: string[] = []
      for (let i = 0; i < PER_ENVIRONMENT; i++) {
        const created = await create(environment.id, write)
        assert.equal(created.status, 201, created.text)
        made.push(created.body.id)
      }
      assert.equal(assertErrorAnswer(await create(environment.id, write), 409, 'conflict').message, FULL)
      assert.equal(await count(environment.id), PER_ENVIRONMENT)
      // Per environment: another one of the same project is not full.
      const other = await f.environment(project.id)
      assert.equal((await create(other.id, write)).status, 201)

      assert.equal((await call(baseUrl, 'DELETE', `/helm/${made[0]}`, write)).status, 204)
      assert.equal((await create(environment.id, write)).status, 201, 'a delete makes room')
      assertErrorAnswer(await create(environment.id, write), 409, 'conflict')
    })

    it('lets exactly one of concurrent creates through when one place is left', async () => {
      const environments = await Promise.all([1, 2, 3, 4].map(() => f.environmentWithTokens()))
      for (const { environment } of environments) {
        for (let i = 0; i < PER_ENVIRONMENT - 1; i++) await f.helmService(environment.id)
      }
      // Four environments with one place left each, four creates racing for each place.
      const answers = await Promise.all(
        environments.flatMap(({ environment, tokens }) =>
          [1, 2, 3, 4].map(async () => ({ environment, answer: await create(environment.id, tokens.write.authorization) })),
        ),
      )
      for (const { environment } of environments) {
        const mine = answers.filter((a) => a.environment.id === environment.id).map((a) => a.answer)
        assert.deepEqual(mine.map((answer) => answer.status).sort(), [201, 409, 409, 409], mine.map((answer) => answer.text).join('\n'))
        for (const answer of mine.filter((a) => a.status === 409)) assert.equal(assertErrorAnswer(answer, 409, 'conflict').message, FULL)
        assert.equal(await count(environment.id), PER_ENVIRONMENT)
      }
    })

    it("bounds the deployment stages people create the same way; a kind's default stage is made with its first service whatever their number", async () => {
      const { environment, tokens } = await f.environmentWithTokens()
      const write = tokens.write.authorization
      const stage = (name: string) => call(baseUrl, 'POST', `/environment/${environment.id}/deploymentStage`, write, { body: { name } })
      for (let i = 0; i < PER_ENVIRONMENT; i++) assert.equal((await stage(`stage ${i}`)).status, 200)
      const full = assertErrorAnswer(await stage('one too many'), 409, 'conflict')
      assert.equal(
        full.message,
        `the environment already holds ${PER_ENVIRONMENT} deployment stages, the most an environment may (BERTH_SERVICES_PER_ENVIRONMENT)`,
      )
      assert.equal((await create(environment.id, write)).status, 201)
      const stages = await call(baseUrl, 'GET', `/environment/${environment.id}/deploymentStage`, write)
      assert.deepEqual(
        stages.body.results.map((s: { name: string }) => s.name),
        ['stage 0', 'stage 1', 'stage 2', 'HELM DEFAULT'],
      )
    })
  })
})
