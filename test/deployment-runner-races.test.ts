import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { describe, it } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import type { DeploymentRun } from '#src/modules/deployments/queue/deployment-progress.ts'
import type { StoredRun } from '#src/modules/deployments/queue/environment-queue.ts'
import { createDeploymentRunner } from '#src/modules/deployments/runner/deployment-runner.ts'
import type { DeploymentRunsRepository } from '#src/modules/deployments/runner/deployment-runs.repository.ts'
import type { DeploymentExecutor } from '#src/modules/executors/executor.ts'
import { KINDS } from '#src/modules/services/kinds/registry.ts'

// The runner against a scripted queue, for the orderings a real database produces only now and
// then: a stop while a claim is under way, a lease renewal answered after the run's last write.

function queuedRun(): StoredRun {
  const at = new Date().toISOString()
  const run: DeploymentRun = {
    id: randomUUID(),
    organizationId: randomUUID(),
    environmentId: randomUUID(),
    serviceId: null,
    triggerAction: 'DEPLOY',
    origin: 'API',
    triggeredBy: 'API token test',
    status: 'DEPLOYMENT_QUEUED',
    actionStatus: 'QUEUED',
    message: null,
    createdAt: at,
    updatedAt: at,
    startedAt: null,
    endedAt: null,
    progress: {
      stages: [
        {
          name: 'HELM DEFAULT',
          status: 'QUEUED',
          startedAt: null,
          endedAt: null,
          services: [
            {
              id: randomUUID(),
              name: 'helm',
              type: 'HELM',
              iconUri: 'app://qovery-console/helm',
              details: {},
              version: 1,
              previousState: 'READY',
              simulateFailure: false,
              phase: 'QUEUED',
              startedAt: null,
              endedAt: null,
              updatedAt: at,
              message: null,
            },
          ],
        },
      ],
    },
  }
  return { run, cancelRequested: false, leaseOwner: null, leased: false }
}

interface LogRecord {
  level: 'info' | 'warn'
  message: string
  fields: object
}

function recordingLog() {
  const records: LogRecord[] = []
  return {
    records,
    info: (fields: object, message: string) => records.push({ level: 'info', fields, message }),
    warn: (fields: object, message: string) => records.push({ level: 'warn', fields, message }),
  }
}

/** A promise settled from outside. */
function deferred<T>() {
  let resolve: (value: T) => void = () => {}
  const promise = new Promise<T>((r) => {
    resolve = r
  })
  return { promise, resolve }
}

async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  const timeout = sleep(ms, 'timeout' as const, { ref: false })
  const outcome = await Promise.race([promise, timeout])
  if (outcome === 'timeout') assert.fail(`${what} within ${ms} ms`)
  return outcome as T
}

const OPTIONS = { leaseMs: 1_000, pollMs: 10, concurrency: 2, cancelMs: 0 }

