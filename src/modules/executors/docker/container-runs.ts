import type Docker from 'dockerode'
import {
  type Confinement,
  confinedHostConfig,
  containerLabels,
  containerName,
  demultiplex,
  followOutput,
  lastLines,
  type OutputFollower,
  type Owner,
  removeContainer,
  stopContainer,
} from './docker-objects.ts'
import { archiveOf, type DeliveredFile } from './file-archive.ts'
import type { Say } from './service-instances.ts'

// One container run to its exit (a job's run, a step of an IAC run): created, started, followed,
// waited for, and removed whatever happens. What it prints reaches the logs line by line, unless its
// standard output is captured whole for the caller (then it is logged by no one).

/** Everything one run's container is made from. */
export interface ContainerRunSpec {
  owner: Owner
  /** The labels of the service's labels groups. */
  labels?: Record<string, string> | undefined
  serviceName: string
  /** Which run it is: its name's suffix and its instance label (`run-1`, `iac-2`…). */
  instance: string
  suffix: string
  network: string
  image: string
  entrypoint: string[] | null
  command: string[]
  /** '': the image's. */
  workingDir: string
  env: string[]
  files: DeliveredFile[]
  cpuMilli: number
  memoryMb: number
  confinement?: Confinement | undefined
  /** A volume mounted at `target` (a run's scratch directory). */
  volume?: { name: string; target: string }
}

/** How the run is watched: where its lines go (at most `limit`, then `onLimit` once), until when it may run. */
export interface ContainerRunWatch {
  step: string
  say: Say
  signal: AbortSignal
  limit: number
  onLimit(): void
  /** When it is killed (ms since the epoch); undefined: never. */
  deadline: number | undefined
  /** Its standard output read whole once it exited, not logged; its standard error logged then. */
  capture?: boolean
  /** How many of its last lines are kept for the result. */
  keep: number
  /** When it printed more than `limit` lines: how many of its last are said once it ended. */
  tail?: number
  /** Told the container's id just before it starts. */
  starting?(id: string): void
  /** A run that failed (another exit code than 0, or killed at its deadline) is left stopped for inspection, not removed (a job's: docs/jobs.md). */
  keepFailed?: boolean
}

export type ContainerRunResult = { code: number; lines: string[]; stdout: string } | { timedOut: true }

/** Runs the container to its exit; aborting `signal` kills it and rejects with the signal's reason. */
export async function runContainer(docker: Docker, spec: ContainerRunSpec, watch: ContainerRunWatch): Promise<ContainerRunResult> {
  const { say, signal, step } = watch
  signal.throwIfAborted()
  const container = await docker.createContainer({
    name: containerName(spec.serviceName, spec.owner, spec.suffix),
    Image: spec.image,
    ...(spec.entrypoint ? { Entrypoint: spec.entrypoint } : {}),
    Cmd: spec.command,
    Env: spec.env,
    ...(spec.workingDir ? { WorkingDir: spec.workingDir } : {}),
    Labels: containerLabels(spec.owner, spec.labels, spec.instance),
    HostConfig: {
      NetworkMode: spec.network,
      NanoCpus: spec.cpuMilli * 1_000_000,
      Memory: spec.memoryMb * 1024 * 1024,
      ...(spec.volume ? { Mounts: [{ Type: 'volume' as const, Source: spec.volume.name, Target: spec.volume.target }] } : {}),
      ...confinedHostConfig(spec.confinement),
    },
  })
  const lines: string[] = []
  const kept = (line: string) => {
    lines.push(line)
    if (lines.length > watch.keep) lines.shift()
  }
  let output: OutputFollower | undefined
  let failed = false
  try {
    if (spec.files.length > 0) await container.putArchive(await archiveOf(spec.files), { path: '/' })
    const exited = container.wait({ condition: 'next-exit' })
    watch.starting?.(container.id)
    await container.start()
    // Every line from the first, timed by the engine: its log keeps what was printed before this.
    if (!watch.capture)
      output = await followOutput(
        docker,
        container.id,
        (line, at) => {
          kept(line)
          say(step, line, 'INFO', at)
        },
        { limit: watch.limit, onLimit: watch.onLimit },
      )
    let timer: NodeJS.Timeout | undefined
    let onAbort: (() => void) | undefined
    const outcome = await new Promise<{ code: number } | { timedOut: true }>((resolve, reject) => {
      if (watch.deadline !== undefined) timer = setTimeout(() => resolve({ timedOut: true }), Math.max(0, watch.deadline - Date.now()))
      onAbort = () => reject(signal.reason)
      signal.addEventListener('abort', onAbort, { once: true })
      exited.then((result: { StatusCode: number }) => resolve({ code: result.StatusCode }), reject)
    }).finally(() => {
      clearTimeout(timer)
      if (onAbort) signal.removeEventListener('abort', onAbort)
    })
    // The output of a run that exited is all read before its result is said.
    if (!('timedOut' in outcome)) await output?.ended(2000)
    output?.stop()
    if (output?.truncated && watch.tail) for (const line of await lastLines(docker, container.id, watch.tail)) say(step, line)
    failed = 'timedOut' in outcome || outcome.code !== 0
    if ('timedOut' in outcome) return outcome
    let stdout = ''
    if (watch.capture) {
      stdout = demultiplex((await container.logs({ stdout: true, stderr: false, follow: false })) as unknown as Buffer).join('\n')
      for (const line of demultiplex((await container.logs({ stdout: false, stderr: true, follow: false })) as unknown as Buffer)) {
        kept(line)
        say(step, line, 'WARNING')
      }
    }
    return { code: outcome.code, lines, stdout }
  } finally {
    output?.stop()
    if (failed && watch.keepFailed) await stopContainer(docker, container.id).catch(() => undefined)
    else await removeContainer(docker, container.id, 0).catch(() => undefined)
  }
}
