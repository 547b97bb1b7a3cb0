// Child processes of the benchmark: each writes its output to a log file of its own, is ready when
// a line of that file says so, and is stopped by pid at the end, on failure or on Ctrl-C.
import { type ChildProcess, spawn } from 'node:child_process'
import { closeSync, openSync, readFileSync, statSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { createServer } from 'node:net'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'

export interface BenchProcess {
  readonly name: string
  readonly pid: number
  readonly logFile: string
  /** Bytes the process has written to its log so far. */
  logBytes(): number
  /** Peak resident set size so far (VmHWM), in bytes; undefined once the process has exited. */
  peakRss(): number | undefined
  /** Resident set size now (VmRSS), in bytes; undefined once the process has exited. */
  rss(): number | undefined
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once the process has exited. Safe to call again. */
  stop(graceMs?: number): Promise<void>
}

const live = new Set<ChildProcess>()
// Last resort for an exit that skipped the orderly stop (an uncaught error): no child outlives the benchmark.
process.on('exit', () => {
  for (const child of live) child.kill('SIGKILL')
})

/** A figure of /proc/<pid>/status (VmHWM, VmRSS) in bytes. */
function readStatusBytes(pid: number, field: 'VmHWM' | 'VmRSS'): number | undefined {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    return match ? Number(match[1]) * 1024 : undefined
  } catch {
    return undefined
  }
}

/** VmHWM of a process from /proc, in bytes. */
export const readPeakRss = (pid: number) => readStatusBytes(pid, 'VmHWM')

/** A port that was free a moment ago, for a program that cannot be told to pick one itself. */
export async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  await new Promise<void>((resolve) => server.close(() => resolve()))
  if (typeof address !== 'object' || !address) throw new Error('no port')
  return address.port
}

export interface StartOptions<T> {
  name: string
  command: string
  args: string[]
  env: Record<string, string | undefined>
  cwd: string
  logDir: string
  /** What readiness gives (an address, say), from the log's text or by asking the process; undefined while not ready. */
  ready: (log: string) => Promise<T | undefined> | T | undefined
  timeoutMs?: number
}

/** Starts a process and resolves once `ready` finds what it waits for in its log. */
export async function startProcess<T>(options: StartOptions<T>): Promise<{ process: BenchProcess; ready: T }> {
  const logFile = path.join(options.logDir, `${options.name}.log`)
  const fd = openSync(logFile, 'w')
  const env: NodeJS.ProcessEnv = { ...process.env }
  for (const [key, value] of Object.entries(options.env)) {
    if (value === undefined) delete env[key]
    else env[key] = value
  }
  let child: ChildProcess
  try {
    child = spawn(options.command, options.args, { cwd: options.cwd, env, stdio: ['ignore', fd, fd] })
  } finally {
    closeSync(fd)
  }
  live.add(child)
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => {
      live.delete(child)
      resolve()
    })
    child.once('error', () => {
      live.delete(child)
      resolve()
    })
  })
  const hasExited = () => child.exitCode !== null || child.signalCode !== null || !live.has(child)

  let stopping: Promise<void> | undefined
  const benchProcess: BenchProcess = {
    name: options.name,
    pid: child.pid ?? -1,
    logFile,
    logBytes: () => statSync(logFile, { throwIfNoEntry: false })?.size ?? 0,
    peakRss: () => (hasExited() || child.pid === undefined ? undefined : readPeakRss(child.pid)),
    rss: () => (hasExited() || child.pid === undefined ? undefined : readStatusBytes(child.pid, 'VmRSS')),
    stop(graceMs = 15_000) {
      stopping ??= (async () => {
        if (hasExited()) return
        child.kill('SIGTERM')
        // Unreferenced: a process that exits in time must not leave its grace timer holding the benchmark open.
        const outcome = await Promise.race([exited.then(() => 'exited' as const), sleep(graceMs, 'late' as const, { ref: false })])
        if (outcome === 'late') {
          child.kill('SIGKILL')
          await exited
        }
      })()
      return stopping
    },
  }

  const deadline = Date.now() + (options.timeoutMs ?? 60_000)
  try {
    for (;;) {
      const log = await readFile(logFile, 'utf8')
      const found = await options.ready(log)
      if (found !== undefined) return { process: benchProcess, ready: found }
      if (hasExited()) throw new Error(`${options.name} exited (code ${child.exitCode}) before it was ready; its log:\n${log.slice(-4000)}`)
      if (Date.now() > deadline)
        throw new Error(`${options.name} was not ready within ${options.timeoutMs ?? 60_000} ms; its log:\n${log.slice(-4000)}`)
      await sleep(50)
    }
  } catch (error) {
    await benchProcess.stop(5_000)
    throw error
  }
}
