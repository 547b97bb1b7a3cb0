/**
 * Issue 31's leftover: a deployment trigger takes its locks in the order deletes take them
 * (organization, project, environment, then the environment's rows), so that triggers and deletes
 * of one environment, service or project racing each other wait for each other instead of
 * deadlocking (PostgreSQL 40P01, a 500). Real concurrent requests on real PostgreSQL, repeated.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { LightMyRequestResponse } from 'fastify'
import { createTestApp, type TestApp } from './helpers/app.ts'
import { factories } from './helpers/factories.ts'
import { whileHeld } from './helpers/held-locks.ts'

const ROUNDS = 30

type Method = 'POST' | 'DELETE'

describe('deployment triggers racing deletes of their environment, service or project', () => {
  let t: TestApp
  before(async () => {
    // The pool must hold every request of a round at once, or they would queue instead of race.
    t = await createTestApp({ BERTH_RATE_LIMIT_PER_CREDENTIAL: '0', BERTH_DB_POOL_SIZE: '20' })
  })
  after(async () => t?.close())

  const send = (authorization: string, method: Method, url: string, payload?: object) =>
    t.app.inject({ method, url, headers: { authorization }, ...(payload ? { payload } : {}) })

  function expectStatuses(what: string, res: LightMyRequestResponse, allowed: number[]): void {
    assert.ok(allowed.includes(res.statusCode), `${what}: ${res.statusCode} ${res.body}`)
  }

  it('answers a deploy and a delete of one environment, sent together, without a deadlock', async () => {
    const f = factories(t.db)
    for (let round = 0; round < ROUNDS; round++) {
      const { environment, tokens } = await f.environmentWithTokens()
      // Every other round the environment has a service: its delete is then a DELETE run queued.
      if (round % 2 === 0) await f.helmService(environment.id)
      const admin = tokens.admin.authorization
      const [deployed, deleted, again] = await Promise.all([
        send(admin, 'POST', `/environment/${environment.id}/deploy`),
        send(admin, 'DELETE', `/environment/${environment.id}`),
        send(admin, 'POST', `/environment/${environment.id}/restart`),
      ])
      // A trigger before the delete (202), after an empty environment went (404), or behind its DELETE run (409).
      expectStatuses(`round ${round}: the deploy`, deployed!, [202, 404, 409])
      expectStatuses(`round ${round}: the restart`, again!, [202, 404, 409])
      expectStatuses(`round ${round}: the delete`, deleted!, [202, 204])
    }
  })

  it('answers a deploy and a delete of one service, sent together, without a deadlock', async () => {
    const f = factories(t.db)
    for (let round = 0; round < ROUNDS; round++) {
      const { environment, tokens } = await f.environmentWithTokens()
      const helm = await f.helmService(environment.id)
      const admin = tokens.admin.authorization
      const [deployed, deleted, environmentDeployed] = await Promise.all([
        send(admin, 'POST', `/helm/${helm.id}/deploy`, {}),
        send(admin, 'DELETE', `/helm/${helm.id}`),
        send(admin, 'POST', `/environment/${environment.id}/deploy`),
      ])
      expectStatuses(`round ${round}: the deploy`, deployed!, [202, 404])
      expectStatuses(`round ${round}: the environment deploy`, environmentDeployed!, [202])
      expectStatuses(`round ${round}: the delete`, deleted!, [202, 204])
    }
  })

  it('answers deploys of its environments and a delete of a project, sent together, without a deadlock', async () => {
    const f = factories(t.db)
    for (let round = 0; round < ROUNDS; round++) {
      const { organization, tokens } = await f.organizationWithTokens()
      const project = await f.project(organization.id)
      // One after the other: an organization's first environments, made at once, race for its default cluster.
      const environments = [await f.environment(project.id), await f.environment(project.id)]
      for (const environment of environments) await f.helmService(environment.id)
      const admin = tokens.admin.authorization
      const [deleted, ...answers] = await Promise.all([
        send(admin, 'DELETE', `/project/${project.id}`),
        ...environments.flatMap((environment) => [
          send(admin, 'POST', `/environment/${environment.id}/deploy`),
          send(admin, 'DELETE', `/environment/${environment.id}`),
        ]),
      ])
      expectStatuses(`round ${round}: the project delete`, deleted!, [204])
      for (const res of answers) expectStatuses(`round ${round}: a trigger or an environment delete`, res, [202, 204, 404, 409])
    }
  })

  it("waits at the project for a project delete under way, as the delete's own order is, and answers 404", async () => {
    const f = factories(t.db)
    const { organization, project, environment, tokens } = await f.environmentWithTokens()
    await f.helmService(environment.id)
    const res = await whileHeld(t.db, {
      // A project delete's first locks: its organization (a key share), then the project...
      hold: async (trx) => {
        await trx.selectFrom('organizations').select('id').where('id', '=', organization.id).forKeyShare().execute()
        await trx.selectFrom('projects').select('id').where('id', '=', project.id).forUpdate().execute()
      },
      request: () => send(tokens.deploy.authorization, 'POST', `/environment/${environment.id}/deploy`),
      // ...then its environments, and the delete: the trigger holds none of them while it waits.
      next: async (trx) => {
        await trx.selectFrom('environments').select('id').where('projectId', '=', project.id).forUpdate().execute()
        await trx.deleteFrom('projects').where('id', '=', project.id).execute()
      },
    })
    assert.equal(res.statusCode, 404, res.body)
    assert.equal(res.json().code, 'not_found')
  })
})
