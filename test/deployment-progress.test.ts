import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { describe, it } from 'node:test'
import { elapsedMs, isoDuration } from '#src/modules/deployments/iso-duration.ts'
import { environmentEntry, serviceEntry } from '#src/modules/deployments/queue/deployment-entries.ts'
import { type PlannedService, plannedService, planStages } from '#src/modules/deployments/queue/deployment-plan.ts'
import {
  cancelingRun,
  cancelRun,
  type DeploymentRun,
  finishService,
  finishStage,
  interruptRun,
  isFinished,
  type ServicePhase,
  serviceStatus,
  startRun,
  startStage,
  succeedRun,
} from '#src/modules/deployments/queue/deployment-progress.ts'
import type { HelmServiceRecord } from '#src/modules/services/kinds/helm/helm.types.ts'
import { helmDetails, helmPlanning, simulatesFailure } from '#src/modules/services/kinds/helm/helm-deployments.ts'
import { FAMILIES, type RunnableTrigger, type ServiceType, type State } from '#src/platform/deployment-states.ts'

// The runner's pure steps, the entries rendered from a run, and the plan a trigger makes.

/** Instants a second apart: T(0), T(1)… */
const T = (seconds: number) => new Date(Date.UTC(2026, 0, 1) + seconds * 1000).toISOString()

const planned = (id: string, type: ServiceType, simulateFailure = false): PlannedService => ({
  id,
  name: id,
  type,
  iconUri: `app://berth/${type.toLowerCase()}`,
  details: { repository: { chart_name: id, chart_version: '1.0.0' } },
  version: 3,
  simulateFailure,
})

/** A queued run of a database `db` (stage 1) and helm services `web` and `api` (stage 2); `web` was DEPLOYED before. */
function queuedRun(trigger: RunnableTrigger = 'DEPLOY'): DeploymentRun {
  const services = [planned('web', 'HELM'), planned('db', 'DATABASE'), planned('api', 'HELM')]
  return {
    id: randomUUID(),
    organizationId: randomUUID(),
    environmentId: randomUUID(),
    serviceId: null,
    triggerAction: trigger,
    origin: 'API',
    triggeredBy: 'API token ci',
    status: FAMILIES[trigger].queued,
    actionStatus: 'QUEUED',
    message: null,
    createdAt: T(0),
    updatedAt: T(0),
    startedAt: null,
    endedAt: null,
    progress: { stages: planStages(trigger, services, new Map<string, State>([['web', 'DEPLOYED']]), T(0)) },
  }
}

const service = (run: DeploymentRun, id: string) => run.progress.stages.flatMap((stage) => stage.services).find((s) => s.id === id)!
const phases = (run: DeploymentRun) => run.progress.stages.map((stage) => [stage.status, stage.services.map((s) => `${s.id}:${s.phase}`)])
const statusOf = (run: DeploymentRun, id: string) => serviceStatus(run, service(run, id))

/** The first stage (db) running. */
const runningFirstStage = () => startStage(startRun(queuedRun(), T(1)), 0, T(1))

describe('planStages', () => {
  it('makes one stage per kind, in deploy order, with the services in their given order and their previous states', () => {
    const run = queuedRun()
    assert.deepEqual(
      run.progress.stages.map((stage) => [stage.name, stage.status, stage.startedAt, stage.endedAt, stage.services.map((s) => s.id)]),
      [
        ['DATABASE DEFAULT', 'QUEUED', null, null, ['db']],
        ['HELM DEFAULT', 'QUEUED', null, null, ['web', 'api']],
      ],
    )
    assert.deepEqual(
      run.progress.stages.flatMap((stage) => stage.services.map((s) => [s.id, s.phase, s.previousState, s.startedAt, s.updatedAt])),
      [
        ['db', 'QUEUED', 'READY', null, T(0)],
        ['web', 'QUEUED', 'DEPLOYED', null, T(0)],
        ['api', 'QUEUED', 'READY', null, T(0)],
      ],
    )
  })

  it('reverses the stages to stop and uninstall, not to restart', () => {
    const names = (trigger: RunnableTrigger) => queuedRun(trigger).progress.stages.map((stage) => stage.name)
    assert.deepEqual(names('STOP'), ['HELM DEFAULT', 'DATABASE DEFAULT'])
    assert.deepEqual(names('UNINSTALL'), ['HELM DEFAULT', 'DATABASE DEFAULT'])
    assert.deepEqual(names('RESTART'), ['DATABASE DEFAULT', 'HELM DEFAULT'])
    const all = (['APPLICATION', 'GITOPS_APP', 'CONTAINER', 'HELM', 'JOB', 'IAC', 'DATABASE'] as const).map((type) => planned(type, type))
    assert.deepEqual(
      planStages('DEPLOY', all, new Map(), T(0)).map((stage) => stage.name),
      ['DATABASE DEFAULT', 'IAC DEFAULT', 'JOB DEFAULT', 'HELM DEFAULT', 'CONTAINER DEFAULT', 'APPLICATION DEFAULT', 'GITOPS_APP DEFAULT'],
    )
    assert.deepEqual(planStages('DEPLOY', [], new Map(), T(0)), [])
  })
})

