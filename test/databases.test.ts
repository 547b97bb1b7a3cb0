import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { LightMyRequestResponse } from 'fastify'
import { sql } from 'kysely'
import { pino } from 'pino'
import { buildApp } from '#src/app.ts'
import { loadConfig } from '#src/config.ts'
import { openDatabase } from '#src/platform/db/database.ts'
import { createTestApp, type TestApp, testDatabaseUrl, testSecretBox } from './helpers/app.ts'
import { assertError, assertValidationError } from './helpers/assertions.ts'
import { factories } from './helpers/factories.ts'

// Databases (reference "Databases", "Database Main Calls"): create, read, partial edit, delete,
// their master credentials (only getDatabaseMasterCredentials shows the password, to WRITE and
// above; sealed at rest), the environment's built-in variables they make, and the 400s.

// biome-ignore lint/suspicious/noExplicitAny: response bodies are read field by field
type Body = Record<string, any>

const DATABASE_KEYS = [
  'accessibility',
  'annotations_groups',
  'cpu',
  'created_at',
  'disk_encrypted',
  'disk_type',
  'environment',
  'host',
  'icon_uri',
  'id',
  'instance_type',
  'labels_groups',
  'maximum_cpu',
  'maximum_memory',
  'memory',
  'mode',
  'name',
  'port',
  'service_type',
  'storage',
  'type',
  'updated_at',
  'version',
]

const SUFFIXES = ['DATABASE_URI', 'DATABASE_URI_WITHOUT_CREDENTIALS', 'DEFAULT_DATABASE_NAME', 'HOST', 'HOST_INTERNAL', 'LOGIN', 'PASSWORD', 'PORT']

const prefixOf = (database: { id: string; type: string }) => `QOVERY_${database.type}_Z${database.id.slice(0, 8).toUpperCase()}_`

