import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { shiftTimesInJson } from '#src/modules/demo/backdate-history.ts'
import { DEMO_ORGANIZATION } from '#src/modules/demo/demo-plan.ts'
import { createTestApp, TEST_SECRET_KEY, type TestApp } from './helpers/app.ts'
import type { EnvironmentEntry, HistoryPage, ServiceEntry } from './helpers/deployments.ts'
import { createIsolatedDatabase, type IsolatedDatabase } from './helpers/isolated-database.ts'
import { type CliResult, runCli } from './helpers/process.ts'

const TOKEN = /berth_[0-9A-Za-z]{49}/g
const DAY_MS = 86_400_000

interface Named {
  id: string
  name: string
}

/** Everything the demo made, as the API shows it to `token`: ids by name, and each environment's history. */
async function snapshot(t: TestApp, token: string) {
  const get = async <T>(url: string): Promise<T> => {
    const res = await t.app.inject({ method: 'GET', url, headers: { authorization: `Token ${token}` } })
    assert.equal(res.statusCode, 200, `GET ${url}: ${res.body}`)
    return res.json() as T
  }
  const list = async (url: string) => (await get<{ results: Named[] }>(url)).results.map(({ id, name }) => ({ id, name }))
  const organizations = await list('/organization')
  const organization = organizations.find((o) => o.name === DEMO_ORGANIZATION)
  assert.ok(organization, `no organization "${DEMO_ORGANIZATION}" in ${JSON.stringify(organizations)}`)
  const projects = []
  const histories = new Map<string, EnvironmentEntry[]>()
  const helmHistories = new Map<string, ServiceEntry[]>()
  for (const project of await list(`/organization/${organization.id}/project`)) {
    const environments = []
    for (const environment of await list(`/project/${project.id}/environment`)) {
      const services = await list(`/environment/${environment.id}/helm`)
      const variables = new Map<string, { key: string; scope: string; variable_type: string; is_secret: boolean; value: string | null }[]>()
      for (const service of services) {
        variables.set(service.name, (await get<{ results: never[] }>(`/variable?scope=HELM&parent_id=${service.id}`)).results)
      }
      environments.push({ ...environment, services, variables })
      const page = await get<HistoryPage<EnvironmentEntry>>(`/environment/${environment.id}/deploymentHistoryV2?pageSize=100`)
      assert.equal(page.has_more, false)
      histories.set(environment.name, page.results)
      for (const service of services) {
        helmHistories.set(service.id, (await get<HistoryPage<ServiceEntry>>(`/helm/${service.id}/deploymentHistoryV2?pageSize=100`)).results)
      }
    }
    projects.push({ ...project, environments })
  }
  return {
    organizations,
    projects,
    helmRepositories: await list(`/organization/${organization.id}/helmRepository`),
    apiTokens: await list(`/organization/${organization.id}/apiToken`),
    histories,
    helmHistories,
  }
}

const tokensIn = (result: CliResult) => result.stdout.match(TOKEN) ?? []

