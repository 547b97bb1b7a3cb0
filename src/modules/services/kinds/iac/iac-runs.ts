import type Docker from 'dockerode'
import {
  type Confinement,
  confinedHostConfig,
  containerLabels,
  containerName,
  demultiplex,
  followOutput,
  type Owner,
  removeContainer,
} from '#src/modules/executors/docker/docker-objects.ts'
import { archiveOf, type DeliveredFile } from '#src/modules/executors/docker/file-archive.ts'
import type { Say } from '#src/modules/executors/docker/service-instances.ts'
import { DATA_DIR, WORKDIR } from './iac-commands.ts'

// One command of an IAC run (docs/iac.md, "Runs"): the engine's program in a container of the
// run's image, with the service's volume as its data directory, run to its exit. What it prints
// reaches the deployment's logs line by line (masked by the executor), but for `show -json`,
// whose output is read whole and logged by no one (it holds every attribute of the state).

/** The most lines of one command's output that reach the logs; the rest is counted. */
const COMMAND_OUTPUT_LINES = 2000
/** The lines kept of a command's output for its result (a lock's id, a failure's message). */
const KEPT_LINES = 200

export interface EngineRunSpec {
  owner: Owner
  labels?: Record<string, string> | undefined
  serviceName: string
  image: string
  /** The engine's program (`/usr/local/bin/tofu`…), the container's entrypoint. */
  program: string
  network: string
  env: string[]
  files: DeliveredFile[]
  cpuMilli: number
  memoryMb: number
  confinement?: Confinement | undefined
  /** The service's volume, mounted at DATA_DIR. */
  volume: string
}

export type CommandResult = { code: number; lines: string[]; stdout: string } | { timedOut: true }

/** The service's volume: the engine's data directory and its saved plan, kept across runs, removed with the service. */
export const iacVolume = (serviceId: string) => `berth-iac-${serviceId}`

/**
 * Runs `args` of the engine to its exit: its code, its last lines, and (with `capture`) its whole
 * stdout, not logged. Past `deadline` (ms since the epoch) the container is killed; aborting
 * `signal` kills it and rejects with the signal's reason.
 */
export async function runEngineCommand(
  docker: Docker,
  spec: EngineRunSpec,
  args: string[],
  run: { step: string; number: number; say: Say; signal: AbortSignal; deadline: number | undefined; capture?: boolean },
): Promise<CommandResult> {
  const { say, signal, step } = run
  signal.throwIfAborted()
  const container = await docker.createContainer({
    name: containerName(spec.serviceName, spec.owner, `${run.number}-${args[0] ?? 'run'}`),
    Image: spec.image,
    Entrypoint: [spec.program],
    Cmd: args,
    Env: spec.env,
    WorkingDir: WORKDIR,
    Labels: containerLabels(spec.owner, spec.labels, `iac-${run.number}`),
    HostConfig: {
      NetworkMode: spec.network,
      NanoCpus: spec.cpuMilli * 1_000_000,
      Memory: spec.memoryMb * 1024 * 1024,
      Mounts: [{ Type: 'volume', Source: spec.volume, Target: DATA_DIR }],
      ...confinedHostConfig(spec.confinement),
    },
  })
  const lines: string[] = []
  let output: Awaited<ReturnType<typeof followOutput>> | undefined
  try {
    if (spec.files.length > 0) await container.putArchive(await archiveOf(spec.files), { path: '/' })
    const exited = container.wait({ condition: 'next-exit' })
    await container.start()
    if (!run.capture) {
      output = await followOutput(
        docker,
        container.id,
        (line, at) => {
          lines.push(line)
          if (lines.length > KEPT_LINES) lines.shift()
          say(step, line, 'INFO', at)
        },
        { limit: COMMAND_OUTPUT_LINES, onLimit: () => say(step, `more than ${COMMAND_OUTPUT_LINES} lines: the rest is not shown`, 'WARNING') },
      )
    }
    let timer: NodeJS.Timeout | undefined
    let onAbort: (() => void) | undefined
    const outcome = await new Promise<{ code: number } | { timedOut: true }>((resolve, reject) => {
      if (run.deadline !== undefined) timer = setTimeout(() => resolve({ timedOut: true }), Math.max(0, run.deadline - Date.now()))
      onAbort = () => reject(signal.reason)
      signal.addEventListener('abort', onAbort, { once: true })
      exited.then((result: { StatusCode: number }) => resolve({ code: result.StatusCode }), reject)
    }).finally(() => {
      clearTimeout(timer)
      if (onAbort) signal.removeEventListener('abort', onAbort)
    })
    if ('timedOut' in outcome) return outcome
    await output?.ended(2000)
    let stdout = ''
    if (run.capture) {
      const buffer = (await container.logs({ stdout: true, stderr: false, follow: false })) as unknown as Buffer
      stdout = demultiplex(buffer).join('\n')
      const errors = (await container.logs({ stdout: false, stderr: true, follow: false })) as unknown as Buffer
      for (const line of demultiplex(errors)) {
        lines.push(line)
        say(step, line, 'WARNING')
      }
    }
    return { code: outcome.code, lines, stdout }
  } finally {
    output?.stop()
    await removeContainer(docker, container.id, 0).catch(() => undefined)
  }
}