describe('deployment steps', () => {
  it('runs stage after stage to DEPLOYED, leaving the run given to each step unchanged', () => {
    const queued = queuedRun()
    const frozen = structuredClone(queued)
    const started = startRun(queued, T(1))
    assert.deepEqual(queued, frozen, 'startRun changed its input')
    assert.deepEqual([started.status, started.actionStatus, started.startedAt, started.updatedAt], ['DEPLOYING', 'ONGOING', T(1), T(1)])
    assert.equal(startRun(started, T(9)).startedAt, T(1), 'a resumed run keeps its start')

    const first = startStage(started, 0, T(1))
    assert.deepEqual(phases(first), [
      ['ONGOING', ['db:ONGOING']],
      ['QUEUED', ['web:QUEUED', 'api:QUEUED']],
    ])
    assert.deepEqual(statusOf(first, 'db'), { status: 'DEPLOYING', actionStatus: 'ONGOING' })
    assert.deepEqual(statusOf(first, 'web'), { status: 'DEPLOYMENT_QUEUED', actionStatus: 'QUEUED' })

    const snapshot = structuredClone(first)
    const dbDone = finishService(first, 'db', { ok: true }, T(2))
    assert.deepEqual(first, snapshot, 'finishService changed its input')
    assert.deepEqual(finishService(first, 'web', { ok: true }, T(2)).progress, first.progress, 'a service that is not running cannot finish')
    assert.deepEqual([service(dbDone, 'db').phase, service(dbDone, 'db').endedAt, service(dbDone, 'db').updatedAt], ['SUCCESS', T(2), T(2)])

    const second = startStage(finishStage(dbDone, 0, T(2)), 1, T(2))
    assert.equal(isFinished(second), false)
    const helmsDone = finishService(finishService(second, 'web', { ok: true }, T(3)), 'api', { ok: true }, T(4))
    const done = succeedRun(finishStage(helmsDone, 1, T(4)), T(4))
    assert.deepEqual(phases(done), [
      ['DONE', ['db:SUCCESS']],
      ['DONE', ['web:SUCCESS', 'api:SUCCESS']],
    ])
    assert.deepEqual([done.status, done.actionStatus, done.message, done.endedAt, isFinished(done)], ['DEPLOYED', 'SUCCESS', null, T(4), true])

    const entry = environmentEntry(done)
    assert.equal(entry.total_duration, 'PT3S')
    assert.deepEqual(
      entry.stages.map((stage) => [stage.name, stage.status, stage.duration]),
      [
        ['DATABASE DEFAULT', 'DONE', 'PT1S'],
        ['HELM DEFAULT', 'DONE', 'PT2S'],
      ],
    )
    assert.deepEqual(
      entry.stages[1]!.services.map((s) => [s.identifier.name, s.status, s.status_details, s.total_duration]),
      [
        ['web', 'DEPLOYED', { action: 'DEPLOY', status: 'SUCCESS', sub_action: 'NONE' }, 'PT1S'],
        ['api', 'DEPLOYED', { action: 'DEPLOY', status: 'SUCCESS', sub_action: 'NONE' }, 'PT2S'],
      ],
    )
  })

  it('marks a failed first stage ERROR, the later stages SKIPPED with their services in their previous state, and fails the run', () => {
    const failed = finishStage(finishService(runningFirstStage(), 'db', { ok: false, message: 'boom' }, T(2)), 0, T(2))
    assert.deepEqual(phases(failed), [
      ['ERROR', ['db:ERROR']],
      ['SKIPPED', ['web:SKIPPED', 'api:SKIPPED']],
    ])
    assert.deepEqual([failed.status, failed.actionStatus, failed.endedAt], ['DEPLOYMENT_ERROR', 'ERROR', T(2)])
    assert.equal(failed.message, 'stage DATABASE DEFAULT failed: db: boom')
    assert.equal(isFinished(failed), true)
    assert.deepEqual(statusOf(failed, 'db'), { status: 'DEPLOYMENT_ERROR', actionStatus: 'ERROR' })
    assert.deepEqual(statusOf(failed, 'web'), { status: 'DEPLOYED', actionStatus: 'NEVER' })
    assert.deepEqual(statusOf(failed, 'api'), { status: 'READY', actionStatus: 'NEVER' })

    const entry = environmentEntry(failed)
    assert.deepEqual([entry.status, entry.action_status, entry.message], ['DEPLOYMENT_ERROR', 'ERROR', failed.message])
    assert.deepEqual(
      entry.stages.map((stage) => [stage.status, stage.duration]),
      [
        ['ERROR', 'PT1S'],
        ['SKIPPED', 'PT0S'],
      ],
    )
    assert.deepEqual(
      entry.stages.flatMap((stage) => stage.services.map((s) => [s.identifier.name, s.status, s.status_details.status, s.message, s.total_duration])),
      [
        ['db', 'DEPLOYMENT_ERROR', 'ERROR', 'boom', 'PT1S'],
        ['web', 'DEPLOYED', 'NEVER', null, 'PT0S'],
        ['api', 'READY', 'NEVER', null, 'PT0S'],
      ],
    )
  })

  it('fails a stage in which one service failed and another succeeded, naming only the failed one', () => {
    let run = startStage(finishStage(finishService(runningFirstStage(), 'db', { ok: true }, T(2)), 0, T(2)), 1, T(2))
    run = finishService(finishService(run, 'web', { ok: true }, T(3)), 'api', { ok: false, message: 'no' }, T(3))
    const failed = finishStage(run, 1, T(3))
    assert.deepEqual(phases(failed), [
      ['DONE', ['db:SUCCESS']],
      ['ERROR', ['web:SUCCESS', 'api:ERROR']],
    ])
    assert.equal(failed.message, 'stage HELM DEFAULT failed: api: no')
  })

  it('resumes a handed-back stage with only its unfinished services: a recorded failure stays, a restarted service keeps its first start', () => {
    let run = startStage(finishStage(finishService(runningFirstStage(), 'db', { ok: true }, T(2)), 0, T(2)), 1, T(2))
    run = finishService(run, 'api', { ok: false, message: 'no' }, T(3))
    // Handed back here: web was still running. Another runner starts the stage again.
    const resumed = startStage(run, 1, T(9))
    assert.deepEqual(phases(resumed)[1], ['ONGOING', ['web:ONGOING', 'api:ERROR']])
    assert.equal(service(resumed, 'web').startedAt, T(2))
    assert.equal(service(resumed, 'api').message, 'no')
    const ended = finishStage(finishService(resumed, 'web', { ok: true }, T(10)), 1, T(10))
    assert.equal(ended.status, 'DEPLOYMENT_ERROR', 'the failure recorded before the hand-back still fails the run')
  })

  it('uses the state words of each trigger family', () => {
    const words = (trigger: RunnableTrigger) => {
      const run = startStage(startRun(queuedRun(trigger), T(1)), 0, T(1))
      const first = run.progress.stages[0]!.services[0]!.id
      const queuedId = run.progress.stages[1]!.services[0]!.id
      const ok = finishService(run, first, { ok: true }, T(2))
      const ko = finishService(run, first, { ok: false, message: 'x' }, T(2))
      return [
        statusOf(run, queuedId).status,
        run.status,
        statusOf(run, first).status,
        statusOf(ok, first).status,
        statusOf(ko, first).status,
        environmentEntry(run).stages[0]!.services[0]!.status_details.action,
      ]
    }
    assert.deepEqual(words('DEPLOY'), ['DEPLOYMENT_QUEUED', 'DEPLOYING', 'DEPLOYING', 'DEPLOYED', 'DEPLOYMENT_ERROR', 'DEPLOY'])
    assert.deepEqual(words('RESTART'), ['RESTART_QUEUED', 'RESTARTING', 'RESTARTING', 'RESTARTED', 'RESTART_ERROR', 'RESTART'])
    assert.deepEqual(words('STOP'), ['STOP_QUEUED', 'STOPPING', 'STOPPING', 'STOPPED', 'STOP_ERROR', 'STOP'])
    assert.deepEqual(words('UNINSTALL'), ['DELETE_QUEUED', 'DELETING', 'DELETING', 'DELETED', 'DELETE_ERROR', 'DELETE'])
    assert.deepEqual(succeedRun(queuedRun('UNINSTALL'), T(1)).status, 'DELETED')
    const phaseWords: [ServicePhase, string][] = [
      ['CANCELING', 'CANCELING'],
      ['SKIPPED', 'DEPLOYED'],
    ]
    for (const [phase, status] of phaseWords) {
      const run = queuedRun('STOP')
      assert.equal(serviceStatus(run, { ...service(run, 'web'), phase }).status, status)
    }
  })
})

