import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { Db } from '#src/platform/db/database.ts'
import { STATES } from '#src/platform/deployment-states.ts'
import {
  assertNoSecretsInLogs,
  baseEnv,
  call,
  DONE_STATE,
  historyPage,
  logLines,
  pidOf,
  processScenario,
  UNFINISHED,
  warnings,
} from './helpers/berth-processes.ts'
import { type EnvironmentEntry, type HistoryPage, until } from './helpers/deployments.ts'
import { factories } from './helpers/factories.ts'
import { type RunningProcess, type RunningServer, startServer, startWorker } from './helpers/process.ts'

// Two `berth serve` replicas (each running deployments too) and two `berth worker`s on one
// PostgreSQL database, 200 triggers sent at once over 20 environments: every accepted trigger ends
// in exactly one terminal state, runs one at a time in queue order per environment, is executed by
// one runner only, and the history, paged through both replicas all along, never contradicts itself.

const ENVIRONMENTS = 20
const TRIGGERS = 200
const PAGE_SIZE = 3
const TERMINAL = ['SUCCESS', 'ERROR', 'CANCELED']
const ACTION_STATUSES = [...UNFINISHED, ...TERMINAL]
const TRIGGER_ACTIONS = ['DEPLOY', 'RESTART', 'STOP']
const KNOWN_STATES = new Set<string>(STATES)

/** How far a run has got: queued, running, ended. A run never goes back. */
const rank = (actionStatus: string) => (actionStatus === 'QUEUED' ? 0 : UNFINISHED.includes(actionStatus) ? 1 : 2)

type Kind = 'environment deploy' | 'environment redeploy' | 'environment stop' | 'helm deploy' | 'helm redeploy' | 'helm stop'
const KINDS: Kind[] = ['environment deploy', 'helm deploy', 'environment redeploy', 'helm stop', 'environment stop', 'helm redeploy']
const TRIGGER_OF: Record<Kind, string> = {
  'environment deploy': 'DEPLOY',
  'environment redeploy': 'RESTART',
  'environment stop': 'STOP',
  'helm deploy': 'DEPLOY',
  'helm redeploy': 'RESTART',
  'helm stop': 'STOP',
}

interface TestEnvironment {
  index: number
  id: string
  helmIds: string[]
  deploy: string
  read: string
  /** How many triggers were sent to it. */
  sent: number
}

/** What the poller saw of one run, last time. */
interface Sighting {
  rank: number
  actionStatus: string
  status: string
}

