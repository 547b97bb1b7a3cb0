import type Docker from 'dockerode'
import { MASK } from '#src/platform/secrets/secret-masking.ts'
import type { ServiceOutcome } from '../executor.ts'
import type { NextStep, Step, StepsWorkload } from '../workload.ts'
import { type ContainerRunSpec, runContainer } from './container-runs.ts'
import type { DockerJob, OpenStateEndpoint } from './docker-job.ts'
import { LABELS } from './docker-objects.ts'

// Steps on Docker (docs/iac.md, "Runs"): each a container of the run's image, the service's volume
// as their shared scratch directory, run to its exit; the workload's `next` says what follows. A
// run is tenant code: it runs on a network of its own (never the host's, nor the environment's),
// and a run that keeps its state in Berth reaches only its state endpoint, on that network's gateway.

/** The most lines of one step's output that reach the logs; the rest is counted. */
const STEP_OUTPUT_LINES = 2000
/** The lines kept of a step's output for `next` (a lock's id) and a failure's message. */
const KEPT_LINES = 200

/** The service's scratch volume: kept across runs, removed when the service is uninstalled or deleted. */
export const scratchVolume = (kind: string, serviceId: string) => `berth-${kind.toLowerCase()}-${serviceId}`

/** The network of the service's runs: made for a run, removed after it. */
export const runNetwork = (serviceId: string) => `berth-run-${serviceId}`

/** The environment variables of a state endpoint: the run's variables may not replace them. */
const STATE_VARIABLE = /^TF_HTTP_/

/** Makes the run's network (a bridge of its own, labelled as the service's); its gateway address. */
async function openRunNetwork(docker: Docker, owner: DockerJob['owner']): Promise<{ name: string; gateway: string }> {
  const name = runNetwork(owner.serviceId)
  await removeRunNetwork(docker, owner.serviceId)
  await docker.createNetwork({
    Name: name,
    Driver: 'bridge',
    CheckDuplicate: true,
    Labels: { [LABELS.service]: owner.serviceId, [LABELS.environment]: owner.environmentId },
  })
  const inspected = (await docker.getNetwork(name).inspect()) as { IPAM?: { Config?: { Gateway?: string }[] } }
  const gateway = inspected.IPAM?.Config?.find((config) => config.Gateway)?.Gateway
  if (!gateway) throw new Error(`the Docker engine gave the run's network ${name} no gateway address`)
  return { name, gateway }
}

/** Removes the run's network, if it is there. */
export async function removeRunNetwork(docker: Docker, serviceId: string): Promise<void> {
  await docker
    .getNetwork(runNetwork(serviceId))
    .remove()
    .catch(() => undefined)
}

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
  const { docker, owner } = job
  if (!('run' in workload.first)) return runSteps(workload, job, undefined)
  if (!workload.image) return { ok: false, message: 'the run names no image' }
  const image = await job.image(workload.image)
  if (!image.ok) return image
  if (workload.stateEndpoint && !job.stateEndpoint) return { ok: false, message: 'this runner cannot serve the state of IAC runs' }
  const network = await openRunNetwork(docker, owner)
  let endpoint: Awaited<ReturnType<OpenStateEndpoint>> | undefined
  try {
    if (workload.stateEndpoint && job.stateEndpoint) {
      try {
        endpoint = await job.stateEndpoint(owner.serviceId, network.gateway)
      } catch (error) {
        return {
          ok: false,
          message: `the state endpoint of the run could not listen on its network's gateway ${network.gateway} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}): Berth must run on the Docker engine's host (docs/iac.md)`,
        }
      }
    }
    const delivered = job.delivered()
    const variables = [...delivered.env, ...Object.entries(workload.env).map(([key, value]) => `${key}=${value}`)]
    const volume = scratchVolume(job.snapshot.kind, owner.serviceId)
    const spec: Omit<ContainerRunSpec, 'instance' | 'suffix' | 'command'> = {
      owner,
      labels: job.snapshot.labels,
      serviceName: job.snapshot.name,
      image: image.image,
      entrypoint: [workload.program],
      workingDir: workload.workingDir,
      network: network.name,
      env: endpoint
        ? [...variables.filter((line) => !STATE_VARIABLE.test(line)), ...Object.entries(endpoint.env).map(([key, value]) => `${key}=${value}`)]
        : variables,
      files: [...delivered.files, ...workload.files.map(({ path, content }) => ({ path, content }))],
      cpuMilli: workload.resources.cpuMilli,
      memoryMb: workload.resources.memoryMb,
      confinement: job.confinement,
      volume: { name: volume, target: workload.scratch.mountPath },
    }
    await docker.createVolume({ Name: volume, Labels: { [LABELS.service]: owner.serviceId, [LABELS.environment]: owner.environmentId } })
    const secret = endpoint?.secret
    const say: DockerJob['say'] = secret ? (step, message, level, at) => job.say(step, message.split(secret).join(MASK), level, at) : job.say
    return await runSteps(workload, { ...job, say }, spec)
  } finally {
    await endpoint
      ?.close()
      .catch((error: unknown) => job.say('state', `could not release the locks the run left: ${(error as Error).message}`, 'WARNING'))
    await removeRunNetwork(docker, owner.serviceId)
  }
}

/** Each step to its exit, the next chosen by how it ended, until the workload says it is done. */
async function runSteps(
  workload: StepsWorkload,
  job: DockerJob,
  spec: Omit<ContainerRunSpec, 'instance' | 'suffix' | 'command'> | undefined,
): Promise<ServiceOutcome> {
  const { docker, snapshot, say } = job
  let next: NextStep = workload.first
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
