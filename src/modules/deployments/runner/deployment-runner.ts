import { randomUUID } from 'node:crypto'
import os from 'node:os'
import { setTimeout as sleep } from 'node:timers/promises'
import type { DeploymentExecutor, ExecutionContext } from '#src/modules/executors/executor.ts'
import type { ServiceKinds, ServiceSnapshot } from '#src/modules/services/service-kinds.ts'
import { variableNames } from '#src/modules/variables/resolved-variables.ts'
import type { RunnableTrigger } from '#src/platform/deployment-states.ts'
import { repeatedFailure } from '#src/platform/repeated-failure.ts'
import { type SpanLog, spanLine, spans } from '#src/platform/spans.ts'
import {
  cancelingRun,
  cancelRun,
  type DeploymentRun,
  finishService,
  finishStage,
  INTERRUPTED,
  interruptRun,
  isFinished,
  startRun,
  startStage,
  succeedRun,
} from '../queue/deployment-progress.ts'
import type { StoredRun } from '../queue/environment-queue.ts'
import type { DeploymentRunsRepository, NewLogLine } from './deployment-runs.repository.ts'

export interface RunnerOptions {
  /** How long a claim lasts without renewal; a runner silent for longer is taken for lost. */
  leaseMs: number
  /** How often an idle runner looks for work, and a busy one renews its leases and looks for cancels. */
  pollMs: number
  /** How many runs (of different environments) one runner works on at once. */
  concurrency: number
  /**
   * How many of them one organization's runs may take (default: half, at least one): another
   * organization's run always finds a slot promptly, on every runner sharing the queue.
   */
  slotsPerOrganization?: number
  /** The longest a run may take from its start; it then fails with what was running stopped. Absent: no bound. */
  maxRunMs?: number
  /** How long stopping what runs takes when a run is canceled. */
  cancelMs: number
  /** How long deployment log lines are kept; a runner deletes older ones now and then. */
  logRetentionMs?: number
}

export interface RunnerLog {
  info(fields: object, message: string): void
  warn(fields: object, message: string): void
  /** Debug lines: the time each step of a deployment took (docs/performance.md, "Where a deploy's time goes"). */
  debug?: SpanLog['debug']
  isLevelEnabled?: SpanLog['isLevelEnabled']
}

/** Why a run's work stopped before its end. */
const CANCEL = 'cancel'
const LOST = 'lost'
const HAND_BACK = 'hand back'
const TIMED_OUT = 'timed out'
type StopReason = typeof CANCEL | typeof LOST | typeof HAND_BACK | typeof TIMED_OUT

/**
 * How far this host's clock may drift from the database's before steps are stamped with a
 * correction. Below it, the local clock is closer than an estimate made over a round trip.
 */
const CLOCK_TOLERANCE_MS = 1_000
/** How often the offset is measured again, and the longest round trip a measurement may take. */
const CLOCK_CHECK_MS = 60_000
const CLOCK_MAX_ROUND_TRIP_MS = 100
/** The longest wait between two attempts to save a step while the database is unreachable. */
const SAVE_RETRY_MS = 500

/** The longest a runner waits between two looks for cron ticks that came (it looks at every poll when polls are closer). */
const SCHEDULE_CHECK_MS = 1_000
/** The most cron ticks one look fires, in one transaction. */
const SCHEDULE_BATCH = 20

/** How often a runner deletes the log lines past their retention. */
const LOG_PRUNE_EVERY_MS = 3_600_000

/** A step the database refused: the run was lost, or a cancel came first. */
class StepRefused extends Error {}

/** Executors by the name a cluster gives (`clusters.executor`). */
export type Executors = Readonly<Record<string, DeploymentExecutor>>

/**
 * Works through the deployment queue that every Berth process shares through PostgreSQL: claims
 * runs with FOR UPDATE SKIP LOCKED and a lease it renews, runs their stages in order with the
 * executor, and writes every step. A run whose runner was lost is ended as interrupted by the next
 * claim; `stop` hands unfinished runs back for another runner to resume.
 */
