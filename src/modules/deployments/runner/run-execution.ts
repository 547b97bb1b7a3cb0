import { setTimeout as sleep } from 'node:timers/promises'
import type { ExecutionContext } from '#src/modules/executors/executor.ts'
import type { ServiceSnapshot } from '#src/modules/services/service-kinds.ts'
import { variableNames } from '#src/modules/variables/resolved-variables.ts'
import type { RunnableTrigger } from '#src/platform/deployment-states.ts'
import { type Span, type SpanLog, spanLine, spans } from '#src/platform/spans.ts'
import {
  cancelingRun,
  cancelRun,
  finishService,
  finishStage,
  interruptRun,
  isFinished,
  startRun,
  startStage,
  succeedRun,
} from '../queue/deployment-progress.ts'
import type { StoredRun } from '../queue/environment-queue.ts'
import type { NewLogLine } from './deployment-runs.repository.ts'
import { CANCEL, HAND_BACK, LOST, StepRefused, type StopReason, TIMED_OUT } from './run-stops.ts'
import { createRunWrites, type RunWrites } from './run-writes.ts'
import type { RunnerClock } from './runner-clock.ts'
import type { DeploymentRunnerDeps } from './runner-deps.ts'
import type { RunnerExecutors } from './runner-executors.ts'

// The run of one claimed deployment: its stages in order, each service with its executor, under a
// lease renewed by a heartbeat, and how it ends (finished, canceled, timed out, lost, handed back).

export type RunExecutionDeps = Pick<DeploymentRunnerDeps, 'runs' | 'options' | 'log' | 'kinds'> & {
  runnerId: string
  clock: RunnerClock
  executors: RunnerExecutors
}

export type RunExecution = ReturnType<typeof createRunExecution>

