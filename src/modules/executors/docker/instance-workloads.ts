import type Docker from 'dockerode'
import type { ServiceOutcome } from '../executor.ts'
import type { InstancesWorkload, WorkloadVolume } from '../workload.ts'
import type { DockerJob } from './docker-job.ts'
import { dnsLabel, ensureNetwork, LABELS, serviceContainers } from './docker-objects.ts'
import { removeBuiltImages } from './image-builds.ts'
import { type InstanceSpec, type Rollout, removeInstances, rollOut, stopInstances } from './service-instances.ts'

// Instances on Docker (docs/docker.md, "Deploying with Docker"): a deploy rolls them out, a stop
// stops them, an uninstall or delete removes them (a delete their data too), a dry run says what a
// deploy would change.

/** A volume's name in the engine: where its data is. */
export const dockerVolume = (serviceId: string, volume: WorkloadVolume) => volume.names?.docker ?? `berth-${serviceId}-${volume.id}`

/** `$(NAME)` in args, from `env`, as Kubernetes expands them. */
const expanded = (args: string[], env: Record<string, string>) =>
  args.map((arg) => arg.replace(/\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g, (whole, name: string) => env[name] ?? whole))

/** What each instance runs with. */
function instanceSpec(workload: InstancesWorkload, job: DockerJob, image: string, network: string): InstanceSpec {
  const { owner, snapshot } = job
  const delivered = workload.variables ? job.delivered() : { env: [], files: [] }
  const args = workload.expandsArgs ? expanded(workload.args, workload.env) : workload.args
  return {
    owner,
    labels: snapshot.labels,
    serviceName: snapshot.name,
    networkAlias: workload.hostname ?? dnsLabel(snapshot.name),
    network,
    image,
    entrypoint: workload.entrypoint,
    command: args.length > 0 ? args : null,
    env: [...delivered.env, ...Object.entries(workload.env).map(([key, value]) => `${key}=${value}`)],
    files: delivered.files,
    cpuMilli: workload.resources.cpuMilli,
    memoryMb: workload.resources.memoryMb,
    confinement: job.confinement,
    ports: workload.ports.map((port) => ({
      internal: port.internalPort,
      protocol: port.protocol === 'UDP' ? 'UDP' : 'TCP',
      publish: port.publiclyAccessible,
    })),
    // What the front door routes: the ports as this deploy runs them.
    publicPorts: workload.ports.map(({ internalPort, protocol, publiclyAccessible, isDefault }) => ({
      internalPort,
      protocol,
      publiclyAccessible,
      isDefault,
    })),
    volumes: workload.volumes.map((volume) => ({ name: dockerVolume(owner.serviceId, volume), mountPoint: volume.mountPath })),
    readiness: workload.readiness,
    instances: workload.instances,
    stopGraceSeconds: job.stopGraceSeconds,
  }
}

/**
 * A deploy, step by step: the image (pulled, or built from git), the environment's network, the
 * instances rolled out one at a time (each ready before the one it replaces goes), and the images
 * of earlier commits removed once nothing runs them.
 */
async function deploy(workload: InstancesWorkload, job: DockerJob): Promise<Rollout> {
  const image = await job.image(workload.image)
  if (!image.ok) return image
  const network = await job.span('network', () => ensureNetwork(job.docker, job.owner.environmentId))
  const rollout = await rollOut(job.docker, instanceSpec(workload, job, image.image, network), job.publish, job.say, job.signal, job.span)
  if (image.built && rollout.ok)
    void (rollout.retired ?? Promise.resolve()).then(() => removeBuiltImages(job.docker, job.owner.serviceId, image.image)).catch(() => undefined)
  return rollout
}

/**
 * The instances that serve: those running of the newest rollout. A rollout's previous instances
 * may still be stopping in the background (their grace period): they are not counted (issue 42).
 */
export function servingInstances(containers: Docker.ContainerInfo[]): Docker.ContainerInfo[] {
  const running = containers.filter((instance) => instance.State === 'running')
  const newest = running.reduce<Docker.ContainerInfo | undefined>(
    (found, instance) => (!found || instance.Created > found.Created ? instance : found),
    undefined,
  )
  if (!newest) return []
  // What the newest instances took over from is on its way out, and so is any other rollout's instance.
  const replaced = new Set(running.flatMap((instance) => (instance.Labels[LABELS.replaces] ?? '').split(',').filter((id) => id !== '')))
  const execution = newest.Labels[LABELS.execution]
  return running.filter((instance) => !replaced.has(instance.Id) && instance.Labels[LABELS.execution] === execution)
}

/** A deploy up to its rollout: the image a deploy would run, compared with what runs now. */
async function dryRun(workload: InstancesWorkload, job: DockerJob): Promise<ServiceOutcome> {
  const image = await job.image(workload.image)
  if (!image.ok) return image
  const compare = (message: string) => job.say('compare', message)
  for (const volume of workload.volumes) compare(`its data stays in the volume ${dockerVolume(job.owner.serviceId, volume)}, which a deploy keeps`)
  const running = servingInstances(await serviceContainers(job.docker, job.owner.serviceId))
  const images = [...new Set(running.map((instance) => instance.Image))]
  const { name } = job.snapshot
  if (images.length === 0) compare(`${name} runs nothing now: a deploy would start ${workload.instances} instance(s) of ${image.image}`)
  else if (images.length === 1 && images[0] === image.image)
    compare(
      `${name} runs ${image.image} now (${running.length} instance(s)): a deploy would roll out the same image with the configuration and variables as of now`,
    )
  else compare(`${name} runs ${images.join(', ')} now (${running.length} instance(s)): a deploy would run ${image.image} instead`)
  compare('dry run: nothing running was changed')
  return { ok: true }
}

/** Does the job's action to the instances; a rollout's `retired` (instances still stopping in the background) is not waited for. */
export function instances(workload: InstancesWorkload, job: DockerJob): Promise<Rollout> {
  const { docker, owner, say, stopGraceSeconds } = job
  switch (job.action) {
    case 'STOP':
      return stopInstances(docker, owner.serviceId, stopGraceSeconds, say)
    case 'UNINSTALL':
      return removeInstances(docker, owner.serviceId, stopGraceSeconds, say)
    case 'DELETE': {
      const gone = workload.volumes.filter((volume) => volume.lifetime === 'service').map((volume) => dockerVolume(owner.serviceId, volume))
      return removeInstances(docker, owner.serviceId, stopGraceSeconds, say, gone)
    }
    case 'DEPLOY_DRY_RUN':
      return dryRun(workload, job)
    default:
      return deploy(workload, job)
  }
}
