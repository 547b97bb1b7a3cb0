import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createTestApp, type TestApp } from './helpers/app.ts'
import { assertError } from './helpers/assertions.ts'
import { factories, uniqueName } from './helpers/factories.ts'

// listDatabaseApplication and removeApplicationFromDatabase: an application uses a database when it
// aliases or overrides one of the database's built-in variables in its own scope (docs/databases.md).

describe('applications using a database', () => {
  let t: TestApp

  before(async () => {
    t = await createTestApp()
  })
  after(() => t.close())

  const inject = (method: 'GET' | 'POST' | 'DELETE', url: string, authorization: string, payload?: object) =>
    t.app.inject({ method, url, headers: { authorization }, ...(payload ? { payload } : {}) })

  async function application(environmentId: string, authorization: string, name: string) {
    const created = await inject('POST', `/environment/${environmentId}/application`, authorization, {
      name,
      git_repository: { url: 'https://github.com/acme/shop', branch: 'main' },
      healthchecks: { readiness_probe: null, liveness_probe: null },
      ports: [],
    })
    assert.equal(created.statusCode, 201, created.body)
    return created.json() as { id: string; name: string }
  }

  const builtIn = (environmentId: string, key: string) =>
    t.db.selectFrom('variables').select('id').where('environmentId', '=', environmentId).where('key', '=', key).executeTakeFirstOrThrow()

  it("lists the applications aliasing or overriding the database's built-ins, and removing one deletes its links", async () => {
    const f = factories(t.db)
    const { environment, tokens } = await f.environmentWithTokens()
    const write = tokens.write.authorization
    const database = await f.database(environment.id)
    const other = await f.database(environment.id, { type: 'MYSQL', version: '8.4' })
    const prefix = `QOVERY_POSTGRESQL_Z${database.id.slice(0, 8).toUpperCase()}_`
    const api = await application(environment.id, write, `b-${uniqueName('api')}`)
    const web = await application(environment.id, write, `a-${uniqueName('web')}`)
    const lonely = await application(environment.id, write, uniqueName('lonely'))
    const uri = await builtIn(environment.id, `${prefix}DATABASE_URI`)
    const host = await builtIn(environment.id, `${prefix}HOST`)
    const otherHost = await builtIn(environment.id, `QOVERY_MYSQL_Z${other.id.slice(0, 8).toUpperCase()}_HOST`)
    const alias = (variableId: string, key: string, parentId: string) =>
      inject('POST', `/variable/${variableId}/alias`, write, { key, alias_scope: 'APPLICATION', alias_parent_id: parentId })
    for (const made of [
      await alias(uri.id, 'DATABASE_URL', api.id),
      await alias(host.id, 'DB_HOST', api.id),
      await alias(host.id, 'PGHOST', web.id),
      await alias(otherHost.id, 'MYSQL_HOST', lonely.id),
    ]) {
      assert.equal(made.statusCode, 201, made.body)
    }

    const listed = await inject('GET', `/database/${database.id}/application`, tokens.read.authorization)
    assert.equal(listed.statusCode, 200, listed.body)
    assert.deepEqual(
      listed.json().results.map((app: { id: string; name: string }) => app.id),
      [web.id, api.id],
    )
    assert.deepEqual(
      (await inject('GET', `/database/${other.id}/application`, tokens.read.authorization)).json().results.map((app: { id: string }) => app.id),
      [lonely.id],
    )

    // DEPLOY may not remove; WRITE may, and the application's aliases of this database go (not the other's).
    assertError(await inject('DELETE', `/database/${database.id}/application/${api.id}`, tokens.deploy.authorization), 403, 'forbidden')
    const removed = await inject('DELETE', `/database/${database.id}/application/${api.id}`, write)
    assert.equal(removed.statusCode, 204, removed.body)
    const left = await inject('GET', `/application/${api.id}/environmentVariable`, tokens.read.authorization)
    const keys = left.json().results.map((variable: { key: string }) => variable.key)
    assert.ok(!keys.includes('DB_HOST'), keys.join(','))
    const secrets = (await inject('GET', `/application/${api.id}/secret`, tokens.read.authorization)).json()
    assert.ok(!secrets.results.some((secret: { key: string }) => secret.key === 'DATABASE_URL'))
    assert.deepEqual(
      (await inject('GET', `/database/${database.id}/application`, tokens.read.authorization)).json().results.map((app: { id: string }) => app.id),
      [web.id],
    )
    // Not linked (any more): nothing to remove, and the other database's link stays.
    assert.equal((await inject('DELETE', `/database/${database.id}/application/${lonely.id}`, write)).statusCode, 204)
    assert.deepEqual(
      (await inject('GET', `/database/${other.id}/application`, tokens.read.authorization)).json().results.map((app: { id: string }) => app.id),
      [lonely.id],
    )
  })

  it("is 404 for another organization's database or application", async () => {
    const f = factories(t.db)
    const mine = await f.environmentWithTokens()
    const theirs = await f.environmentWithTokens()
    const database = await f.database(theirs.environment.id)
    const ownDatabase = await f.database(mine.environment.id)
    assertError(await inject('GET', `/database/${database.id}/application`, mine.tokens.read.authorization), 404, 'not_found')
    const app = await application(theirs.environment.id, theirs.tokens.write.authorization, uniqueName('app'))
    assertError(await inject('DELETE', `/database/${ownDatabase.id}/application/${app.id}`, mine.tokens.write.authorization), 404, 'not_found')
  })
})