describe('cancel and interrupt', () => {
  it('cancelingRun marks the run and its running services CANCELING, and leaves queued ones', () => {
    const canceling = cancelingRun(runningFirstStage(), T(2))
    assert.deepEqual(
      [canceling.status, canceling.actionStatus, canceling.message, canceling.endedAt],
      ['CANCELING', 'CANCELING', 'cancel requested', null],
    )
    assert.equal(isFinished(canceling), false)
    assert.deepEqual(phases(canceling), [
      ['ONGOING', ['db:CANCELING']],
      ['QUEUED', ['web:QUEUED', 'api:QUEUED']],
    ])
    assert.deepEqual(statusOf(canceling, 'db'), { status: 'CANCELING', actionStatus: 'CANCELING' })
  })

  it('cancelRun cancels what ran and what never ran; services never reached keep their previous state', () => {
    const canceled = cancelRun(cancelingRun(runningFirstStage(), T(2)), T(3))
    assert.deepEqual([canceled.status, canceled.actionStatus, canceled.message, canceled.endedAt], ['CANCELED', 'CANCELED', 'canceled', T(3)])
    assert.equal(isFinished(canceled), true)
    assert.deepEqual(phases(canceled), [
      ['CANCELED', ['db:CANCELED']],
      ['CANCELED', ['web:CANCELED', 'api:CANCELED']],
    ])
    assert.deepEqual(
      canceled.progress.stages.map((stage) => [stage.startedAt, stage.endedAt]),
      [
        [T(1), T(3)],
        [null, null],
      ],
    )
    assert.deepEqual([service(canceled, 'db').endedAt, service(canceled, 'web').endedAt], [T(3), null])
    assert.deepEqual(statusOf(canceled, 'db'), { status: 'CANCELED', actionStatus: 'CANCELED' })
    assert.deepEqual(statusOf(canceled, 'web'), { status: 'DEPLOYED', actionStatus: 'CANCELED' })
    assert.deepEqual(statusOf(canceled, 'api'), { status: 'READY', actionStatus: 'CANCELED' })
  })

  it('cancelRun keeps the stages and services that were done', () => {
    const secondStage = startStage(finishStage(finishService(runningFirstStage(), 'db', { ok: true }, T(2)), 0, T(2)), 1, T(2))
    const canceled = cancelRun(finishService(secondStage, 'web', { ok: true }, T(3)), T(4))
    assert.deepEqual(phases(canceled), [
      ['DONE', ['db:SUCCESS']],
      ['CANCELED', ['web:SUCCESS', 'api:CANCELED']],
    ])
    assert.deepEqual(statusOf(canceled, 'web'), { status: 'DEPLOYED', actionStatus: 'SUCCESS' })
    assert.deepEqual(statusOf(canceled, 'api'), { status: 'CANCELED', actionStatus: 'CANCELED' })
  })

  it('cancelRun of a queued run: every stage CANCELED, no duration', () => {
    const canceled = cancelRun(queuedRun(), T(5))
    const entry = environmentEntry(canceled)
    assert.deepEqual([entry.status, entry.action_status, entry.total_duration], ['CANCELED', 'CANCELED', 'PT0S'])
    assert.deepEqual(
      entry.stages.map((stage) => [stage.status, stage.duration]),
      [
        ['CANCELED', 'PT0S'],
        ['CANCELED', 'PT0S'],
      ],
    )
    assert.deepEqual(
      entry.stages.flatMap((stage) => stage.services.map((s) => [s.identifier.name, s.status, s.status_details.status])),
      [
        ['db', 'READY', 'CANCELED'],
        ['web', 'DEPLOYED', 'CANCELED'],
        ['api', 'READY', 'CANCELED'],
      ],
    )
  })

  it('interruptRun fails what was running and skips what never ran', () => {
    const running = startRun(queuedRun('RESTART'), T(1))
    const interrupted = interruptRun(startStage(running, 0, T(1)), false, 'runner lost', T(4))
    assert.deepEqual(
      [interrupted.status, interrupted.actionStatus, interrupted.message, interrupted.endedAt],
      ['RESTART_ERROR', 'ERROR', 'runner lost', T(4)],
    )
    assert.deepEqual(phases(interrupted), [
      ['ERROR', ['db:ERROR']],
      ['SKIPPED', ['web:SKIPPED', 'api:SKIPPED']],
    ])
    assert.deepEqual([service(interrupted, 'db').message, service(interrupted, 'db').endedAt], ['runner lost', T(4)])
    assert.equal(interrupted.progress.stages[0]!.endedAt, T(4))
    assert.deepEqual(statusOf(interrupted, 'db'), { status: 'RESTART_ERROR', actionStatus: 'ERROR' })
    assert.deepEqual(statusOf(interrupted, 'web'), { status: 'DEPLOYED', actionStatus: 'NEVER' })

    // A canceling service of a lost runner fails too; a run asked to cancel is canceled instead.
    const canceling = cancelingRun(startStage(running, 0, T(1)), T(2))
    assert.equal(service(interruptRun(canceling, false, 'lost', T(3)), 'db').phase, 'ERROR')
    assert.deepEqual(interruptRun(canceling, true, 'lost', T(3)), cancelRun(canceling, T(3), 'canceled; lost'))
  })
})