describe('two serve replicas and two workers under 200 concurrent triggers', () => {
  const scenario = processScenario(3)
  const { group } = scenario

  it('ends every accepted trigger exactly once, in queue order per environment, while history pages stay consistent', async () => {
    const env = baseEnv(scenario.database, {
      BERTH_RUNNER_IN_SERVE: 'true',
      BERTH_SIMULATED_STEP_MS: '40',
      // Nothing crashes here: a lease long enough that a busy machine never loses one.
      BERTH_RUNNER_LEASE_MS: '10000',
      // This is about the queue, not about capacity: no request limits for the one address and
      // token that send everything. Default connection waits: 100 triggers at once per replica,
      // 10 on each environment, wait their turn in the process, not holding pooled connections.
      BERTH_RATE_LIMIT_PER_ADDRESS: '0',
      BERTH_RATE_LIMIT_PER_CREDENTIAL: '0',
      // Nor about the pool's wait: on the loaded CI machine a trigger waited more than the default
      // 5 s for a pooled connection and was answered 503 (the capacity answer, tested elsewhere).
      BERTH_DB_CONNECT_TIMEOUT_MS: '60000',
    })
    const [serverA, serverB, workerA, workerB] = await Promise.all([
      group.add(startServer(env)),
      group.add(startServer(env)),
      group.add(startWorker(env)),
      group.add(startWorker(env)),
    ])
    const servers: RunningServer[] = [serverA, serverB]
    const all: RunningProcess[] = [serverA, serverB, workerA, workerB]
    const pids = new Set(all.map((running) => running.child.pid))

    const make = factories(scenario.db)
    const secrets: string[] = []
    const environments: TestEnvironment[] = []
    for (let index = 0; index < ENVIRONMENTS; index++) {
      const { environment, tokens } = await make.environmentWithTokens()
      const helmIds: string[] = []
      for (let i = 0; i < 1 + (index % 2); i++) helmIds.push((await make.helmService(environment.id)).id)
      secrets.push(...Object.values(tokens).flatMap((token) => [token.token, token.authorization]))
      environments.push({ index, id: environment.id, helmIds, deploy: tokens.deploy.authorization, read: tokens.read.authorization, sent: 0 })
    }

    // 10 triggers per environment, of six kinds, through both replicas.
    const triggers = Array.from({ length: TRIGGERS }, (_, i) => {
      const round = Math.floor(i / ENVIRONMENTS)
      const environment = environments[i % ENVIRONMENTS]!
      environment.sent++
      const kind = KINDS[(i + round) % KINDS.length]!
      const helmId = environment.helmIds[round % environment.helmIds.length]!
      const [target, action] = kind.split(' ') as ['environment' | 'helm', string]
      const path = target === 'environment' ? `/environment/${environment.id}/${action}` : `/helm/${helmId}/${action}`
      return { environment, kind, path, server: servers[(i + round) % 2]! }
    })

    // The poller pages every environment's history through both replicas until told to stop.
    const sightings = new Map<string, Sighting>()
    let pollingStopped = false
    const polling = pollHistories(servers, environments, sightings, () => pollingStopped)
    polling.catch(() => {}) // awaited below; marked handled should the test fail first

    let rows: Awaited<ReturnType<typeof readRuns>>
    let answers: ((typeof triggers)[number] & { status: number; body: Record<string, unknown>; text: string })[]
    try {
      answers = await Promise.all(
        triggers.map(async (trigger) => ({ ...trigger, ...(await call(trigger.server.baseUrl, 'POST', trigger.path, trigger.environment.deploy)) })),
      )
      for (const answer of answers) {
        // A stop is refused only when what it would stop is already stopped with nothing queued.
        if (answer.kind.endsWith('stop') && answer.status === 409) continue
        assert.equal(answer.status, 202, `${answer.kind} ${answer.path}: ${answer.text}`)
      }
      const accepted = answers.filter((answer) => answer.status === 202).length
      rows = await Promise.race([
        until(
          () => readRuns(scenario.db, environments),
          (list) => list.length >= accepted && list.every((row) => !UNFINISHED.includes(row.actionStatus)),
          { what: 'every deployment finished', timeoutMs: 90_000, intervalMs: 200 },
        ),
        polling.then(() => assert.fail('the poller stopped early')),
      ])
    } finally {
      pollingStopped = true
    }
    const { sweeps, transitions } = await polling
    assert.ok(transitions > 0, `in ${sweeps} sweeps the poller never saw a run move on: it paged after the work, not during it`)

    const accepted = answers.filter((answer) => answer.status === 202)
    assert.ok(accepted.length >= TRIGGERS * 0.8, `only ${accepted.length} triggers were accepted`)
    assert.equal(rows.length, accepted.length, 'one run per accepted trigger, no more')

    // Every run ended once, well, claimed by exactly one of these processes (never run twice).
    for (const row of rows) {
      const about = `run ${row.id} (${row.triggerAction}, seq ${row.seq}): ${row.message}`
      assert.equal(row.actionStatus, 'SUCCESS', about)
      assert.equal(row.status, DONE_STATE[row.triggerAction], about)
      assert.equal(row.claims, 1, `${about}: claimed ${row.claims} times`)
      assert.ok(row.leaseOwner && pids.has(pidOf(row.leaseOwner)), `${about}: held by ${row.leaseOwner}, none of ${[...pids]}`)
      assert.equal(row.leaseExpiresAt, null, about)
      assert.ok(row.startedAt && row.endedAt && row.startedAt <= row.endedAt, about)
    }
    const owners = new Set(rows.map((row) => pidOf(row.leaseOwner!)))
    assert.ok(owners.size > 1, `one runner did all the work: ${[...owners]}`)

    // Each trigger that answered with its execution id has its run; the others are counted by kind.
    const rowById = new Map(rows.map((row) => [row.id, row]))
    for (const answer of accepted) {
      const executionId = answer.body.execution_id as string | undefined
      if (answer.kind.startsWith('helm') || answer.kind === 'environment deploy') {
        assert.ok(executionId, `${answer.kind} answered without an execution id: ${answer.text}`)
        const row = rowById.get(executionId)
        assert.ok(row, `the ${answer.kind} ${executionId} answered 202 but was not stored`)
        assert.equal(row.triggerAction, TRIGGER_OF[answer.kind])
        assert.equal(row.environmentId, answer.environment.id)
        assert.equal(row.serviceId, answer.kind.startsWith('helm') ? answer.path.split('/')[2] : null)
      }
    }
    const byExecution = new Map(answers.flatMap((answer) => (answer.body.execution_id ? [[answer.body.execution_id as string, answer]] : [])))
    assert.equal(
      byExecution.size,
      accepted.filter((answer) => answer.kind.startsWith('helm') || answer.kind === 'environment deploy').length,
      'execution ids are never shared',
    )

    const services = await scenario.db
      .selectFrom('serviceDeployments')
      .select(['executionId', 'actionStatus'])
      .where(
        'environmentId',
        'in',
        environments.map((environment) => environment.id),
      )
      .execute()
    for (const row of rows) {
      const ofRun = services.filter((service) => service.executionId === row.id)
      const environment = environments.find((candidate) => candidate.id === row.environmentId)!
      assert.equal(ofRun.length, row.serviceId ? 1 : environment.helmIds.length, `the services of run ${row.id}`)
      assert.deepEqual(
        ofRun.filter((service) => service.actionStatus !== 'SUCCESS'),
        [],
      )
    }

    for (const environment of environments) {
      const runs = rows.filter((row) => row.environmentId === environment.id).sort((a, b) => Number(a.seq) - Number(b.seq))
      const mine = accepted.filter((answer) => answer.environment === environment)
      assert.deepEqual(
        runs.map((run) => Number(run.seq)),
        Array.from({ length: mine.length }, (_, i) => i + 1),
        `environment ${environment.index}: one run per accepted trigger, numbered in order`,
      )
      // Environment redeploys and stops answer without the id of their run: their numbers must match.
      assert.deepEqual(
        runs.map((run) => `${run.serviceId ? 'helm' : 'environment'} ${run.triggerAction}`).sort(),
        mine.map((answer) => `${answer.kind.split(' ')[0]} ${TRIGGER_OF[answer.kind]}`).sort(),
      )
      for (const [i, run] of runs.entries()) {
        const previous = runs[i - 1]
        if (!previous) continue
        // In queue order, each run starts once the one before it has ended: never two at once.
        assert.ok(previous.createdAt < run.createdAt, `created out of order in ${environment.id}`)
        assert.ok(
          previous.endedAt! <= run.startedAt!,
          `runs ${previous.seq} and ${run.seq} of ${environment.id} overlap: ${previous.endedAt?.toISOString()} > ${run.startedAt?.toISOString()}`,
        )
      }

      // The history, paged through both replicas once everything ended, is the queue newest first, whole.
      const entries = await traverse(servers, environment, 0)
      assert.deepEqual(
        entries.map((entry) => entry.identifier.execution_id),
        runs.map((run) => run.id).reverse(),
      )
      for (const entry of entries) {
        const run = rowById.get(entry.identifier.execution_id)!
        assert.equal(entry.action_status, 'SUCCESS')
        assert.equal(entry.status, run.status)
        assert.equal(entry.trigger_action, run.triggerAction)
        assert.deepEqual(
          entry.stages.map((stage) => stage.status),
          ['DONE'],
        )
      }
      // Nor did any run end differently from what the poller last saw of it.
      observe(sightings, entries)
      const status = await call(servers[environment.index % 2]!.baseUrl, 'GET', `/environment/${environment.id}/status`, environment.read)
      assert.equal(status.status, 200, status.text)
      assert.equal(status.body.last_deployment_id, runs.at(-1)!.id)
      assert.equal(status.body.deployment_request_id, null)
    }

    // Each run was executed by one runner: exactly one "deployment finished" line across all four.
    const finished = all.flatMap((running) => logLines(running).filter((line) => line.msg === 'deployment finished'))
    assert.equal(finished.length, rows.length)
    assert.equal(new Set(finished.map((line) => line.executionId)).size, rows.length)

    for (const running of all) {
      assert.equal(await running.stop('SIGTERM', 15_000), 0, running.logs())
      assert.equal(logLines(running).at(-1)?.msg, 'stopped', running.logs())
      assert.deepEqual(warnings(running), [], 'no process warned (a lost lease, an interrupted run, a failed claim, a failed request)')
    }
    assertNoSecretsInLogs(all, secrets)
  })
})

