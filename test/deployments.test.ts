import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { createTestApp, type TestApp } from './helpers/app.ts'
import { factories } from './helpers/factories.ts'
import { createIsolatedDatabase, type IsolatedDatabase } from './helpers/isolated-database.ts'

const STEP_MS = 150

let database: IsolatedDatabase
let t: TestApp
let make: ReturnType<typeof factories>

before(async () => {
  database = await createIsolatedDatabase()
  t = await createTestApp(
    { DATABASE_URL: database.url, BERTH_SIMULATED_STEP_MS: String(STEP_MS), BERTH_RUNNER_POLL_MS: '50', BERTH_RUNNER_LEASE_MS: '2000' },
    { runner: true },
  )
  make = factories(t.db)
})

after(async () => {
  await t?.close()
  await database?.drop()
})

type Entry = { identifier: { execution_id: string }; status: string; action_status: string; stages: { name: string; status: string; services: { status: string; status_details: { status: string } }[] }[] }

async function history(environmentId: string, authorization: string, query = '') {
  const res = await t.app.inject({ method: 'GET', url: `/environment/${environmentId}/deploymentHistoryV2${query}`, headers: { authorization } })
  assert.equal(res.statusCode, 200, res.body)
  return res.json() as { page: number; page_size: number; results: Entry[]; next_start_id: string | null; has_more: boolean }
}

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await read()
    if (done(value)) return value
    if (Date.now() > deadline) assert.fail(`condition not reached within ${timeoutMs} ms: ${JSON.stringify(value).slice(0, 2000)}`)
    await sleep(25)
  }
}

describe('deployments', () => {
  test('a deploy goes from queued to deployed', async () => {
    const { environment, tokens } = await make.environmentWithTokens()
    await make.helmService(environment.id)
    await make.helmService(environment.id)
    const res = await t.app.inject({ method: 'POST', url: `/environment/${environment.id}/deploy`, headers: { authorization: tokens.deploy.authorization } })
    assert.equal(res.statusCode, 202, res.body)
    const status = res.json()
    console.log(status)
    const done = await until(
      () => history(environment.id, tokens.read.authorization),
      (page) => page.results[0]?.status === 'DEPLOYED',
    )
    console.log(JSON.stringify(done, null, 1))
  })
})