describe('databases', () => {
  let t: TestApp
  let f: ReturnType<typeof factories>

  before(async () => {
    t = await createTestApp()
    f = factories(t.db)
  })
  after(() => t.close())

  const send = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, authorization: string, payload?: object, headers = {}) =>
    t.app.inject({ method, url, headers: { authorization, ...headers }, ...(payload === undefined ? {} : { payload }) })
  const ok = (res: LightMyRequestResponse, status = 200): Body => {
    assert.equal(res.statusCode, status, res.body)
    return res.json()
  }

  it('creates a database with the reference defaults, shows host and port but never a credential, and reads it back', async () => {
    const { environment, tokens } = await f.environmentWithTokens()
    const res = await send('POST', `/environment/${environment.id}/database`, tokens.write.authorization, {
      name: '  orders  ',
      type: 'POSTGRESQL',
      version: '16',
      mode: 'CONTAINER',
    })
    const created = ok(res, 201)
    assert.deepEqual(Object.keys(created).sort(), DATABASE_KEYS)
    assert.equal(created.name, 'orders')
    assert.equal(created.accessibility, 'PRIVATE')
    assert.deepEqual([created.cpu, created.memory, created.storage], [250, 100, 10])
    assert.equal(created.service_type, 'DATABASE')
    assert.equal(created.host, `z${created.id.slice(0, 8)}-postgresql`)
    assert.equal(created.port, 5432)
    assert.equal(created.instance_type, null)
    assert.ok(res.headers.etag)

    const { password } = ok(await send('GET', `/database/${created.id}/masterCredentials`, tokens.write.authorization))
    const reads = [
      res,
      await send('GET', `/database/${created.id}`, tokens.read.authorization),
      await send('GET', `/environment/${environment.id}/database`, tokens.read.authorization),
      await send('GET', `/environment/${environment.id}/services`, tokens.read.authorization),
      await send('PUT', `/database/${created.id}`, tokens.write.authorization, { cpu: 500 }),
      await send('GET', `/environment/${environment.id}/environmentVariable`, tokens.read.authorization),
      await send('GET', `/environment/${environment.id}/secret`, tokens.read.authorization),
      await send('GET', `/variable?parent_id=${environment.id}&scope=ENVIRONMENT`, tokens.read.authorization),
    ]
    for (const read of reads) {
      assert.ok(read.statusCode < 300, read.body)
      assert.ok(!read.body.includes(password), 'a response shows the password')
    }
    const listed = ok(reads[2]!)
    assert.deepEqual(
      listed.results.map((database: Body) => database.id),
      [created.id],
    )
  })

  it('answers the master credentials to WRITE and ADMIN only, 404 to another organization', async () => {
    const { environment, tokens } = await f.environmentWithTokens()
    const database = await f.database(environment.id, { type: 'MYSQL', version: '8.0' })
    for (const token of [tokens.write, tokens.admin]) {
      const res = await send('GET', `/database/${database.id}/masterCredentials`, token.authorization)
      const credentials = ok(res)
      assert.deepEqual(Object.keys(credentials).sort(), ['host', 'login', 'password', 'port'])
      assert.deepEqual([credentials.host, credentials.port, credentials.login], [database.credentials.host, 3306, 'superuser'])
      assert.match(credentials.password, /^[A-Za-z0-9]{32}$/)
      assert.equal(res.headers['cache-control'], 'no-store')
    }
    for (const token of [tokens.read, tokens.deploy])
      assertError(await send('GET', `/database/${database.id}/masterCredentials`, token.authorization), 403, 'forbidden')
    const stranger = await f.environmentWithTokens()
    assertError(await send('GET', `/database/${database.id}/masterCredentials`, stranger.tokens.admin.authorization), 404, 'not_found')
  })

  it('keeps the password sealed at rest: neither the service row nor the variables hold it in the clear', async () => {
    const { environment, tokens } = await f.environmentWithTokens()
    const database = await f.database(environment.id)
    const { password } = ok(await send('GET', `/database/${database.id}/masterCredentials`, tokens.admin.authorization))
    const { rows } = await sql<{ row: string }>`select s::text as row from services s where s.id = ${database.id}`.execute(t.db)
    assert.ok(!rows[0]!.row.includes(password))
    const variables = await t.db
      .selectFrom('variables')
      .select(['key', 'value', 'valueSealed', 'isSecret'])
      .where('environmentId', '=', environment.id)
      .where('key', 'like', `${prefixOf(database)}%`)
      .execute()
    assert.ok(variables.length > 0)
    for (const variable of variables) assert.ok(!(variable.value ?? '').includes(password), variable.key)
    const sealed = variables.find((variable) => variable.key === `${prefixOf(database)}PASSWORD`)!
    assert.equal(sealed.isSecret, true)
    assert.equal(sealed.value, null)
    assert.equal(testSecretBox().open(sealed.valueSealed!), password)
  })

  it("gives the environment's other services the database's built-in variables, secrets without their value, and takes them away with it", async () => {
    const { environment, tokens } = await f.environmentWithTokens()
    const database = await f.database(environment.id, { type: 'REDIS', version: '7.2' })
    const helm = await f.helmService(environment.id)
    const prefix = prefixOf(database)
    const seen = ok(await send('GET', `/variable?parent_id=${helm.id}&scope=HELM`, tokens.read.authorization))
    const mine = new Map<string, Body>(seen.results.filter((v: Body) => v.key.startsWith(prefix)).map((v: Body) => [v.key.slice(prefix.length), v]))
    assert.deepEqual([...mine.keys()].sort(), SUFFIXES)
    const host = `z${database.id.slice(0, 8)}-redis`
    const value = (suffix: string) => mine.get(suffix)!.value
    assert.deepEqual(['HOST', 'HOST_INTERNAL', 'PORT', 'LOGIN', 'DEFAULT_DATABASE_NAME', 'DATABASE_URI_WITHOUT_CREDENTIALS'].map(value), [
      host,
      host,
      '6379',
      'default',
      '0',
      `redis://${host}:6379/0`,
    ])
    for (const suffix of SUFFIXES) {
      const variable = mine.get(suffix)!
      assert.equal(variable.scope, 'BUILT_IN')
      assert.equal(variable.variable_type, 'BUILT_IN')
      assert.equal(variable.is_secret, suffix === 'PASSWORD' || suffix === 'DATABASE_URI', suffix)
      if (variable.is_secret) assert.equal(variable.value, null)
    }
    // As the Terraform provider finds the host: among the environment's built-in variables.
    const environmentVariables = ok(await send('GET', `/environment/${environment.id}/environmentVariable`, tokens.read.authorization))
    assert.equal(environmentVariables.results.find((v: Body) => v.key === `${prefix}HOST_INTERNAL`)?.value, host)

    // A rename keeps them (they name the database by its id); a delete takes them away.
    ok(await send('PUT', `/database/${database.id}`, tokens.write.authorization, { name: 'cache' }))
    const count = async () =>
      Number(
        (
          await t.db
            .selectFrom('variables')
            .select((eb) => eb.fn.countAll<string>().as('n'))
            .where('environmentId', '=', environment.id)
            .where('key', 'like', `${prefix}%`)
            .executeTakeFirstOrThrow()
        ).n,
      )
    assert.equal(await count(), SUFFIXES.length)
    assert.equal((await send('DELETE', `/database/${database.id}`, tokens.write.authorization)).statusCode, 204)
    assert.equal(await count(), 0)
    assertError(await send('GET', `/database/${database.id}`, tokens.read.authorization), 404, 'not_found')
  })

  it('edits only the fields a request gives, honours If-Match, and refuses a name taken in the environment', async () => {
    const { environment, tokens } = await f.environmentWithTokens()
    const database = await f.database(environment.id, { type: 'MONGODB', version: '6.0', accessibility: 'PUBLIC', description: 'events' })
    await f.database(environment.id, { name: 'taken', type: 'MONGODB', version: '6.0' })
    const before = await send('GET', `/database/${database.id}`, tokens.read.authorization)
    const edited = ok(await send('PUT', `/database/${database.id}`, tokens.write.authorization, { cpu: 1000, version: '7.0' }))
    const was = before.json()
    assert.deepEqual([edited.cpu, edited.version], [1000, '7.0'])
    assert.deepEqual(
      [edited.name, edited.accessibility, edited.memory, edited.storage, edited.description, edited.type, edited.mode],
      [was.name, 'PUBLIC', 256, 10, 'events', 'MONGODB', 'CONTAINER'],
    )
    assertError(
      await send('PUT', `/database/${database.id}`, tokens.write.authorization, { cpu: 500 }, { 'if-match': before.headers.etag }),
      412,
      'precondition_failed',
    )
    assertError(await send('PUT', `/database/${database.id}`, tokens.write.authorization, { name: 'TAKEN' }), 409, 'conflict')
    assertError(await send('PUT', `/database/${database.id}`, tokens.deploy.authorization, { cpu: 500 }), 403, 'forbidden')
    // The credentials stay those made at creation.
    const credentials = ok(await send('GET', `/database/${database.id}/masterCredentials`, tokens.write.authorization))
    assert.equal(testSecretBox().open(Buffer.from(database.credentials.passwordSealed, 'base64')), credentials.password)
  })

  it('reports every broken rule of a create or an edit in one 400 with JSON pointers', async () => {
    const { environment, tokens } = await f.environmentWithTokens()
    const url = `/environment/${environment.id}/database`
    const pathsOf = (res: LightMyRequestResponse) =>
      assertValidationError(res)
        .map((error) => error.path)
        .sort()

    assert.deepEqual(pathsOf(await send('POST', url, tokens.write.authorization, { name: 'a', type: 'ORACLE', version: '16', mode: 'CONTAINER' })), [
      '/type',
    ])
    assert.deepEqual(
      pathsOf(
        await send('POST', url, tokens.write.authorization, {
          name: 'a',
          type: 'POSTGRESQL',
          version: '9.6',
          mode: 'MANAGED',
          disk_type: 'gp3',
          annotations_groups: [{ id: environment.id }],
        }),
      ),
      ['/annotations_groups/0/id', '/instance_type', '/version'],
    )
    assert.deepEqual(
      pathsOf(
        await send('POST', url, tokens.write.authorization, {
          name: 'a',
          type: 'REDIS',
          version: '7.0',
          mode: 'CONTAINER',
          instance_type: 'db.t3.micro',
          disk_type: 'gp2',
        }),
      ),
      ['/disk_type', '/instance_type'],
    )
    assert.deepEqual(
      pathsOf(await send('POST', url, tokens.write.authorization, { name: 'a', type: 'MYSQL', version: '8.0', mode: 'CONTAINER', cpu: 1 })),
      ['/cpu'],
    )

    const database = await f.database(environment.id, { version: '16', storage: 20 })
    assert.deepEqual(pathsOf(await send('PUT', `/database/${database.id}`, tokens.write.authorization, { version: '15', storage: 10 })), [
      '/storage',
      '/version',
    ])
    assert.deepEqual(pathsOf(await send('PUT', `/database/${database.id}`, tokens.write.authorization, { version: '99' })), ['/version'])
    // A MANAGED database is recorded, with its instance type.
    const managed = ok(
      await send('POST', url, tokens.write.authorization, {
        name: 'rds',
        type: 'POSTGRESQL',
        version: '17',
        mode: 'MANAGED',
        instance_type: 'db.t3.micro',
        disk_type: 'gp3',
      }),
      201,
    )
    assert.deepEqual([managed.mode, managed.instance_type, managed.disk_type], ['MANAGED', 'db.t3.micro', 'gp3'])
  })

  it('lists the versions Berth runs: per type and mode for an environment, from its own up for a database', async () => {
    const { environment, tokens } = await f.environmentWithTokens()
    const configurations = ok(await send('GET', `/environment/${environment.id}/databaseConfiguration`, tokens.read.authorization)).results
    assert.deepEqual(
      configurations.map((c: Body) => c.database_type),
      ['POSTGRESQL', 'MYSQL', 'MONGODB', 'REDIS'],
    )
    const postgres = configurations[0].version.filter((v: Body) => v.supported_mode === 'CONTAINER').map((v: Body) => v.name)
    assert.deepEqual(postgres, ['12', '13', '14', '15', '16', '17'])
    const database = await f.database(environment.id, { version: '15' })
    const versions = ok(await send('GET', `/database/${database.id}/version`, tokens.read.authorization)).results
    assert.deepEqual(
      versions.map((v: Body) => v.name),
      ['15', '16', '17'],
    )
  })

  it('never logs the password, even at trace, through create, reads, edits and the credentials call', async () => {
    const lines: string[] = []
    const config = loadConfig({ DATABASE_URL: testDatabaseUrl(), BERTH_LOG_LEVEL: 'trace' })
    const db = openDatabase(config.database.url!, 2)
    const logger = pino({ level: 'trace' }, { write: (line: string) => lines.push(line) })
    const app = await buildApp({ config, db, secrets: testSecretBox(), logger })
    try {
      const { environment, tokens } = await f.environmentWithTokens()
      const headers = { authorization: tokens.admin.authorization }
      const created = await app.inject({
        method: 'POST',
        url: `/environment/${environment.id}/database`,
        headers,
        payload: { name: 'logged', type: 'POSTGRESQL', version: '16', mode: 'CONTAINER' },
      })
      const { id } = created.json()
      const { password } = (await app.inject({ method: 'GET', url: `/database/${id}/masterCredentials`, headers })).json()
      await app.inject({ method: 'PUT', url: `/database/${id}`, headers, payload: { cpu: 300 } })
      await app.inject({ method: 'GET', url: `/environment/${environment.id}/secret`, headers })
      await app.inject({ method: 'POST', url: `/database/${id}/deploy`, headers })
      assert.match(password, /^[A-Za-z0-9]{32}$/)
      assert.ok(lines.length > 0)
      assert.ok(!lines.join('').includes(password))
    } finally {
      await app.close()
      await db.destroy()
    }
  })
})
