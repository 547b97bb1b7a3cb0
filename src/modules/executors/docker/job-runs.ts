import type Docker from 'dockerode'
import type { ServiceOutcome } from '../executor.ts'
import { type ContainerRunSpec, runContainer } from './container-runs.ts'
import { removeContainer, serviceContainers } from './docker-objects.ts'
import type { Say } from './service-instances.ts'

// A command run to completion (a job's event): exit code 0 is success; a run longer than its time
// limit is killed; a failed run is tried again up to `retries` times. What a run prints reaches the
// deployment's logs as it prints it, up to RUN_OUTPUT_LINES lines.

/** How many lines of a run's output go to the logs live; past them, its last lines once it ended. */
export const RUN_OUTPUT_LINES = 1000
/** How many of a run's last lines are logged when its output went past RUN_OUTPUT_LINES. */
const RUN_LAST_LINES = 50

export interface JobRunSpec extends Omit<ContainerRunSpec, 'instance' | 'suffix' | 'workingDir' | 'volume'> {
  /** The longest a run may take, and the setting that says so (in the failure's message). */
  timeout: { seconds: number; setting: string }
  retries: number
  /** Failed runs are left stopped for inspection (cleanFailedJob removes them); not when the job is going away. */
  keepFailed: boolean
}

/** Removes what earlier runs of the job left: its failed runs (kept for inspection), and a container a runner that died mid-run left. */
async function removeLeftovers(docker: Docker, serviceId: string, say: Say): Promise<void> {
  for (const info of await serviceContainers(docker, serviceId)) {
    say('cleanup', `removing ${info.Names[0]?.replace(/^\//, '') ?? info.Id.slice(0, 12)} (${info.State}), left by an earlier run`)
    await removeContainer(docker, info.Id, 0)
  }
}

async function attempt(docker: Docker, spec: JobRunSpec, number: number, say: Say, signal: AbortSignal): Promise<ServiceOutcome> {
  const result = await runContainer(
    docker,
    { ...spec, instance: `run-${number}`, suffix: `run-${number}`, workingDir: '' },
    {
      step: 'run',
      say,
      signal,
      limit: RUN_OUTPUT_LINES,
      onLimit: () => say('run', `run ${number} printed more than ${RUN_OUTPUT_LINES} lines: its last ${RUN_LAST_LINES} follow once it ends`),
      deadline: Date.now() + spec.timeout.seconds * 1000,
      keep: 0,
      keepFailed: spec.keepFailed,
      tail: RUN_LAST_LINES,
      starting: (id) => say('run', `run ${number} starting (${id.slice(0, 12)})`),
    },
  )
  if ('timedOut' in result) return { ok: false, message: `run ${number} was killed after ${spec.timeout.setting} (${spec.timeout.seconds} s)` }
  if (result.code === 0) return { ok: true }
  return { ok: false, message: `run ${number} exited with code ${result.code}` }
}

/** Runs the command until a run succeeds or every try (1 + retries) failed. */
export async function runToCompletion(docker: Docker, spec: JobRunSpec, say: Say, signal: AbortSignal): Promise<ServiceOutcome> {
  await removeLeftovers(docker, spec.owner.serviceId, say)
  let outcome: ServiceOutcome = { ok: false, message: 'the job did not run' }
  for (let number = 1; number <= spec.retries + 1; number++) {
    outcome = await attempt(docker, spec, number, say, signal)
    if (outcome.ok) return outcome
    say('run', outcome.message, 'WARNING')
  }
  return outcome
}
