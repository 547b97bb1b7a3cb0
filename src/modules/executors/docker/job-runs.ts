import type Docker from 'dockerode'
import type { ServiceOutcome } from '../executor.ts'
import {
  type Confinement,
  confinedHostConfig,
  containerLabels,
  containerName,
  followOutput,
  lastLines,
  type OutputFollower,
  type Owner,
  removeContainer,
  serviceContainers,
} from './docker-objects.ts'
import { archiveOf } from './file-archive.ts'
import type { InstanceFile, Say } from './service-instances.ts'

// A job's run: a container that runs to completion. Exit code 0 is success; a run longer than
// max_duration_seconds is killed; a failed run is tried again up to max_nb_restart times. What a
// run prints reaches the deployment's logs as it prints it, up to RUN_OUTPUT_LINES lines.

/** How many lines of a run's output go to the logs live; past them, its last lines once it ended. */
export const RUN_OUTPUT_LINES = 1000
/** How many of a run's last lines are logged when its output went past RUN_OUTPUT_LINES. */
const RUN_LAST_LINES = 50

export interface JobRunSpec {
  owner: Owner
  /** The labels of the job's labels groups. */
  labels?: Record<string, string> | undefined
  serviceName: string
  network: string
  image: string
  entrypoint: string[] | null
  command: string[]
  env: string[]
  files: InstanceFile[]
  cpuMilli: number
  memoryMb: number
  /** The operator's confinement (BERTH_DOCKER_PIDS_LIMIT, BERTH_DOCKER_CAP_DROP); absent: the defaults. */
  confinement?: Confinement | undefined
  maxDurationSeconds: number
  maxRestarts: number
}

/** Removes what earlier runs of the job left: a runner that died mid-run leaves its container. */
async function removeLeftovers(docker: Docker, serviceId: string, say: Say): Promise<void> {
  for (const info of await serviceContainers(docker, serviceId)) {
    say('cleanup', `removing ${info.Names[0]?.replace(/^\//, '') ?? info.Id.slice(0, 12)} (${info.State}), left by an earlier run`)
    await removeContainer(docker, info.Id, 0)
  }
}

async function attempt(docker: Docker, spec: JobRunSpec, number: number, say: Say, signal: AbortSignal): Promise<ServiceOutcome> {
  const container = await docker.createContainer({
    name: containerName(spec.serviceName, spec.owner, `run-${number}`),
    Image: spec.image,
    ...(spec.entrypoint ? { Entrypoint: spec.entrypoint } : {}),
    Cmd: spec.command,
    Env: spec.env,
    Labels: containerLabels(spec.owner, spec.labels, `run-${number}`),
    HostConfig: {
      NetworkMode: spec.network,
      NanoCpus: spec.cpuMilli * 1_000_000,
      Memory: spec.memoryMb * 1024 * 1024,
      ...confinedHostConfig(spec.confinement),
    },
  })
  let output: OutputFollower | undefined
  try {
    if (spec.files.length > 0) {
      await container.putArchive(await archiveOf(spec.files), { path: '/' })
    }
    const exited = container.wait({ condition: 'next-exit' })
    say('run', `run ${number} starting (${container.id.slice(0, 12)})`)
    await container.start()
    // Every line from the first, timed by the engine: its log keeps what was printed before this.
    output = await followOutput(docker, container.id, (line, at) => say('run', line, 'INFO', at), {
      limit: RUN_OUTPUT_LINES,
      onLimit: () => say('run', `run ${number} printed more than ${RUN_OUTPUT_LINES} lines: its last ${RUN_LAST_LINES} follow once it ends`),
    })
    let timer: NodeJS.Timeout | undefined
    const outcome = await new Promise<{ code: number } | { timedOut: true }>((resolve, reject) => {
      timer = setTimeout(() => resolve({ timedOut: true }), spec.maxDurationSeconds * 1000)
      signal.addEventListener('abort', () => reject(signal.reason), { once: true })
      exited.then((result: { StatusCode: number }) => resolve({ code: result.StatusCode }), reject)
    }).finally(() => clearTimeout(timer))
    // The output of a run that exited is all read before its result is said.
    if (!('timedOut' in outcome)) await output.ended(2000)
    output.stop()
    if (output.truncated) for (const line of await lastLines(docker, container.id, RUN_LAST_LINES)) say('run', line)
    if ('timedOut' in outcome) return { ok: false, message: `run ${number} was killed after max_duration_seconds (${spec.maxDurationSeconds} s)` }
    if (outcome.code === 0) return { ok: true }
    return { ok: false, message: `run ${number} exited with code ${outcome.code}` }
  } finally {
    output?.stop()
    await removeContainer(docker, container.id, 0).catch(() => undefined)
  }
}

/** Runs the job's command until a run succeeds or every try (1 + max_nb_restart) failed. */
export async function runToCompletion(docker: Docker, spec: JobRunSpec, say: Say, signal: AbortSignal): Promise<ServiceOutcome> {
  await removeLeftovers(docker, spec.owner.serviceId, say)
  let outcome: ServiceOutcome = { ok: false, message: 'the job did not run' }
  for (let number = 1; number <= spec.maxRestarts + 1; number++) {
    outcome = await attempt(docker, spec, number, say, signal)
    if (outcome.ok) return outcome
    say('run', outcome.message, 'WARNING')
  }
  return outcome
}