describe('history entries', () => {
  it('renders a service entry with the fields of contract 2.6 and a running duration up to its last change', () => {
    const run = runningFirstStage()
    const later = { ...service(run, 'db'), updatedAt: T(3) }
    const entry = serviceEntry(run, later)
    assert.deepEqual(Object.keys(entry).sort(), [
      'auditing_data',
      'details',
      'icon_uri',
      'identifier',
      'message',
      'status',
      'status_details',
      'total_duration',
    ])
    assert.deepEqual(entry.identifier, { name: 'db', service_id: 'db', service_type: 'DATABASE', execution_id: run.id })
    assert.deepEqual(entry.auditing_data, { created_at: T(0), updated_at: T(3), triggered_by: 'API token ci', origin: 'API' })
    assert.deepEqual(entry.details, { repository: { chart_name: 'db', chart_version: '1.0.0' } })
    assert.equal(entry.icon_uri, 'app://berth/database')
    assert.equal(entry.total_duration, 'PT2S')

    const environment = environmentEntry({ ...run, updatedAt: T(2) })
    assert.deepEqual(environment.identifier, { execution_id: run.id, environment_id: run.environmentId })
    assert.equal(environment.trigger_action, 'DEPLOY')
    assert.equal(environment.total_duration, 'PT1S', 'a running deployment lasts until its last change')
  })
})

