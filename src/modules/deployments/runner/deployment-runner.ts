import { randomUUID } from 'node:crypto'
import os from 'node:os'
import { repeatedFailure } from '#src/platform/repeated-failure.ts'
import { type SpanLog, spanLine } from '#src/platform/spans.ts'
import { type DeploymentRun, INTERRUPTED, interruptRun } from '../queue/deployment-progress.ts'
import type { StoredRun } from '../queue/environment-queue.ts'
import type { NewLogLine } from './deployment-runs.repository.ts'
import { createRunExecution } from './run-execution.ts'
import { HAND_BACK } from './run-stops.ts'
import { createRunnerClock } from './runner-clock.ts'
import type { DeploymentRunnerDeps } from './runner-deps.ts'
import { createRunnerExecutors } from './runner-executors.ts'

// The deployment runner's claim loop: it claims runs while it has room, hands each to its run
// (run-execution.ts), fires cron ticks that came, prunes old log lines, and hands runs back on stop.

export type { Executors, RunnerLog, RunnerOptions } from './runner-deps.ts'

/** The longest a runner waits between two looks for cron ticks that came (it looks at every poll when polls are closer). */
const SCHEDULE_CHECK_MS = 1_000
/** The most cron ticks one look fires, in one transaction. */
const SCHEDULE_BATCH = 20

/** How often a runner deletes the log lines past their retention. */
const LOG_PRUNE_EVERY_MS = 3_600_000

/**
 * Works through the deployment queue that every Berth process shares through PostgreSQL: claims
 * runs with FOR UPDATE SKIP LOCKED and a lease it renews, runs their stages in order with the
 * executor, and writes every step. A run whose runner was lost is ended as interrupted by the next
 * claim; `stop` hands unfinished runs back for another runner to resume.
 */
export function createDeploymentRunner(deps: DeploymentRunnerDeps) {
  const { runs, options, log, kinds } = deps
  const runnerId = `${os.hostname()}/${process.pid}/${randomUUID().slice(0, 8)}`
  const clock = createRunnerClock(runs)
  const executors = createRunnerExecutors(deps)
  const execution = createRunExecution({ runs, options, log, kinds, runnerId, clock, executors })
  let lastPruneAt = Number.NEGATIVE_INFINITY
  const working = new Map<string, { organizationId: string; controller: AbortController; done: Promise<void> }>()
  const slotsPerOrganization = options.slotsPerOrganization ?? Math.max(1, Math.floor(options.concurrency / 2))
  /** The organizations whose runs hold their share of this runner's slots: none of theirs is claimed until one ends. */
  const organizationsAtShare = (): string[] => {
    const held = new Map<string, number>()
    for (const { organizationId } of working.values()) held.set(organizationId, (held.get(organizationId) ?? 0) + 1)
    return [...held].filter(([, count]) => count >= slotsPerOrganization).map(([organizationId]) => organizationId)
  }
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

  function begin(stored: StoredRun): void {
    const controller = new AbortController()
    const done = execution
      .execute(stored, controller)
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
      const executor = await executors.executorFor(run.environmentId)
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
          await clock.check()
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
