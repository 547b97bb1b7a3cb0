import { setTimeout as sleep } from 'node:timers/promises'
import type { Span } from '#src/platform/spans.ts'
import { type DeploymentRun, isFinished } from '../queue/deployment-progress.ts'
import type { DeploymentRunsRepository, NewLogLine } from './deployment-runs.repository.ts'
import { CANCEL, LOST, StepRefused, type StopReason } from './run-stops.ts'
import type { DeploymentRunnerDeps } from './runner-deps.ts'

// The writes of one run while it runs: its log lines, held and written in order, and its steps,
// applied one at a time and saved under the runner's lease (retried while the database is unreachable).

/** The longest wait between two attempts to save a step while the database is unreachable. */
const SAVE_RETRY_MS = 500

export type RunWritesDeps = Pick<DeploymentRunnerDeps, 'runs' | 'options' | 'log' | 'kinds'> & { runnerId: string }

export type RunWrites = ReturnType<typeof createRunWrites>

/** `stop` aborts the run's work: a step the database refuses says the run was lost or canceled. */
export function createRunWrites(deps: RunWritesDeps, first: DeploymentRun, signal: AbortSignal, stop: (reason: StopReason) => void, span: Span) {
  const { runs, options, log, kinds, runnerId } = deps
  let run = first
  let writes: Promise<void> = Promise.resolve()
  // Log lines wait here and are written with the next step, and at the end.
  let lines: NewLogLine[] = []
  // One write of lines at a time, so that line ids grow in the order lines were written and a
  // follower reading "after line n" never misses one committed late.
  let flushed: Promise<void> = Promise.resolve()

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

  const flushLogs = (): Promise<void> => {
    flushed = flushed.then(async () => {
      const pending = lines
      lines = []
      if (pending.length === 0) return
      await runs.appendLogs(pending).catch((error: unknown) => log.warn({ err: error, executionId: run.id }, 'could not write deployment log lines'))
    })
    return flushed
  }

  /**
   * Saves a step, trying again while the database is unreachable: an outage shorter than the lease
   * leaves the run to go on where it was. Past the lease the run is another runner's to end.
   */
  async function saveRetrying(next: DeploymentRun): ReturnType<DeploymentRunsRepository['save']> {
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
      const saved = await span(`history write (${next.actionStatus.toLowerCase()} ${next.status.toLowerCase()})`, () => saveRetrying(next))
      if (saved !== 'saved') {
        stop(saved === 'lost' ? LOST : CANCEL)
        throw new StepRefused(saved)
      }
      run = next
    })
    writes = write.catch(() => {})
    return write
  }

  return {
    /** The run as its last saved step left it. */
    current: (): DeploymentRun => run,
    writeLog,
    flushLogs,
    apply,
    /** Waits for the steps applied so far to be written (or refused). */
    settled: (): Promise<void> => writes,
  }
}
