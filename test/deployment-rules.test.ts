/**
 * Issue 48: projects' deployment rules. Their CRUD, roles and priority order; a new environment
 * whose name a rule's wildcard matches (first in priority order) gets the rule's mode, cluster and
 * auto-stop schedule; schedules' events in their time zones; and an event acted on once however
 * many servers look at the same database at the same moment.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { withDeploymentRuleTables } from '#src/modules/deployment-rules/deployment-rules.tables.ts'
import { createEnvironmentSchedules } from '#src/modules/deployment-rules/environment-schedules.ts'
import { latestEvent } from '#src/modules/deployment-rules/schedule-events.ts'
import { wildcardMatches } from '#src/modules/deployment-rules/wildcard.ts'
import { createTestApp, type TestApp } from './helpers/app.ts'
import { factories } from './helpers/factories.ts'

const EVERY_DAY = ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY']

const ruleBody = (clusterId: string, extra: object = {}) => ({
  name: 'nights off',
  description: 'development sleeps',
  mode: 'DEVELOPMENT',
  cluster_id: clusterId,
  auto_stop: true,
  timezone: 'Europe/Paris',
  start_time: '1970-01-01T08:00:00.000Z',
  stop_time: '1970-01-01T19:00:00.000Z',
  weekdays: ['MONDAY', 'FRIDAY'],
  wildcard: 'dev-*',
  ...extra,
})

describe('wildcards and schedule events', () => {
  it('match names with * and ? as a whole, case insensitively; an empty pattern matches nothing', () => {
    assert.equal(wildcardMatches('dev-*', 'DEV-alice'), true)
    assert.equal(wildcardMatches('dev-*', 'prod-alice'), false)
    assert.equal(wildcardMatches('feature-?', 'feature-1'), true)
    assert.equal(wildcardMatches('feature-?', 'feature-12'), false)
    assert.equal(wildcardMatches('*-preview-*', 'a-preview-b'), true)
    assert.equal(wildcardMatches('*', 'anything'), true)
    assert.equal(wildcardMatches('', 'anything'), false)
    assert.equal(wildcardMatches('a*b*c', 'a'.repeat(50)), false)
  })

  it('find the newest stop or start since a moment, at the wall-clock time of the schedule’s time zone and weekdays', () => {
    const schedule = {
      timezone: 'Europe/Paris',
      startTime: new Date('1970-01-01T08:00:00Z'),
      stopTime: new Date('1970-01-01T19:00:00Z'),
      weekdays: ['MONDAY'],
    }
    // Monday 2026-12-07: 19:00 in Paris (winter, UTC+1) is 18:00 UTC.
    const monday = (time: string) => new Date(`2026-12-07T${time}Z`)
    assert.equal(latestEvent(schedule, monday('17:00:00'), monday('17:59:59')), undefined)
    assert.deepEqual(latestEvent(schedule, monday('17:00:00'), monday('18:00:00')), { action: 'STOP', at: monday('18:00:00') })
    // 08:00 Paris is 07:00 UTC.
    assert.deepEqual(latestEvent(schedule, monday('06:00:00'), monday('07:30:00')), { action: 'START', at: monday('07:00:00') })
    // Both passed since: the newest says what to do.
    assert.deepEqual(latestEvent(schedule, monday('06:00:00'), monday('20:00:00')), { action: 'STOP', at: monday('18:00:00') })
    // Tuesday is not a weekday of the schedule.
    assert.equal(latestEvent(schedule, new Date('2026-12-08T00:00:00Z'), new Date('2026-12-08T23:00:00Z')), undefined)
    // Summer time: 19:00 in Paris on Monday 2026-07-06 is 17:00 UTC.
    assert.deepEqual(latestEvent(schedule, new Date('2026-07-06T16:00:00Z'), new Date('2026-07-06T17:30:00Z'))?.at, new Date('2026-07-06T17:00:00Z'))
    assert.equal(latestEvent({ ...schedule, weekdays: [] }, monday('00:00:00'), monday('23:00:00')), undefined)
  })
})

describe('project deployment rules', () => {
  let t: TestApp
  let f: ReturnType<typeof factories>

  before(async () => {
    // The server's own tick stays out of the way: this file ticks by hand.
    t = await createTestApp({ BERTH_ENVIRONMENT_SCHEDULE_TICK_MS: '0' })
    f = factories(t.db)
  })
  after(async () => t?.close())

  const call = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, authorization: string, payload?: object) =>
    t.app.inject({ method, url, headers: { authorization }, ...(payload === undefined ? {} : { payload }) })

  it('are created, read, listed in priority order, edited, reordered and deleted, with roles and checks', async () => {
    const w = await f.environmentWithTokens()
    const { admin, write, read } = w.tokens
    const base = `/project/${w.project.id}/deploymentRule`
    const clusterId = w.environment.clusterId

    assert.equal((await call('POST', base, read.authorization, ruleBody(clusterId))).statusCode, 403)
    const first = await call('POST', base, write.authorization, ruleBody(clusterId))
    assert.equal(first.statusCode, 201, first.body)
    const rule = first.json()
    assert.equal(rule.priority_index, 0)
    assert.equal(rule.timezone, 'Europe/Paris')
    assert.deepEqual(rule.weekdays, ['MONDAY', 'FRIDAY'])
    assert.equal(rule.stop_time, '1970-01-01T19:00:00.000Z')
    assert.equal((await call('POST', base, write.authorization, ruleBody(clusterId, { name: 'NIGHTS OFF' }))).statusCode, 409)
    const second = (
      await call('POST', base, write.authorization, ruleBody(clusterId, { name: 'staging', mode: 'STAGING', wildcard: 'stg-?' }))
    ).json()
    assert.equal(second.priority_index, 1)

    // Checks: a cluster of another organization, an unknown time zone, a bad weekday.
    const other = await f.organizationWithTokens()
    const foreign = await f.cluster(other.organization.id, { name: 'theirs' })
    const refused = await call('POST', base, write.authorization, ruleBody(foreign.id, { name: 'x' }))
    assert.equal(refused.statusCode, 400)
    assert.equal(refused.json().errors[0].path, '/cluster_id')
    assert.equal(
      (await call('POST', base, write.authorization, ruleBody(clusterId, { name: 'x', timezone: 'Mars/Olympus' }))).json().errors[0].path,
      '/timezone',
    )
    assert.equal((await call('POST', base, write.authorization, ruleBody(clusterId, { name: 'x', weekdays: ['FUNDAY'] }))).statusCode, 400)
    // Another organization's token sees no such project.
    assert.equal((await call('GET', base, other.tokens.admin.authorization)).statusCode, 404)

    const listed = await call('GET', base, read.authorization)
    assert.deepEqual(
      listed.json().results.map((r: { name: string }) => r.name),
      ['nights off', 'staging'],
    )
    assert.equal((await call('GET', `${base}/${rule.id}`, read.authorization)).json().wildcard, 'dev-*')

    const edited = await call('PUT', `${base}/${rule.id}`, write.authorization, ruleBody(clusterId, { wildcard: 'dev-?*', auto_stop: false }))
    assert.equal(edited.statusCode, 200, edited.body)
    assert.equal(edited.json().wildcard, 'dev-?*')
    assert.equal(edited.json().priority_index, 0)

    assert.equal(
      (await call('PUT', `${base}/order`, write.authorization, { project_deployment_rule_ids_in_order: [second.id, rule.id] })).statusCode,
      200,
    )
    assert.deepEqual(
      (await call('GET', base, read.authorization)).json().results.map((r: { id: string; priority_index: number }) => [r.id, r.priority_index]),
      [
        [second.id, 0],
        [rule.id, 1],
      ],
    )
    const unknown = await call('PUT', `${base}/order`, write.authorization, { project_deployment_rule_ids_in_order: [crypto.randomUUID()] })
    assert.equal(unknown.statusCode, 400)

    assert.equal((await call('DELETE', `${base}/${second.id}`, read.authorization)).statusCode, 403)
    assert.equal((await call('DELETE', `${base}/${second.id}`, admin.authorization)).statusCode, 204)
    assert.equal((await call('GET', `${base}/${second.id}`, read.authorization)).statusCode, 404)
  })

  it('give a new environment whose name matches the first rule its mode, cluster and schedule; others are left as asked', async () => {
    const w = await f.environmentWithTokens()
    const { write, read } = w.tokens
    const base = `/project/${w.project.id}/deploymentRule`
    const elsewhere = await f.cluster(w.organization.id, { name: 'night shift' })
    const broad = (await call('POST', base, write.authorization, ruleBody(elsewhere.id, { name: 'broad', mode: 'STAGING', wildcard: '*' }))).json()
    const narrow = (
      await call(
        'POST',
        base,
        write.authorization,
        ruleBody(elsewhere.id, { name: 'narrow', mode: 'DEVELOPMENT', wildcard: 'dev-*', weekdays: ['SUNDAY'] }),
      )
    ).json()
    // The broad rule comes first: it wins for every name.
    const made = await call('POST', `/project/${w.project.id}/environment`, write.authorization, { name: 'dev-alice', mode: 'PRODUCTION' })
    assert.equal(made.statusCode, 201, made.body)
    assert.equal(made.json().mode, 'STAGING')
    assert.equal(made.json().cluster_id, elsewhere.id)
    // The narrow rule first: it wins for dev-*, the broad one for the rest.
    await call('PUT', `${base}/order`, write.authorization, { project_deployment_rule_ids_in_order: [narrow.id, broad.id] })
    const dev = (await call('POST', `/project/${w.project.id}/environment`, write.authorization, { name: 'DEV-bob', mode: 'PRODUCTION' })).json()
    assert.equal(dev.mode, 'DEVELOPMENT')
    const schedule = (await call('GET', `/environment/${dev.id}/deploymentRule`, read.authorization)).json()
    assert.equal(schedule.auto_stop, true)
    assert.equal(schedule.timezone, 'Europe/Paris')
    assert.deepEqual(schedule.weekdays, ['SUNDAY'])
    assert.equal(schedule.start_time, '1970-01-01T08:00:00.000Z')
    const qa = (await call('POST', `/project/${w.project.id}/environment`, write.authorization, { name: 'qa' })).json()
    assert.equal(qa.mode, 'STAGING')
    // Without a matching rule, the request's own mode and cluster.
    await call('DELETE', `${base}/${broad.id}`, write.authorization)
    const plain = (await call('POST', `/project/${w.project.id}/environment`, write.authorization, { name: 'prod', mode: 'PRODUCTION' })).json()
    assert.equal(plain.mode, 'PRODUCTION')
    assert.equal(plain.cluster_id, w.environment.clusterId)
    assert.equal((await call('GET', `/environment/${plain.id}/deploymentRule`, read.authorization)).json().auto_stop, false)
  })

  it('act on a schedule event once when several servers look at the same moment', async () => {
    const w = await f.environmentWithTokens()
    await f.containerService(w.environment.id)
    // The environment's schedule: a stop a second ago, set a minute ago.
    const now = Date.now()
    await t.db
      .insertInto('environmentDeploymentRules')
      .values({
        environmentId: w.environment.id,
        autoStop: true,
        timezone: 'UTC',
        startTime: new Date(now - 3_600_000),
        stopTime: new Date(now - 1_000),
        weekdays: JSON.stringify(EVERY_DAY),
        createdAt: new Date(now - 60_000),
      })
      .execute()
    const asked: string[] = []
    const servers = Array.from({ length: 4 }, () =>
      createEnvironmentSchedules({
        db: withDeploymentRuleTables(t.db),
        trigger: async (environment, action) => {
          if (environment.id === w.environment.id) asked.push(action)
          return 'queued'
        },
        log: { info() {}, warn() {} },
      }),
    )
    await Promise.all(servers.map((server) => server.tick()))
    await Promise.all(servers.map((server) => server.tick()))
    assert.deepEqual(asked, ['STOP'])
  })
})