describe('deployment runner', () => {
  it('hands back a run it claims while it is being stopped', async () => {
    const stored = queuedRun()
    const claimStarted = deferred<void>()
    const claimAnswer = deferred<{ kind: 'claimed'; stored: StoredRun }>()
    let claims = 0
    const released: string[] = []
    const saved: DeploymentRun[] = []
    const testOver = new AbortController()
    let executorSignal: AbortSignal | undefined

    const runs = {
      // What the run deploys and writes, which these races do not look at.
      async snapshots() {
        return new Map()
      },
      async appendLogs() {},
      async clockOffset() {
        return 0
      },
      async claim() {
        claims++
        if (claims > 1) return { kind: 'none' as const }
        claimStarted.resolve()
        return claimAnswer.promise
      },
      async save(run: DeploymentRun) {
        saved.push(run)
        return 'saved' as const
      },
      async renew() {
        return { cancelRequested: false }
      },
      async release(runId: string) {
        released.push(runId)
      },
    } as unknown as DeploymentRunsRepository
    const executor: DeploymentExecutor = {
      // Runs until aborted (or until the test is over, so that nothing outlives it).
      run: (_service, _action, signal) => {
        executorSignal = signal
        return new Promise((_, reject) => {
          const abort = () => reject(new Error('aborted'))
          if (signal.aborted || testOver.signal.aborted) abort()
          signal.addEventListener('abort', abort)
          testOver.signal.addEventListener('abort', abort)
        })
      },
    }
    const log = recordingLog()
    const runner = createDeploymentRunner({ kinds: KINDS, runs, executor, options: OPTIONS, log })

    try {
      runner.start()
      await within(claimStarted.promise, 2_000, 'the runner looked for work')
      const stopping = runner.stop()
      // The claim, under way when the stop began, takes a run.
      claimAnswer.resolve({
        kind: 'claimed',
        stored: { ...stored, leaseOwner: runner.runnerId, leased: true },
      })
      await within(stopping, 2_000, 'the runner stopped')

      assert.ok(executorSignal === undefined || executorSignal.aborted, 'the run claimed during the stop is still worked on after stop() resolved')
      assert.deepEqual(released, [stored.run.id], 'the run claimed during the stop was handed back')
      assert.deepEqual(
        log.records.filter((record) => record.level === 'warn'),
        [],
      )
    } finally {
      testOver.abort()
    }
  })

  it('ends a run as finished when a lease renewal races its last write', async () => {
    const stored = queuedRun()
    const finalSaveStarted = deferred<void>()
    let finalSavePending = false
    const saved: DeploymentRun[] = []

    const runs = {
      // What the run deploys and writes, which these races do not look at.
      async snapshots() {
        return new Map()
      },
      async appendLogs() {},
      async clockOffset() {
        return 0
      },
      claimed: false,
      async claim() {
        if (this.claimed) return { kind: 'none' as const }
        this.claimed = true
        return { kind: 'claimed' as const, stored: { ...stored, leaseOwner: 'me', leased: true } }
      },
      async save(run: DeploymentRun) {
        if (run.actionStatus === 'SUCCESS') {
          // As in PostgreSQL: a renewal sent meanwhile waits for this write's lock, then finds the
          // lease cleared by it ('lost'); its answer may come back before this write's.
          finalSavePending = true
          await within(finalSaveStarted.promise, 2_000, 'a lease renewal came during the last write')
          await sleep(20)
        }
        saved.push(run)
        return 'saved' as const
      },
      async renew() {
        if (finalSavePending) {
          finalSaveStarted.resolve()
          return 'lost' as const
        }
        return { cancelRequested: false }
      },
      async release() {},
    }
    const executor: DeploymentExecutor = { run: async () => ({ ok: true }) }
    const log = recordingLog()
    const runner = createDeploymentRunner({ kinds: KINDS, runs: runs as unknown as DeploymentRunsRepository, executor, options: OPTIONS, log })
    runner.start()
    try {
      const finished = async () => {
        while (!saved.some((run) => run.actionStatus === 'SUCCESS')) await sleep(10)
      }
      await within(finished(), 5_000, 'the run was saved as finished')
    } finally {
      await runner.stop()
    }

    assert.deepEqual(
      log.records.map((record) => [record.level, record.message]),
      [['info', 'deployment finished']],
      'a run whose last write went through is finished, whatever a late renewal answered',
    )
  })
})

describe("deployment runner's clock", () => {
  /** Runs one queued run with a database clock `offsetMs` ahead; resolves the run's start stamp and when it was taken. */
  async function startStampWith(offsetMs: number): Promise<{ stampMs: number; takenAt: number }> {
    const stored = queuedRun()
    let claimed = false
    const saves: { run: DeploymentRun; at: number }[] = []
    const runs = {
      // What the run deploys and writes, which these races do not look at.
      async snapshots() {
        return new Map()
      },
      async appendLogs() {},
      async clockOffset() {
        return offsetMs
      },
      async claim() {
        if (claimed) return { kind: 'none' as const }
        claimed = true
        return { kind: 'claimed' as const, stored: { ...stored, leaseOwner: 'me', leased: true } }
      },
      async save(run: DeploymentRun) {
        saves.push({ run, at: Date.now() })
        return 'saved' as const
      },
      async renew() {
        return { cancelRequested: false }
      },
      async release() {},
    } as unknown as DeploymentRunsRepository
    const executor: DeploymentExecutor = { run: async () => ({ ok: true }) }
    const runner = createDeploymentRunner({ kinds: KINDS, runs, executor, options: OPTIONS, log: recordingLog() })
    runner.start()
    try {
      const deadline = Date.now() + 2_000
      while (!saves.some((save) => save.run.actionStatus === 'SUCCESS') && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 5))
    } finally {
      await runner.stop()
    }
    const started = saves.find((save) => save.run.startedAt !== null)!
    return { stampMs: Date.parse(started.run.startedAt!), takenAt: started.at }
  }

  it('stamps steps with the database clock when the local clock is off by more than a second', async () => {
    const { stampMs, takenAt } = await startStampWith(3_600_000)
    assert.ok(Math.abs(stampMs - (takenAt + 3_600_000)) < 1_000, `stamped ${new Date(stampMs).toISOString()}`)
  })

  it('keeps the local clock when the database clock is within a second of it', async () => {
    const { stampMs, takenAt } = await startStampWith(400)
    assert.ok(Math.abs(stampMs - takenAt) < 200, `stamped ${stampMs - takenAt} ms from the local clock`)
  })
})