describe('berth seed --demo', () => {
  let database: IsolatedDatabase
  let t: TestApp
  // The runner the seed starts takes every queued deployment of its database: a database of its own.
  const env = () => ({ DATABASE_URL: database.url, BERTH_SECRET_KEY: TEST_SECRET_KEY, PORT: '8123', HOST: '127.0.0.1', BERTH_LOG_LEVEL: 'warn' })
  let first: CliResult
  let second: CliResult
  let before1: Awaited<ReturnType<typeof snapshot>>
  let after2: Awaited<ReturnType<typeof snapshot>>
  let seededAt = 0

  before(async () => {
    database = await createIsolatedDatabase()
    t = await createTestApp({ DATABASE_URL: database.url })
    seededAt = Date.now()
    first = await runCli(['seed', '--demo'], env(), { timeoutMs: 120_000 })
    assert.equal(first.code, 0, `first seed failed\nstdout: ${first.stdout}\nstderr: ${first.stderr}`)
    before1 = await snapshot(t, tokensIn(first)[0]!)
    second = await runCli(['seed', '--demo'], env(), { timeoutMs: 120_000 })
    assert.equal(second.code, 0, `second seed failed\nstdout: ${second.stdout}\nstderr: ${second.stderr}`)
    after2 = await snapshot(t, tokensIn(second)[0]!)
  })

  after(async () => {
    await t?.close()
    await database?.drop()
  })

  it('prints one API token and the console address, each run a new token that replaces the one before', async () => {
    assert.equal(tokensIn(first).length, 1, first.stdout)
    assert.equal(tokensIn(second).length, 1, second.stdout)
    assert.notEqual(tokensIn(first)[0], tokensIn(second)[0])
    for (const result of [first, second]) assert.match(result.stdout, /^Console: http:\/\/127\.0\.0\.1:8123\/console\/ /m)
    assert.match(second.stdout, /cannot be shown again/)
    const old = await t.app.inject({ method: 'GET', url: '/organization', headers: { authorization: `Token ${tokensIn(first)[0]}` } })
    assert.equal(old.statusCode, 401, 'the first run’s token still works')
  })

  it('makes the organization, projects, environments, helm repositories and helm services once', () => {
    assert.deepEqual(after2.organizations, before1.organizations)
    assert.deepEqual(after2.projects, before1.projects)
    assert.deepEqual(after2.helmRepositories, before1.helmRepositories)
    assert.equal(before1.projects.length, 2)
    const environments = before1.projects.flatMap((p) => p.environments)
    assert.equal(environments.length, 3)
    assert.ok(environments.every((e) => e.services.length >= 2))
    assert.ok(before1.helmRepositories.length >= 1)
    assert.match(second.stdout, /created: 0 projects, 0 environments, 0 services, 0 helm repositories, 0 variables/)
  })

  it('gives the projects, environments and services variables of every sort, once', () => {
    const production = before1.projects.flatMap((p) => p.environments).find((e) => e.name === 'production')!
    const api = production.variables.get('api')!
    const line = (key: string) => api.filter((v) => v.key === key).map((v) => `${v.scope} ${v.variable_type}${v.is_secret ? ' secret' : ''}`)
    assert.deepEqual(line('LOG_LEVEL'), ['PROJECT VALUE', 'ENVIRONMENT OVERRIDE'])
    assert.deepEqual(line('SENTRY_DSN'), ['PROJECT VALUE secret'])
    assert.deepEqual(line('API_BASE_URL'), ['HELM ALIAS'])
    assert.deepEqual(line('PODINFO_CONFIG'), ['HELM FILE'])
    assert.ok(api.some((v) => v.scope === 'BUILT_IN'))
    assert.ok(!JSON.stringify(before1.projects).includes('demo-redis-password'), 'a secret value shown')
    const keys = (snap: typeof before1) =>
      snap.projects.flatMap((p) => p.environments.flatMap((e) => [...e.variables.values()].flat().map((v) => v.key))).sort()
    assert.deepEqual(keys(after2), keys(before1))
  })

  it('writes the history once, and keeps no token but the last sign-in token', () => {
    const ids = (s: typeof before1) =>
      [...s.histories.values()].flat().map((entry) => `${entry.identifier.execution_id} ${entry.auditing_data.created_at}`)
    assert.deepEqual(ids(after2), ids(before1))
    assert.match(second.stdout, /3 environment\(s\) had deployments already/)
    // The people of the history were tokens of their own, revoked once it was written; the first sign-in token, by the second run.
    assert.equal(before1.apiTokens.length, 1, `tokens after the first run: ${JSON.stringify(before1.apiTokens)}`)
    assert.equal(after2.apiTokens.length, 1, `tokens after the second run: ${JSON.stringify(after2.apiTokens)}`)
    assert.notEqual(after2.apiTokens[0]!.id, before1.apiTokens[0]!.id)
  })

  it('has failures, cancels, stops and restarts, spread over past days, by several people', () => {
    const entries = [...before1.histories.values()].flat()
    assert.ok(entries.length >= 12, `${entries.length} deployments`)
    assert.ok(
      entries.every((entry) => ['SUCCESS', 'ERROR', 'CANCELED'].includes(entry.action_status)),
      'unfinished deployments',
    )
    assert.ok(
      entries.some((entry) => entry.action_status === 'ERROR' && entry.status === 'DEPLOYMENT_ERROR'),
      'no failure',
    )
    assert.ok(
      entries.some((entry) => entry.status === 'CANCELED'),
      'no cancel',
    )
    assert.ok(
      entries.some((entry) => entry.status === 'CANCELED' && entry.stages.some((stage) => stage.status === 'CANCELED')),
      'no cancel of a running deployment',
    )
    assert.ok(
      entries.some((entry) => entry.trigger_action === 'STOP' && entry.status === 'STOPPED'),
      'no stop',
    )
    assert.ok(
      entries.some((entry) => entry.trigger_action === 'RESTART' && entry.status === 'RESTARTED'),
      'no restart',
    )
    assert.ok(new Set(entries.map((entry) => entry.auditing_data.triggered_by)).size >= 2, 'one person did everything')

    const created = entries.map((entry) => Date.parse(entry.auditing_data.created_at))
    assert.ok(Math.max(...created) < seededAt, 'a deployment in the future')
    assert.ok(Math.max(...created) - Math.min(...created) >= 2 * DAY_MS, 'the history spans less than two days')
    for (const [name, history] of before1.histories) {
      const times = history.map((entry) => Date.parse(entry.auditing_data.created_at))
      assert.ok(
        times.every((time, i) => i === 0 || time < times[i - 1]!),
        `${name}: not newest first: ${history.map((e) => e.auditing_data.created_at)}`,
      )
    }
  })

  it('keeps every moved deployment consistent: its services, its updates and the services’ own histories', () => {
    const byExecution = new Map([...before1.histories.values()].flat().map((entry) => [entry.identifier.execution_id, entry]))
    for (const entry of byExecution.values()) {
      const createdAt = Date.parse(entry.auditing_data.created_at)
      const updatedAt = Date.parse(entry.auditing_data.updated_at)
      assert.ok(
        updatedAt >= createdAt && updatedAt - createdAt < 60_000,
        `updated_at ${entry.auditing_data.updated_at} of ${entry.auditing_data.created_at}`,
      )
      for (const service of entry.stages.flatMap((stage) => stage.services)) {
        assert.equal(service.auditing_data.created_at, entry.auditing_data.created_at)
        const serviceUpdated = Date.parse(service.auditing_data.updated_at)
        assert.ok(serviceUpdated >= createdAt && serviceUpdated <= updatedAt, `service updated_at ${service.auditing_data.updated_at}`)
      }
    }
    let serviceEntries = 0
    for (const history of before1.helmHistories.values()) {
      for (const entry of history) {
        serviceEntries++
        const environmentEntry = byExecution.get(entry.identifier.execution_id)
        assert.ok(environmentEntry, `a service entry of an unknown deployment ${entry.identifier.execution_id}`)
        const same = environmentEntry.stages.flatMap((stage) => stage.services).find((s) => s.identifier.service_id === entry.identifier.service_id)
        assert.deepEqual(entry, same)
      }
    }
    assert.ok(serviceEntries > 0)
  })
})

describe('shiftTimesInJson', () => {
  it('moves every ISO time and nothing else', () => {
    const json = JSON.stringify({
      created_at: '2026-11-24T10:00:00.000Z',
      nested: [{ updated_at: '2026-11-24T10:00:01.500Z', total_duration: 'PT1.5S', name: '2026 plan' }],
      started: null,
    })
    const shifted = JSON.parse(shiftTimesInJson(json, 2 * DAY_MS + 1))
    assert.deepEqual(shifted, {
      created_at: '2026-11-22T09:59:59.999Z',
      nested: [{ updated_at: '2026-11-22T10:00:01.499Z', total_duration: 'PT1.5S', name: '2026 plan' }],
      started: null,
    })
  })
})