export function createDeploymentRunner(deps: {
  runs: DeploymentRunsRepository
  /** One executor for every environment, or executors by their clusters' `executor`. */
  executor: DeploymentExecutor | Executors
  options: RunnerOptions
  log: RunnerLog
  /** The kinds whose plans executors follow and whose jobs cron fires: the runner names none itself. */
  kinds: ServiceKinds
  /** The executor the organizations' default clusters deploy with (BERTH_EXECUTOR); SIMULATED by default. */
  defaultExecutor?: string
}) {
  const { runs, options, log, kinds } = deps
  const fixedExecutor = typeof deps.executor.run === 'function' ? (deps.executor as DeploymentExecutor) : undefined
  const executors = (fixedExecutor ? {} : deps.executor) as Executors
  let lastPruneAt = Number.NEGATIVE_INFINITY
  const runnerId = `${os.hostname()}/${process.pid}/${randomUUID().slice(0, 8)}`
  const working = new Map<string, { organizationId: string; controller: AbortController; done: Promise<void> }>()
  const slotsPerOrganization = options.slotsPerOrganization ?? Math.max(1, Math.floor(options.concurrency / 2))
  /** The organizations whose runs hold their share of this runner's slots: none of theirs is claimed until one ends. */
  const organizationsAtShare = (): string[] => {
    const held = new Map<string, number>()
    for (const { organizationId } of working.values()) held.set(organizationId, (held.get(organizationId) ?? 0) + 1)
    return [...held].filter(([, count]) => count >= slotsPerOrganization).map(([organizationId]) => organizationId)
  }
  const timedOutMessage = () =>
    `timed out: the run took longer than ${Math.round((options.maxRunMs ?? 0) / 1000)} s, the longest a run may take (BERTH_RUNNER_MAX_RUN_MS)`
  let stopping = false
  let loop: Promise<void> | undefined
  let wakeUp: (() => void) | undefined

  const idle = () =>
    new Promise<void>((resolve) => {
      if (stopping) return resolve()
      const timer = setTimeout(resolve, options.pollMs)
      wakeUp = () => {
        clearTimeout(timer)
        resolve()
      }
    })

  // The entry says what happened; which runner (host and pid) is for the operators' logs.
  const interrupt = (stored: StoredRun, at: string) => interruptRun(stored.run, stored.cancelRequested, INTERRUPTED, at)
  // Steps are stamped with the local clock, corrected when it is far from the database's (which
  // stamps creation times). Stamps never go back.
  let clockOffsetMs = 0
  let clockCheckedAt = Number.NEGATIVE_INFINITY
  let lastStampMs = 0
  const now = () => {
    lastStampMs = Math.max(lastStampMs, Date.now() + clockOffsetMs)
    return new Date(lastStampMs).toISOString()
  }
  async function checkClock(): Promise<void> {
    if (Date.now() - clockCheckedAt < CLOCK_CHECK_MS) return
    const offset = await runs.clockOffset(CLOCK_MAX_ROUND_TRIP_MS)
    if (offset === undefined) return // a slow answer: try again next time
    clockCheckedAt = Date.now()
    clockOffsetMs = Math.abs(offset) > CLOCK_TOLERANCE_MS ? offset : 0
  }

  /**
   * Saves a step, trying again while the database is unreachable: an outage shorter than the lease
   * leaves the run to go on where it was. Past the lease the run is another runner's to end.
   */
  async function saveRetrying(next: DeploymentRun, signal: AbortSignal): ReturnType<DeploymentRunsRepository['save']> {
    const giveUpAt = Date.now() + options.leaseMs
    for (;;) {
      try {
        return await runs.save(next, runnerId, options.leaseMs, kinds)
      } catch (error) {
        if (signal.aborted || Date.now() >= giveUpAt) throw error
        log.warn({ err: error, executionId: next.id }, 'could not save a deployment step; will retry')
        await sleep(Math.min(options.pollMs, SAVE_RETRY_MS))
      }
    }
  }

  /** The executor of the run's environment, by its cluster; the one given when the runner has one. */
  async function executorFor(environmentId: string): Promise<DeploymentExecutor | string> {
    if (fixedExecutor) return fixedExecutor
    const name = (await runs.executorOf(environmentId)) ?? deps.defaultExecutor ?? 'SIMULATED'
    return executors[name] ?? `no ${name} executor runs in this Berth process`
  }

  async function execute(stored: StoredRun, controller: AbortController): Promise<void> {
    const { signal } = controller
    let run = stored.run
    const traceLog = log.debug ? (log as SpanLog) : undefined
    const traced = { executionId: run.id }
    const span = spans(traceLog, traced)
    const claimedAt = performance.now()
    // From the trigger (the run's creation, the database's clock) to this claim: the queue's pick-up.
    if (run.actionStatus === 'QUEUED') spanLine(traceLog, traced, 'queue pick-up', Date.now() + clockOffsetMs - Date.parse(run.createdAt))
    let writes: Promise<void> = Promise.resolve()
    // Log lines wait here and are written with the next step, and at the end.
    let lines: NewLogLine[] = []
    // A line is timed when it was said (or printed, when the executor knows), not when written.
    const writeLog = (
      serviceId: string | null,
      stageName: string | null,
      step: string,
      message: string,
      level: NewLogLine['level'] = 'INFO',
      at: Date = new Date(),
    ) =>
      lines.push({
        createdAt: at,
        executionId: run.id,
        organizationId: run.organizationId,
        environmentId: run.environmentId,
        serviceId,
        stageName,
        step,
        level,
        message,
      })
    // One write of lines at a time, so that line ids grow in the order lines were written and a
    // follower reading "after line n" never misses one committed late.
    let flushed: Promise<void> = Promise.resolve()
    const flushLogs = (): Promise<void> => {
      flushed = flushed.then(async () => {
        const pending = lines
        lines = []
        if (pending.length === 0) return
        await runs
          .appendLogs(pending)
          .catch((error: unknown) => log.warn({ err: error, executionId: run.id }, 'could not write deployment log lines'))
      })
      return flushed
    }
    const stop = (reason: StopReason) => {
      if (!signal.aborted) controller.abort(reason)
    }
    /** Applies a step to the latest run and writes it; steps apply one at a time, in call order. */
    const apply = (step: (current: DeploymentRun) => DeploymentRun): Promise<void> => {
      const write = writes.then(async () => {
        const next = step(run)
        // The last line goes before the step that ends the run: a follower that sees the run
        // finished has every line.
        if (isFinished(next) && !isFinished(run)) {
          const level = next.actionStatus === 'ERROR' ? 'ERROR' : 'INFO'
          writeLog(null, null, 'end', next.message ?? `${next.triggerAction.toLowerCase()} succeeded`, level)
        }
        await span('log lines write', flushLogs)
        const saved = await span(`history write (${next.actionStatus.toLowerCase()} ${next.status.toLowerCase()})`, () => saveRetrying(next, signal))
        if (saved !== 'saved') {
          stop(saved === 'lost' ? LOST : CANCEL)
          throw new StepRefused(saved)
        }
        run = next
      })
      writes = write.catch(() => {})
      return write
    }
    const heartbeat = setInterval(
      () => {
        // What the executor said since the last step reaches followers without waiting for the next one.
        void flushLogs()
        runs.renew(run.id, runnerId, options.leaseMs).then(
          (renewed) => {
            if (renewed === 'lost') stop(LOST)
            else if (renewed.cancelRequested) stop(CANCEL)
          },
          (error: unknown) => log.warn({ err: error, executionId: run.id }, 'could not renew a deployment lease; will retry'),
        )
      },
      Math.min(options.pollMs, options.leaseMs / 3),
    )
    // Every run ends within maxRunMs of its start (a resumed run: its first start), whatever its services' own timeouts.
    const startedMs = run.startedAt === null ? Date.now() : Date.parse(run.startedAt)
    const deadline =
      options.maxRunMs === undefined ? undefined : setTimeout(() => stop(TIMED_OUT), Math.max(0, startedMs + options.maxRunMs - Date.now()))

    try {
      if (stored.cancelRequested || run.actionStatus === 'CANCELING') stop(CANCEL)
      else {
        const [executor, snapshots] = await span('snapshot', () => Promise.all([executorFor(run.environmentId), runs.snapshots(run.id)]))
        const action = run.triggerAction
        if (run.actionStatus === 'QUEUED') {
          writeLog(null, null, 'start', `${action.toLowerCase()} of ${run.progress.stages.length} stage(s) triggered by ${run.triggeredBy}`)
          await apply((current) => startRun(current, now()))
        }
        for (const [index, stage] of run.progress.stages.entries()) {
          // Done in a resumed run, or left with nothing to run.
          if (stage.status === 'DONE' || stage.status === 'SKIPPED') continue
          signal.throwIfAborted()
          writeLog(null, stage.name, 'stage', `stage ${stage.name} started`)
          await apply((current) => startStage(current, index, now()))
          const services = run.progress.stages[index]!.services.filter((service) => service.phase === 'ONGOING')
          await Promise.all(
            services.map(async (service) => {
              const snapshot = snapshots.get(service.id)
              const say = (step: string, message: string, level?: NewLogLine['level'], at?: Date) =>
                writeLog(service.id, stage.name, step, message, level, at)
              say('start', `${action.toLowerCase()} of ${service.type.toLowerCase()} ${service.name} started`)
              const outcome =
                typeof executor === 'string'
                  ? { ok: false as const, message: executor }
                  : await span(`executor (${service.name})`, () =>
                      executor.run(service, action, signal, {
                        ...context(snapshot, action, say),
                        run: { id: run.id, organizationId: run.organizationId, environmentId: run.environmentId },
                      }),
                    )
              // What the executor answers once the run's time is up says so, whatever it says.
              if (signal.reason === TIMED_OUT) throw new StepRefused(TIMED_OUT)
              say(
                'end',
                outcome.ok ? `${service.name}: ${action.toLowerCase()} succeeded` : `${service.name}: ${outcome.message}`,
                outcome.ok ? 'INFO' : 'ERROR',
              )
              if (outcome.output && typeof runs.keepOutput === 'function') await runs.keepOutput(service.id, run.id, outcome.output)
              const { output: _output, ...finished } = outcome
              await apply((current) => finishService(current, service.id, finished, now()))
            }),
          )
          await apply((current) => finishStage(current, index, now()))
          if (isFinished(run)) break
        }
        if (!isFinished(run)) await apply((current) => succeedRun(current, now()))
      }
    } catch (error) {
      if (!signal.aborted) {
        // A database outage or a bug: leave the run; once its lease expires it ends as interrupted.
        log.warn({ err: error, executionId: run.id }, 'a deployment stopped unexpectedly')
        return
      }
    } finally {
      clearInterval(heartbeat)
      clearTimeout(deadline)
    }
    await writes
    await flushLogs()
    // A run whose last write went through is finished, whatever a stop came after it (a renewal
    // answered 'lost' once that write had cleared the lease, a stop handing back).
    if (!signal.aborted || isFinished(run)) {
      spanLine(traceLog, traced, 'claimed to finished', performance.now() - claimedAt)
      log.info({ executionId: run.id, environmentId: run.environmentId, status: run.status }, 'deployment finished')
      return
    }
    const reason = signal.reason as StopReason
    if (reason === LOST) {
      log.warn(
        { executionId: run.id },
        'a deployment was taken from this runner (its lease expired, a cancel ended it, or its environment was deleted)',
      )
    } else if (reason === HAND_BACK) {
      await runs.release(run.id, runnerId)
    } else if (reason === TIMED_OUT) {
      const message = timedOutMessage()
      writeLog(null, null, 'timeout', message, 'ERROR')
      log.warn({ executionId: run.id, environmentId: run.environmentId, maxRunMs: options.maxRunMs }, 'a deployment took too long; it failed')
      await flushLogs()
      try {
        await runs.save(interruptRun(run, false, message, now()), runnerId, options.leaseMs, kinds)
      } catch (error) {
        log.warn({ err: error, executionId: run.id }, 'could not end a deployment that took too long; its lease will expire')
      }
    } else {
      writeLog(null, null, 'cancel', 'cancel requested: stopping what runs')
      await finishCancel(() => run, apply)
      await flushLogs()
    }
  }

  /** What an executor gets for a service: its snapshot, its kind's plan, and where to write. */
  function context(snapshot: ServiceSnapshot | undefined, action: RunnableTrigger, say: ExecutionContext['log']): ExecutionContext {
    const kind = snapshot && kinds.get(snapshot.kind)
    if (!kind || !snapshot) return { snapshot, plan: [], log: say }
    const plan = kind.plan(snapshot, action)
    // Whatever the kind, what a service is deployed with is named (never a value).
    const delivers = action === 'DEPLOY' || action === 'DEPLOY_DRY_RUN' || action === 'RESTART'
    return {
      snapshot,
      plan: delivers ? [{ step: 'variables', lines: [`variables: ${variableNames(snapshot.variables)}`] }, ...plan] : plan,
      log: say,
    }
  }

  /** A canceled run goes through CANCELING while what runs is stopped, then ends CANCELED. */
  async function finishCancel(current: () => DeploymentRun, apply: (step: (run: DeploymentRun) => DeploymentRun) => Promise<void>) {
    try {
      if (current().actionStatus !== 'CANCELING') await apply((run) => cancelingRun(run, now()))
      await sleep(options.cancelMs)
      await apply((run) => cancelRun(run, now()))
      log.info({ executionId: current().id }, 'deployment canceled')
    } catch (error) {
      if (!(error instanceof StepRefused))
        log.warn({ err: error, executionId: current().id }, 'could not finish canceling a deployment; its lease will expire')
    }
  }

  function begin(stored: StoredRun): void {
    const controller = new AbortController()
    const done = execute(stored, controller)
      .catch((error: unknown) => log.warn({ err: error, executionId: stored.run.id }, 'a deployment stopped unexpectedly'))
      .finally(() => {
        working.delete(stored.run.id)
        wakeUp?.()
      })
    working.set(stored.run.id, { organizationId: stored.run.organizationId, controller, done })
  }

  /** Deletes the log lines past their retention, at most once an hour per runner. */
  async function pruneLogs(): Promise<void> {
    if (options.logRetentionMs === undefined || Date.now() - lastPruneAt < LOG_PRUNE_EVERY_MS) return
    lastPruneAt = Date.now()
    const pruned = await runs.pruneLogs(options.logRetentionMs)
    if (pruned > 0) log.info({ pruned }, 'deleted deployment log lines past their retention')
  }

  /**
   * Queues the runs of cron jobs whose tick came (runner/cron-firing.ts), whether or not this
   * runner has room to run them: any runner may. True when it queued some.
   */
  let lastScheduleCheckAt = Number.NEGATIVE_INFINITY
  // A database outage fails both polls until it ends: told once for the runner, not at every retry.
  const polls = repeatedFailure((error) => log.warn({ err: error }, 'could not look for deployments or cron jobs to run; will retry'))

  async function fireSchedules(): Promise<boolean> {
    // A stand-in repository without schedules (some tests') leaves them out.
    if (typeof runs.fireDueSchedules !== 'function') return false
    if (Date.now() - lastScheduleCheckAt < Math.min(options.pollMs, SCHEDULE_CHECK_MS)) return false
    lastScheduleCheckAt = Date.now()
    try {
      const fired = await runs.fireDueSchedules(SCHEDULE_BATCH, kinds, log)
      polls.succeeded()
      if (fired > 0) log.info({ fired }, 'queued the runs of cron jobs whose tick came')
      return fired > 0
    } catch (error) {
      polls.failed(error)
      return false
    }
  }

  /** Lets the executor of an interrupted run's environment clean up what the lost runner left half-made. */
  async function tidyAbandoned(run: DeploymentRun): Promise<void> {
    try {
      const executor = await executorFor(run.environmentId)
      if (typeof executor === 'string' || !executor.abandoned) return
      // What it did is said in the run's own log too: its history then tells how it ended.
      const said: NewLogLine[] = []
      await executor.abandoned({ id: run.id, environmentId: run.environmentId }, (message) => {
        log.info({ executionId: run.id, environmentId: run.environmentId }, message)
        said.push({
          executionId: run.id,
          organizationId: run.organizationId,
          environmentId: run.environmentId,
          serviceId: null,
          stageName: null,
          step: 'recovery',
          level: 'WARNING',
          message,
          createdAt: new Date(),
        })
      })
      await runs.appendLogs(said)
    } catch (error) {
      // What is left is found by label by the service's next deployment.
      log.warn({ err: error, executionId: run.id }, 'could not clean up after a deployment whose runner was lost')
    }
  }

  async function work(): Promise<void> {
    while (!stopping) {
      await fireSchedules()
      if (working.size < options.concurrency) {
        try {
          await checkClock()
          await pruneLogs()
          const claimStarted = performance.now()
          const claimed = await runs.claim(runnerId, options.leaseMs, interrupt, organizationsAtShare())
          polls.succeeded()
          if (claimed.kind === 'claimed' && log.debug)
            spanLine(log as SpanLog, { executionId: claimed.stored.run.id }, 'claim', performance.now() - claimStarted)
          if (claimed.kind === 'interrupted') {
            log.warn(
              { executionId: claimed.run.id, environmentId: claimed.run.environmentId, lostRunner: claimed.lostRunner },
              'ended a deployment whose runner was lost',
            )
            await tidyAbandoned(claimed.run)
            continue
          }
          if (claimed.kind === 'claimed') {
            begin(claimed.stored)
            continue
          }
        } catch (error) {
          polls.failed(error)
        }
      }
      await idle()
    }
  }

  return {
    runnerId,
    start(): void {
      loop ??= work()
    },
    /** Looks for work now rather than at the next poll. */
    wake(): void {
      wakeUp?.()
    },
    /** Stops claiming and hands the runs under way back, unfinished, for another runner to resume. */
    async stop(): Promise<void> {
      stopping = true
      wakeUp?.()
      // A claim under way ends first, so that the run it takes is handed back with the others.
      await loop
      for (const { controller } of working.values()) controller.abort(HAND_BACK)
      await Promise.all([...working.values()].map((entry) => entry.done))
    },
  }
}

export type DeploymentRunner = ReturnType<typeof createDeploymentRunner>
