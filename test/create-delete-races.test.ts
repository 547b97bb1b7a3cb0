/**
 * Issue 23: a create racing the delete of its parent answers 404 (the parent is gone), never a
 * 500 from a foreign key; deletes of an organization, a project and an environment racing each
 * other all finish, in one lock order, without a deadlock. Real concurrent requests on real
 * PostgreSQL, repeated a bounded number of times.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { LightMyRequestResponse } from 'fastify'
import { sql } from 'kysely'
import { createDeploymentRunsRepository } from '#src/modules/deployments/runner/deployment-runs.repository.ts'
import { KINDS } from '#src/modules/services/kinds/registry.ts'
import { openDatabase } from '#src/platform/db/database.ts'
import { createTestApp, type TestApp } from './helpers/app.ts'
import { factories, uniqueName } from './helpers/factories.ts'
import { whileHeld } from './helpers/held-locks.ts'
import { createIsolatedDatabase, type IsolatedDatabase } from './helpers/isolated-database.ts'

const ROUNDS = 10

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE'

describe('creates and deletes racing each other', () => {
  let t: TestApp
  before(async () => {
    // The pool must hold every request of a round at once, or they would queue instead of race.
    t = await createTestApp({ BERTH_RATE_LIMIT_PER_CREDENTIAL: '0', BERTH_TOKEN_MINTS_PER_MINUTE: '0', BERTH_DB_POOL_SIZE: '20' })
  })
  after(async () => t?.close())

  const send = (authorization: string, method: Method, url: string, payload?: object) =>
    t.app.inject({ method, url, headers: { authorization }, ...(payload ? { payload } : {}) })

  function expectStatuses(what: string, res: LightMyRequestResponse, allowed: number[]): void {
    assert.ok(allowed.includes(res.statusCode), `${what}: ${res.statusCode} ${res.body}`)
    if (res.statusCode >= 400) assert.equal(res.json().status, res.statusCode, res.body)
  }

  async function remaining(table: 'projects' | 'environments' | 'gitTokens' | 'helmRepositories' | 'apiTokens' | 'clusters', organizationId: string) {
    return (await t.db.selectFrom(table).select('id').where('organizationId', '=', organizationId).execute()).length
  }

  it('answers creates in an organization being deleted with 201/200 or 404, and leaves nothing of it', async () => {
    const f = factories(t.db)
    for (let round = 0; round < ROUNDS; round++) {
      const { organization, tokens } = await f.organizationWithTokens()
      const project = await f.project(organization.id)
      const admin = tokens.admin.authorization
      const org = `/organization/${organization.id}`
      const [deleted, ...creates] = await Promise.all([
        send(admin, 'DELETE', org),
        send(admin, 'POST', `${org}/project`, { name: uniqueName('p') }),
        send(admin, 'POST', `/project/${project.id}/environment`, { name: uniqueName('e') }),
        send(admin, 'POST', `${org}/gitToken`, { name: uniqueName('g'), type: 'GITHUB', token: 'ghp_x' }),
        send(admin, 'POST', `${org}/helmRepository`, {
          name: uniqueName('h'),
          kind: 'HTTPS',
          url: 'https://charts.example.com',
          skip_tls_verification: false,
          config: {},
        }),
        send(admin, 'POST', `${org}/apiToken`, { name: uniqueName('t'), role: 'READ' }),
      ])
      expectStatuses('the delete', deleted!, [204])
      // A create answered before the delete (or a token that was deleted first: 401) or after it (404).
      for (const res of creates) expectStatuses(`a create (${res.raw.req.method} ${res.raw.req.url})`, res, [200, 201, 401, 404])
      for (const table of ['projects', 'environments', 'gitTokens', 'helmRepositories', 'apiTokens', 'clusters'] as const) {
        assert.equal(await remaining(table, organization.id), 0, `${table} left behind`)
      }
    }
  })

  it('answers an environment created in a project being deleted with 201 or 404', async () => {
    const f = factories(t.db)
    for (let round = 0; round < ROUNDS; round++) {
      const { organization, tokens } = await f.organizationWithTokens()
      const project = await f.project(organization.id)
      const write = tokens.write.authorization
      const [deleted, ...creates] = await Promise.all([
        send(write, 'DELETE', `/project/${project.id}`),
        ...Array.from({ length: 4 }, () => send(write, 'POST', `/project/${project.id}/environment`, { name: uniqueName('e') })),
      ])
      expectStatuses('the delete', deleted!, [204])
      for (const res of creates) expectStatuses('a create', res, [201, 404])
      const left = await t.db.selectFrom('environments').select('id').where('projectId', '=', project.id).execute()
      assert.deepEqual(left, [])
    }
  })

  it("makes one default cluster when an organization's first environments are created at once", async () => {
    const f = factories(t.db)
    for (let round = 0; round < ROUNDS; round++) {
      const { organization, tokens } = await f.organizationWithTokens()
      const project = await f.project(organization.id)
      const creates = await Promise.all(
        Array.from({ length: 6 }, () => send(tokens.write.authorization, 'POST', `/project/${project.id}/environment`, { name: uniqueName('e') })),
      )
      for (const res of creates) expectStatuses('a create', res, [201])
      assert.equal(await remaining('clusters', organization.id), 1)
      assert.equal(new Set(creates.map((res) => res.json().cluster_id)).size, 1)
    }
  })

  it('finishes deletes of an organization, its projects and environments racing each other, without a deadlock', async () => {
    const f = factories(t.db)
    for (let round = 0; round < ROUNDS; round++) {
      const { organization, tokens } = await f.organizationWithTokens()
      const projects = await Promise.all([f.project(organization.id), f.project(organization.id)])
      const environments = (
        await Promise.all(projects.flatMap((project) => [f.environment(project.id), f.environment(project.id), f.environment(project.id)]))
      ).map((environment) => environment.id)
      const helms = await Promise.all(environments.map((id) => f.helmService(id)))
      const admin = tokens.admin.authorization
      const answers = await Promise.all([
        send(admin, 'DELETE', `/organization/${organization.id}`),
        ...environments.map((id) => send(admin, 'DELETE', `/environment/${id}`)),
        ...projects.map((project) => send(admin, 'DELETE', `/project/${project.id}`)),
        ...environments.map((id) => send(admin, 'POST', `/environment/${id}/deploy`)),
        ...helms.map((helm) => send(admin, 'POST', `/helm/${helm.id}/deploy`, {})),
        ...environments.map((id) => send(admin, 'PUT', `/environment/${id}`, { name: uniqueName('renamed') })),
      ])
      expectStatuses('the organization delete', answers[0]!, [204])
      for (const res of answers) expectStatuses('a delete, a trigger or an edit', res, [200, 202, 204, 401, 404])
      const { rows } = await sql<{ n: number }>`select count(*)::int as n from organizations where id = ${organization.id}`.execute(t.db)
      assert.equal(rows[0]!.n, 0)
    }
  })
})

describe('an organization delete that PostgreSQL aborts as a deadlock victim', () => {
  let database: IsolatedDatabase
  let t: TestApp
  before(async () => {
    database = await createIsolatedDatabase()
    // PostgreSQL aborts the transaction that finds a deadlock: the first to have waited
    // deadlock_timeout. The app's connections (new ones pick this up) look after 5 s, the test's
    // own transaction after a minute, so that the delete is the one aborted, however loaded the
    // machine. (Setting deadlock_timeout takes a superuser, as the test server's user is.)
    const admin = openDatabase(database.url, 1)
    await sql`alter database ${sql.id(database.name)} set deadlock_timeout = '5s'`.execute(admin)
    await admin.destroy()
    t = await createTestApp({ DATABASE_URL: database.url })
  })
  after(async () => {
    await t?.close()
    await database?.drop()
  })

  it('runs it again, and finishes it', async () => {
    const { organization, tokens } = await factories(t.db).organizationWithTokens()
    const res = await whileHeld(t.db, {
      // Another writer holds a row the delete's cascade must delete...
      hold: (trx) => trx.selectFrom('apiTokens').select('id').where('id', '=', tokens.read.id).forUpdate().execute(),
      request: () =>
        t.app.inject({ method: 'DELETE', url: `/organization/${organization.id}`, headers: { authorization: tokens.admin.authorization } }),
      // ...and then wants the organization the delete holds: the delete finds the deadlock and is
      // aborted; this writer gets its lock and commits.
      next: (trx) => trx.selectFrom('organizations').select('id').where('id', '=', organization.id).forKeyShare().execute(),
    })
    assert.equal(res.statusCode, 204, res.body)
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from organizations where id = ${organization.id}`.execute(t.db)
    assert.equal(rows[0]!.n, 0)
  })
})

describe('a deployment trigger racing the delete of its organization', () => {
  let t: TestApp
  before(async () => {
    t = await createTestApp()
  })
  after(async () => t?.close())

  it('waits for the delete, taking the organization before the environment as deletes do, and answers 404 instead of deadlocking', async () => {
    const f = factories(t.db)
    const { organization, environment, tokens } = await f.environmentWithTokens()
    await f.helmService(environment.id)
    const res = await whileHeld(t.db, {
      // An organization delete's first lock (organization, then projects, then environments)...
      hold: (trx) => trx.selectFrom('organizations').select('id').where('id', '=', organization.id).forUpdate().execute(),
      request: () =>
        t.app.inject({ method: 'POST', url: `/environment/${environment.id}/deploy`, headers: { authorization: tokens.deploy.authorization } }),
      // ...and its next ones, then the delete: the waiting trigger holds none of them.
      next: async (trx) => {
        await trx.selectFrom('projects').select('id').where('organizationId', '=', organization.id).forUpdate().execute()
        await trx.selectFrom('environments').select('id').where('organizationId', '=', organization.id).forUpdate().execute()
        await trx.deleteFrom('organizations').where('id', '=', organization.id).execute()
      },
    })
    assert.equal(res.statusCode, 404, res.body)
    assert.equal(res.json().code, 'not_found')
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from deployment_requests where environment_id = ${environment.id}`.execute(
      t.db,
    )
    assert.equal(rows[0]!.n, 0, 'nothing queued')
  })
})

describe('a cron tick racing the delete of its organization', () => {
  let database: IsolatedDatabase
  let t: TestApp
  before(async () => {
    // A database of its own: the tick fires every due schedule of its database, other files' too.
    database = await createIsolatedDatabase()
    t = await createTestApp({ DATABASE_URL: database.url })
  })
  after(async () => {
    await t?.close()
    await database?.drop()
  })

  it('waits for the delete under the environment lock order instead of holding the schedule the delete cascades to', async () => {
    const f = factories(t.db)
    const { organization, environment } = await f.environmentWithTokens()
    const job = await f.job(environment.id, { schedule: { cronjob: { scheduled_at: '* * * * *', arguments: ['tick'] } } })
    await t.db
      .insertInto('cronJobSchedules')
      .values({
        serviceId: job.id,
        environmentId: environment.id,
        scheduledAt: '* * * * *',
        timezone: 'Etc/UTC',
        nextFireAt: new Date(Date.now() - 1_000),
      })
      .execute()
    const runs = createDeploymentRunsRepository(t.db)
    const fired = await whileHeld(t.db, {
      // An organization delete's locks, in their order...
      hold: async (trx) => {
        await trx.selectFrom('organizations').select('id').where('id', '=', organization.id).forUpdate().execute()
        await trx.selectFrom('projects').select('id').where('organizationId', '=', organization.id).forUpdate().execute()
        await trx.selectFrom('environments').select('id').where('organizationId', '=', organization.id).forUpdate().execute()
      },
      request: () => runs.fireDueSchedules(10, KINDS),
      // ...then the delete, whose cascade reaches the job's schedule: had the tick claimed it before
      // waiting for the organization, one of the two would be aborted as a deadlock.
      next: (trx) => trx.deleteFrom('organizations').where('id', '=', organization.id).execute(),
    })
    assert.equal(fired, 0)
    assert.equal((await t.db.selectFrom('cronJobSchedules').select('serviceId').execute()).length, 0)
  })
})
