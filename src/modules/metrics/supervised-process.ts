import { type ChildProcess, spawn } from 'node:child_process'
import { open } from 'node:fs/promises'
import { setTimeout as sleep } from 'node:timers/promises'
import { startOrStop, terminate, watchExit } from '#src/platform/child-processes.ts'

// A program `berth serve` runs and keeps running (Prometheus, Alertmanager): argv only, no shell;
// its output appended to a log file; ready when `readyUrl` answers 2xx; started again, with a
// growing delay, when it exits; `onStarted` after every start (to load its configuration).

export interface SupervisedProcessSettings {
  /** Its name in logs. */
  name: string
  program: string
  args: string[]
  /** Where its output goes (appended). */
  logFile: string
  /** A URL that answers 2xx once it serves. */
  readyUrl: string
  readyTimeoutMs?: number
  log: { info(fields: object, message: string): void; warn(fields: object, message: string): void }
  /** Before each start: files it needs. */
  beforeStart?(): Promise<void>
  onStarted(): Promise<void>
}

export interface SupervisedProcess {
  stop(): Promise<void>
}

const STOP_TIMEOUT_MS = 5_000

/** Whether a URL answers 2xx within a second. */
export async function answersOk(url: string): Promise<boolean> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(1_000) })
    await res.body?.cancel()
    return res.ok
  } catch {
    return false
  }
}

/** Starts the program and keeps it running until `stop`; rejects when it does not answer at first. */
export async function superviseProcess(settings: SupervisedProcessSettings): Promise<SupervisedProcess> {
  const { name, log } = settings
  const readyTimeoutMs = settings.readyTimeoutMs ?? 30_000
  const output = await open(settings.logFile, 'a')
  let child: ChildProcess | undefined
  let stopping = false
  let restartDelayMs = 500

  const startOnce = async (): Promise<void> => {
    await settings.beforeStart?.()
    const started = spawn(settings.program, settings.args, { stdio: ['ignore', output.fd, output.fd] })
    child = started
    const { exited, spawnError } = watchExit(started)
    started.once('exit', (code, signal) => {
      if (stopping) return
      log.warn({ component: name, code, signal, restartInMs: restartDelayMs }, `${name} stopped; starting it again`)
      setTimeout(() => {
        if (stopping) return
        startOnce()
          .then(() => {
            restartDelayMs = 500
          })
          .catch((error) => log.warn({ component: name, err: error }, `${name} did not start again`))
      }, restartDelayMs).unref()
      restartDelayMs = Math.min(restartDelayMs * 2, 30_000)
    })
    const deadline = Date.now() + readyTimeoutMs
    while (!(await answersOk(settings.readyUrl))) {
      const error = spawnError()
      if (error) throw new Error(`could not run ${settings.program} (${error.message})`)
      if (started.exitCode !== null || started.signalCode !== null)
        throw new Error(`${settings.program} exited (code ${started.exitCode}) before it answered at ${settings.readyUrl}; see ${settings.logFile}`)
      if (Date.now() > deadline) throw new Error(`${settings.program} did not answer at ${settings.readyUrl} within ${readyTimeoutMs} ms`)
      await Promise.race([sleep(100), exited])
    }
    log.info({ component: name, pid: started.pid }, `${name} runs`)
    await settings.onStarted()
  }

  const stop = async () => {
    stopping = true
    await terminate(child, STOP_TIMEOUT_MS)
    await output.close().catch(() => undefined)
  }

  return startOrStop(startOnce, stop)
}