/** Every run of the environments, straight from the database. */
function readRuns(db: Db, environments: TestEnvironment[]) {
  return db
    .selectFrom('deploymentRequests')
    .selectAll()
    .where(
      'environmentId',
      'in',
      environments.map((environment) => environment.id),
    )
    .execute()
}

/**
 * Pages through an environment's history with `startId`, each page from the other replica, and
 * checks what a snapshot must hold whatever runs meanwhile: pages in order, newest first by
 * creation, no entry twice, known words only, and the queue's shape (ended runs oldest, then at
 * most one running, then queued ones).
 */
async function traverse(servers: RunningServer[], environment: TestEnvironment, sweep: number): Promise<EnvironmentEntry[]> {
  const where = `environment ${environment.index}, sweep ${sweep}`
  const entries: EnvironmentEntry[] = []
  const pages: HistoryPage<EnvironmentEntry>[] = []
  let startId: string | undefined
  for (let n = 0; ; n++) {
    assert.ok(n <= environment.sent, `${where}: more pages than runs`)
    const server = servers[(sweep + environment.index + n) % 2]!
    const page = await historyPage(server.baseUrl, environment.id, environment.read, { pageSize: String(PAGE_SIZE), ...(startId ? { startId } : {}) })
    const previous = pages.at(-1)
    pages.push(page)
    entries.push(...page.results)
    // Runs queued meanwhile come before the first page, so that later pages may only number further.
    assert.ok(previous ? page.page > previous.page : page.page === 1, `${where}: page ${page.page} after ${previous?.page}`)
    assert.equal(page.page_size, PAGE_SIZE)
    assert.ok(page.results.length <= PAGE_SIZE)
    assert.equal(page.has_more, page.next_start_id !== null, `${where}: has_more and next_start_id disagree`)
    if (!page.has_more) break
    assert.equal(page.results.length, PAGE_SIZE, `${where}: a short page that says more follow`)
    assert.equal(page.next_start_id, page.results.at(-1)!.identifier.execution_id)
    startId = page.next_start_id!
  }
  const ids = entries.map((entry) => entry.identifier.execution_id)
  assert.equal(new Set(ids).size, ids.length, `${where}: an entry on two pages: ${ids}`)
  assert.ok(entries.length <= environment.sent, `${where}: ${entries.length} entries for ${environment.sent} triggers`)
  let running = 0
  for (const [i, entry] of entries.entries()) {
    const about = `${where}: entry ${entry.identifier.execution_id} ${JSON.stringify([entry.status, entry.action_status, entry.trigger_action])}`
    assert.equal(entry.identifier.environment_id, environment.id, about)
    assert.ok(ACTION_STATUSES.includes(entry.action_status), about)
    assert.ok(KNOWN_STATES.has(entry.status), about)
    assert.ok(TRIGGER_ACTIONS.includes(entry.trigger_action), about)
    if (rank(entry.action_status) === 1) running++
    const older = entries[i + 1]
    if (!older) continue
    assert.ok(Date.parse(entry.auditing_data.created_at) > Date.parse(older.auditing_data.created_at), `${about}: not newer than the entry after it`)
    // Read later (on a later page) or in the same snapshot, an older run is at least as far along.
    assert.ok(rank(entry.action_status) <= rank(older.action_status), `${about}: further along than the older ${older.action_status}`)
  }
  assert.ok(running <= 1, `${where}: ${running} runs under way at once`)
  return entries
}