describe('isoDuration', () => {
  it('writes ISO 8601 durations', () => {
    const cases: [number, string][] = [
      [0, 'PT0S'],
      [-5, 'PT0S'],
      [0.4, 'PT0S'],
      [1, 'PT0.001S'],
      [999.6, 'PT1S'],
      [1500, 'PT1.5S'],
      [59_999, 'PT59.999S'],
      [60_000, 'PT1M'],
      [61_000, 'PT1M1S'],
      [3_600_000, 'PT1H'],
      [3_660_000, 'PT1H1M'],
      [3_600_500, 'PT1H0.5S'],
      [3_723_004, 'PT1H2M3.004S'],
      [90_000_000, 'PT25H'],
    ]
    for (const [ms, expected] of cases) assert.equal(isoDuration(ms), expected, `${ms} ms`)
  })

  it('measures elapsed time up to the end, or up to now for what still runs', () => {
    assert.equal(elapsedMs(null, null, T(5)), 0)
    assert.equal(elapsedMs(null, T(3), T(5)), 0)
    assert.equal(elapsedMs(T(1), T(3), T(5)), 2000)
    assert.equal(elapsedMs(T(1), null, T(5)), 4000)
    assert.equal(elapsedMs(new Date(T(1)), null, new Date(T(2))), 1000)
  })
})

