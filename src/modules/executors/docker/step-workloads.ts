import type Docker from 'dockerode'
import type { ServiceOutcome } from '../executor.ts'
import type { NextStep, Step, StepsWorkload } from '../workload.ts'
import { type ContainerRunSpec, runContainer } from './container-runs.ts'
import type { DockerJob } from './docker-job.ts'
import { ensureNetwork, LABELS } from './docker-objects.ts'

// Steps on Docker (docs/iac.md, "Runs"): each a container of the run's image, the service's volume
// as their shared scratch directory, run to its exit; the workload's `next` says what follows.

/** The most lines of one step's output that reach the logs; the rest is counted. */
const STEP_OUTPUT_LINES = 2000
/** The lines kept of a step's output for `next` (a lock's id) and a failure's message. */
const KEPT_LINES = 200

/** The service's scratch volume: kept across runs, removed when the service is uninstalled or deleted. */
export const scratchVolume = (kind: string, serviceId: string) => `berth-${kind.toLowerCase()}-${serviceId}`

/** Removes the service's scratch volume, if it has one. */
export async function removeScratch(docker: Docker, kind: string, serviceId: string): Promise<void> {
  await docker
    .getVolume(scratchVolume(kind, serviceId))
    .remove()
    .catch(() => undefined)
}

/**
 * A run, step by step: its image built (unless no step runs), the network and the scratch volume,
 * then each step to its exit, the next chosen by how it ended, until the workload says it is done;
 * past the time limit a step is killed and the run fails.
 */
export async function steps(workload: StepsWorkload, job: DockerJob): Promise<ServiceOutcome> {
  const { docker, owner, snapshot, say } = job
  let next: NextStep = workload.first
  let spec: Omit<ContainerRunSpec, 'instance' | 'suffix' | 'command'> | undefined
  if ('run' in next) {
    if (!workload.image) return { ok: false, message: 'the run names no image' }
    const image = await job.image(workload.image)
    if (!image.ok) return image
    const delivered = job.delivered()
    const volume = scratchVolume(snapshot.kind, owner.serviceId)
    spec = {
      owner,
      labels: snapshot.labels,
      serviceName: snapshot.name,
      image: image.image,
      entrypoint: [workload.program],
      workingDir: workload.workingDir,
      network: workload.hostNetwork ? 'host' : await ensureNetwork(docker, owner.environmentId),
      env: [...delivered.env, ...Object.entries(workload.env).map(([key, value]) => `${key}=${value}`)],
      files: [...delivered.files, ...workload.files.map(({ path, content }) => ({ path, content }))],
      cpuMilli: workload.resources.cpuMilli,
      memoryMb: workload.resources.memoryMb,
      confinement: job.confinement,
      volume: { name: volume, target: workload.scratch.mountPath },
    }
    await docker.createVolume({ Name: volume, Labels: { [LABELS.service]: owner.serviceId } })
  }
  const { timeout } = workload
  const deadline = timeout.seconds > 0 ? Date.now() + timeout.seconds * 1000 : undefined
  let last: { step: Step; lines: string[]; code: number } | undefined
  for (let number = 1; ; number++) {
    if (next.say) say(next.say.step, next.say.message)
    if ('done' in next) return next.done
    if ('failed' in next || !spec) {
      const { step, code, lines } = last ?? { step: { args: [] }, code: -1, lines: [] }
      return { ok: false, message: `${workload.program} ${step.args[0]} exited with code ${code}: ${lines.slice(-5).join(' | ')}` }
    }
    const step = next.run
    say(step.name, `${workload.program} ${step.args.join(' ')}`)
    const result = await runContainer(
      docker,
      { ...spec, instance: `${snapshot.kind.toLowerCase()}-${number}`, suffix: `${number}-${step.args[0] ?? 'run'}`, command: step.args },
      {
        step: step.name,
        say,
        signal: job.signal,
        limit: STEP_OUTPUT_LINES,
        onLimit: () => say(step.name, `more than ${STEP_OUTPUT_LINES} lines: the rest is not shown`, 'WARNING'),
        deadline,
        keep: KEPT_LINES,
        ...(step.capture ? { capture: true } : {}),
      },
    )
    if ('timedOut' in result) return { ok: false, message: `the run was killed after ${timeout.setting} (${timeout.seconds} s)` }
    last = { step, lines: result.lines, code: result.code }
    next = workload.next(step, result)
  }
}