/** Checks entries against what was seen of them before, and remembers them; returns how many moved on. */
function observe(sightings: Map<string, Sighting>, entries: EnvironmentEntry[]): number {
  let moved = 0
  for (const entry of entries) {
    const id = entry.identifier.execution_id
    const now: Sighting = { rank: rank(entry.action_status), actionStatus: entry.action_status, status: entry.status }
    const before = sightings.get(id)
    if (before) {
      const about = `run ${id}: seen ${before.actionStatus}/${before.status}, then ${now.actionStatus}/${now.status}`
      assert.ok(now.rank >= before.rank, `${about}: went back`)
      if (before.rank === 2) assert.deepEqual(now, before, `${about}: an ended run changed`)
      if (now.rank !== before.rank) moved++
    }
    sightings.set(id, now)
  }
  return moved
}

/** Pages every history again and again until `stopped`; checks that no run ever goes back between two looks. */
async function pollHistories(
  servers: RunningServer[],
  environments: TestEnvironment[],
  sightings: Map<string, Sighting>,
  stopped: () => boolean,
): Promise<{ sweeps: number; transitions: number }> {
  let sweeps = 0
  let transitions = 0
  // Whole sweeps, at least two, the first under way while the triggers are.
  while (!stopped() || sweeps < 2) {
    // A few environments at a time: a steady reader, not a load of its own.
    for (let i = 0; i < environments.length; i += 4) {
      await Promise.all(
        environments.slice(i, i + 4).map(async (environment) => {
          transitions += observe(sightings, await traverse(servers, environment, sweeps))
        }),
      )
    }
    sweeps++
  }
  return { sweeps, transitions }
}
