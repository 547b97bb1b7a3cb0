import { randomUUID } from 'node:crypto'
import os from 'node:os'
import { setTimeout as sleep } from 'node:timers/promises'
import type { Config } from '#src/config.ts'
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
} from './deployment-progress.ts'
import type { DeploymentRunsRepository, StoredRun } from './deployment-runs.repository.ts'
import { createSimulatedExecutor, type DeploymentExecutor } from './simulated-executor.ts'

export interface RunnerOptions {
  /** How long a claim lasts without renewal; a runner silent for longer is taken for lost. */
  leaseMs: number
  /** How often an idle runner looks for work, and a busy one renews its leases and looks for cancels. */
  pollMs: number
  /** How many runs (of different environments) one runner works on at once. */
  concurrency: number
  /** How long stopping what runs takes when a run is canceled. */
  cancelMs: number
}

interface RunnerLog {
  info(fields: object, message: string): void
  warn(fields: object, message: string): void
}

/** Why a run's work stopped before its end. */
const CANCEL = 'cancel'
const LOST = 'lost'
const HAND_BACK = 'hand back'
type StopReason = typeof CANCEL | typeof LOST | typeof HAND_BACK

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

/** A step the database refused: the run was lost, or a cancel came first. */
class StepRefused extends Error {}

/**
 * Works through the deployment queue that every Berth process shares through PostgreSQL: claims
 * runs with FOR UPDATE SKIP LOCKED and a lease it renews, runs their stages in order with the
 * executor, and writes every step. A run whose runner was lost is ended as interrupted by the next
 * claim; `stop` hands unfinished runs back for another runner to resume.
 */
export function createDeploymentRunner(deps: {
  runs: DeploymentRunsRepository
  executor: DeploymentExecutor
  options: RunnerOptions
  log: RunnerLog
}) {
  const { runs, executor, options, log } = deps
  const runnerId = `${os.hostname()}/${process.pid}/${randomUUID().slice(0, 8)}`
  const working = new Map<string, { controller: AbortController; done: Promise<void> }>()
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
        return await runs.save(next, runnerId, options.leaseMs)
      } catch (error) {
        if (signal.aborted || Date.now() >= giveUpAt) throw error
        log.warn({ err: error, executionId: next.id }, 'could not save a deployment step; will retry')
        await sleep(Math.min(options.pollMs, SAVE_RETRY_MS))
      }
    }
  }

  async function execute(stored: StoredRun, controller: AbortController): Promise<void> {
    const { signal } = controller
    let run = stored.run
    let writes: Promise<void> = Promise.resolve()
    const stop = (reason: StopReason) => {
      if (!signal.aborted) controller.abort(reason)
    }
    /** Applies a step to the latest run and writes it; steps apply one at a time, in call order. */
    const apply = (step: (current: DeploymentRun) => DeploymentRun): Promise<void> => {
      const write = writes.then(async () => {
        const next = step(run)
        const saved = await saveRetrying(next, signal)
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

    try {
      if (stored.cancelRequested || run.actionStatus === 'CANCELING') stop(CANCEL)
      else {
        if (run.actionStatus === 'QUEUED') await apply((current) => startRun(current, now()))
        for (const [index, stage] of run.progress.stages.entries()) {
          if (stage.status === 'DONE') continue // a resumed run
          signal.throwIfAborted()
          await apply((current) => startStage(current, index, now()))
          const services = run.progress.stages[index]!.services.filter((service) => service.phase === 'ONGOING')
          await Promise.all(
            services.map(async (service) => {
              const outcome = await executor.run(service, run.triggerAction, signal)
              await apply((current) => finishService(current, service.id, outcome, now()))
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
    }
    await writes
    // A run whose last write went through is finished, whatever a stop came after it (a renewal
    // answered 'lost' once that write had cleared the lease, a stop handing back).
    if (!signal.aborted || isFinished(run)) {
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
    } else {
      await finishCancel(() => run, apply)
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
    working.set(stored.run.id, { controller, done })
  }

  async function work(): Promise<void> {
    while (!stopping) {
      if (working.size < options.concurrency) {
        try {
          await checkClock()
          const claimed = await runs.claim(runnerId, options.leaseMs, interrupt)
          if (claimed.kind === 'interrupted') {
            log.warn(
              { executionId: claimed.run.id, environmentId: claimed.run.environmentId, lostRunner: claimed.lostRunner },
              'ended a deployment whose runner was lost',
            )
            continue
          }
          if (claimed.kind === 'claimed') {
            begin(claimed.stored)
            continue
          }
        } catch (error) {
          log.warn({ err: error }, 'could not look for deployments to run; will retry')
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

/** The runner Berth processes run: the simulated executor, settings from BERTH_RUNNER_* and BERTH_SIMULATED_STEP_MS. */
export function createConfiguredRunner(runs: DeploymentRunsRepository, settings: Config['runner'], log: RunnerLog): DeploymentRunner {
  return createDeploymentRunner({
    runs,
    executor: createSimulatedExecutor({ stepMs: settings.simulatedStepMs }),
    options: {
      leaseMs: settings.leaseMs,
      pollMs: settings.pollMs,
      concurrency: settings.concurrency,
      cancelMs: Math.min(settings.simulatedStepMs / 2, 5_000),
    },
    log,
  })
}