export function createRunExecution(deps: RunExecutionDeps) {
  const { runs, options, log, kinds, runnerId, clock, executors } = deps
  const timedOutMessage = () =>
    `timed out: the run took longer than ${Math.round((options.maxRunMs ?? 0) / 1000)} s, the longest a run may take (BERTH_RUNNER_MAX_RUN_MS)`

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
  async function finishCancel({ current, apply }: RunWrites) {
    try {
      if (current().actionStatus !== 'CANCELING') await apply((run) => cancelingRun(run, clock.now()))
      await sleep(options.cancelMs)
      await apply((run) => cancelRun(run, clock.now()))
      log.info({ executionId: current().id }, 'deployment canceled')
    } catch (error) {
      if (!(error instanceof StepRefused))
        log.warn({ err: error, executionId: current().id }, 'could not finish canceling a deployment; its lease will expire')
    }
  }

  /** Runs the stages still to run, each stage's services side by side, writing every step. */
  async function runStages(stored: StoredRun, writes: RunWrites, signal: AbortSignal, span: Span): Promise<void> {
    const { current: run, writeLog, apply } = writes
    const [executor, snapshots] = await span('snapshot', () =>
      Promise.all([executors.executorFor(stored.run.environmentId), runs.snapshots(stored.run.id)]),
    )
    const action = stored.run.triggerAction
    if (run().actionStatus === 'QUEUED') {
      writeLog(null, null, 'start', `${action.toLowerCase()} of ${run().progress.stages.length} stage(s) triggered by ${run().triggeredBy}`)
      await apply((current) => startRun(current, clock.now()))
    }
    for (const [index, stage] of run().progress.stages.entries()) {
      // Done in a resumed run, or left with nothing to run.
      if (stage.status === 'DONE' || stage.status === 'SKIPPED') continue
      signal.throwIfAborted()
      writeLog(null, stage.name, 'stage', `stage ${stage.name} started`)
      await apply((current) => startStage(current, index, clock.now()))
      const services = run().progress.stages[index]!.services.filter((service) => service.phase === 'ONGOING')
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
                    run: { id: stored.run.id, organizationId: stored.run.organizationId, environmentId: stored.run.environmentId },
                  }),
                )
          // What the executor answers once the run's time is up says so, whatever it says.
          if (signal.reason === TIMED_OUT) throw new StepRefused(TIMED_OUT)
          say(
            'end',
            outcome.ok ? `${service.name}: ${action.toLowerCase()} succeeded` : `${service.name}: ${outcome.message}`,
            outcome.ok ? 'INFO' : 'ERROR',
          )
          if (outcome.output && typeof runs.keepOutput === 'function') await runs.keepOutput(service.id, stored.run.id, outcome.output)
          const { output: _output, ...finished } = outcome
          await apply((current) => finishService(current, service.id, finished, clock.now()))
        }),
      )
      await apply((current) => finishStage(current, index, clock.now()))
      if (isFinished(run())) break
    }
    if (!isFinished(run())) await apply((current) => succeedRun(current, clock.now()))
  }

  /** Ends a run whose work stopped before its end, as `reason` asks. */
  async function endStopped(reason: StopReason, writes: RunWrites): Promise<void> {
    const { current: run, writeLog, flushLogs } = writes
    if (reason === LOST) {
      log.warn(
        { executionId: run().id },
        'a deployment was taken from this runner (its lease expired, a cancel ended it, or its environment was deleted)',
      )
    } else if (reason === HAND_BACK) {
      await runs.release(run().id, runnerId)
    } else if (reason === TIMED_OUT) {
      const message = timedOutMessage()
      writeLog(null, null, 'timeout', message, 'ERROR')
      log.warn({ executionId: run().id, environmentId: run().environmentId, maxRunMs: options.maxRunMs }, 'a deployment took too long; it failed')
      await flushLogs()
      try {
        await runs.save(interruptRun(run(), false, message, clock.now()), runnerId, options.leaseMs, kinds)
      } catch (error) {
        log.warn({ err: error, executionId: run().id }, 'could not end a deployment that took too long; its lease will expire')
      }
    } else {
      writeLog(null, null, 'cancel', 'cancel requested: stopping what runs')
      await finishCancel(writes)
      await flushLogs()
    }
  }

  return {
    /** Runs a claimed run to its end, or until `controller` stops it (the reason is a StopReason). */
    async execute(stored: StoredRun, controller: AbortController): Promise<void> {
      const { signal } = controller
      const traceLog = log.debug ? (log as SpanLog) : undefined
      const traced = { executionId: stored.run.id }
      const span = spans(traceLog, traced)
      const claimedAt = performance.now()
      // From the trigger (the run's creation, the database's clock) to this claim: the queue's pick-up.
      if (stored.run.actionStatus === 'QUEUED') spanLine(traceLog, traced, 'queue pick-up', clock.nowMs() - Date.parse(stored.run.createdAt))
      const stop = (reason: StopReason) => {
        if (!signal.aborted) controller.abort(reason)
      }
      const writes = createRunWrites({ runs, options, log, kinds, runnerId }, stored.run, signal, stop, span)
      const { current: run, flushLogs } = writes
      const heartbeat = setInterval(
        () => {
          // What the executor said since the last step reaches followers without waiting for the next one.
          void flushLogs()
          runs.renew(stored.run.id, runnerId, options.leaseMs).then(
            (renewed) => {
              if (renewed === 'lost') stop(LOST)
              else if (renewed.cancelRequested) stop(CANCEL)
            },
            (error: unknown) => log.warn({ err: error, executionId: stored.run.id }, 'could not renew a deployment lease; will retry'),
          )
        },
        Math.min(options.pollMs, options.leaseMs / 3),
      )
      // Every run ends within maxRunMs of its start (a resumed run: its first start), whatever its services' own timeouts.
      const startedMs = stored.run.startedAt === null ? Date.now() : Date.parse(stored.run.startedAt)
      const deadline =
        options.maxRunMs === undefined ? undefined : setTimeout(() => stop(TIMED_OUT), Math.max(0, startedMs + options.maxRunMs - Date.now()))

      try {
        if (stored.cancelRequested || stored.run.actionStatus === 'CANCELING') stop(CANCEL)
        else await runStages(stored, writes, signal, span)
      } catch (error) {
        if (!signal.aborted) {
          // A database outage or a bug: leave the run; once its lease expires it ends as interrupted.
          log.warn({ err: error, executionId: stored.run.id }, 'a deployment stopped unexpectedly')
          return
        }
      } finally {
        clearInterval(heartbeat)
        clearTimeout(deadline)
      }
      await writes.settled()
      await flushLogs()
      // A run whose last write went through is finished, whatever a stop came after it (a renewal
      // answered 'lost' once that write had cleared the lease, a stop handing back).
      if (!signal.aborted || isFinished(run())) {
        spanLine(traceLog, traced, 'claimed to finished', performance.now() - claimedAt)
        log.info({ executionId: run().id, environmentId: run().environmentId, status: run().status }, 'deployment finished')
        return
      }
      await endStopped(signal.reason as StopReason, writes)
    },
  }
}