describe('deployment plan of a helm service', () => {
  const helm = (overrides: Partial<HelmServiceRecord> = {}): HelmServiceRecord =>
    ({
      id: randomUUID(),
      name: 'web',
      iconUri: 'app://berth/helm',
      version: 7,
      source: { helmRepository: { repositoryId: randomUUID(), chartName: 'web', chartVersion: '1.2.3' } },
      valuesOverride: { set: [], setString: [], setJson: [], file: null },
      ...overrides,
    }) as HelmServiceRecord
  const failing = (set: [string, string][], setString: [string, string][] = []) =>
    helm({ valuesOverride: { set, setString, setJson: [], file: null } })

  it('fails the actions berth.simulate.fail names: true for all, else a comma list', () => {
    const failed = (record: HelmServiceRecord) => (['DEPLOY', 'RESTART', 'STOP', 'UNINSTALL'] as const).filter((t) => simulatesFailure(record, t))
    assert.deepEqual(failed(helm()), [])
    assert.deepEqual(failed(failing([['berth.simulate.fail', 'true']])), ['DEPLOY', 'RESTART', 'STOP', 'UNINSTALL'])
    assert.deepEqual(failed(failing([['berth.simulate.fail', ' TRUE ']])), ['DEPLOY', 'RESTART', 'STOP', 'UNINSTALL'])
    assert.deepEqual(failed(failing([['berth.simulate.fail', 'stop, Uninstall']])), ['STOP', 'UNINSTALL'])
    assert.deepEqual(failed(failing([], [['berth.simulate.fail', 'restart']])), ['RESTART'])
    assert.deepEqual(failed(failing([['berth.simulate.fail', 'false']])), [])
    assert.deepEqual(failed(failing([['other.key', 'true']])), [])
  })

  it('details the chart and version of a helm repository, or the commit a request names for a git chart', () => {
    assert.deepEqual(helmDetails(helm(), {}), { repository: { chart_name: 'web', chart_version: '1.2.3' } })
    assert.deepEqual(helmDetails(helm(), { chartVersion: '2.0.0' }), { repository: { chart_name: 'web', chart_version: '2.0.0' } })
    const git = helm({ source: { git: {} as never } })
    assert.deepEqual(helmDetails(git, {}), { commit: null })
    // Nothing of the commit is known but its id: no made-up author, message or date.
    assert.deepEqual(helmDetails(git, { gitCommitId: 'abc' }), { commit: null, git_commit_id: 'abc' })
  })

  it('plans a helm service with its version, icon and failure setting', () => {
    const record = failing([['berth.simulate.fail', 'deploy']])
    const plannedHelm = (helm: HelmServiceRecord, trigger: RunnableTrigger, overrides: object): PlannedService =>
      plannedService(helmPlanning, { id: helm.id, name: helm.name, version: helm.version, configuration: helm }, trigger, overrides)
    assert.deepEqual(plannedHelm(record, 'DEPLOY', {}), {
      id: record.id,
      name: 'web',
      type: 'HELM',
      iconUri: 'app://berth/helm',
      details: { repository: { chart_name: 'web', chart_version: '1.2.3' } },
      version: 7,
      simulateFailure: true,
    })
    assert.equal(plannedHelm(record, 'STOP', {}).simulateFailure, false)
  })
})
