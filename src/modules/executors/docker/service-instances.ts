import type Docker from 'dockerode'
import type { Probe } from '#src/modules/services/kinds/container/container.types.ts'
import type { ServiceOutcome } from '../executor.ts'
import {
  type Confinement,
  confinedHostConfig,
  containerLabels,
  containerName,
  followOutput,
  LABELS,
  lastLines,
  type Owner,
  removeContainer,
  serviceContainers,
} from './docker-objects.ts'
import { archiveOf, type DeliveredFile } from './file-archive.ts'
import { waitReady } from './readiness.ts'

// The long-running instances of a service (containers, applications, databases): rolled out one
// at a time, each new instance ready before the old one it replaces goes, so that a failed
// readiness leaves the previous version running; stopped, restarted and removed by label.

export type InstanceFile = DeliveredFile

/** Everything an instance runs with; Berth builds the engine's configuration from this alone. */
export interface InstanceSpec {
  owner: Owner
  /** The labels of the service's labels groups. */
  labels?: Record<string, string> | undefined
  serviceName: string
  /** The name the environment's other services reach it by. */
  networkAlias: string
  network: string
  image: string
  /** Null: the image's own. */
  entrypoint: string[] | null
  /** Null: the image's own command. */
  command: string[] | null
  env: string[]
  files: InstanceFile[]
  cpuMilli: number
  memoryMb: number
  /** The operator's confinement (BERTH_DOCKER_PIDS_LIMIT, BERTH_DOCKER_CAP_DROP); absent: the defaults. */
  confinement?: Confinement | undefined
  ports: { internal: number; protocol: 'TCP' | 'UDP'; publish: boolean }[]
  /** Named volumes (kept until the service is deleted). */
  volumes: { name: string; mountPoint: string }[]
  readiness: Probe | null
  instances: number
  /** How long a stopping instance gets before it is killed. */
  stopGraceSeconds: number
}

export type Say = (step: string, message: string, level?: 'INFO' | 'WARNING' | 'ERROR') => void

/** How many of an instance's first lines go to the logs while the rollout waits for it to be ready. */
export const INSTANCE_FIRST_LINES = 20

const instanceOf = (info: Docker.ContainerInfo) => Number(info.Labels[LABELS.instance] ?? 0)

/**
 * Creates one instance. Nothing of the request reaches the host: no privileged mode, host network,
 * host paths, devices or added capabilities; only named volumes, the environment's network and
 * published ports on `publishHost`.
 */
async function createInstance(docker: Docker, spec: InstanceSpec, index: number, publishHost: string): Promise<Docker.Container> {
  const exposed: Record<string, object> = {}
  const bindings: Record<string, { HostIp: string; HostPort: string }[]> = {}
  for (const port of spec.ports) {
    const key = `${port.internal}/${port.protocol.toLowerCase()}`
    exposed[key] = {}
    if (port.publish) bindings[key] = [{ HostIp: publishHost, HostPort: '' }]
  }
  const container = await docker.createContainer({
    name: containerName(spec.serviceName, spec.owner, String(index)),
    Image: spec.image,
    ...(spec.entrypoint ? { Entrypoint: spec.entrypoint } : {}),
    ...(spec.command ? { Cmd: spec.command } : {}),
    Env: spec.env,
    Labels: containerLabels(spec.owner, spec.labels, String(index)),
    ExposedPorts: exposed,
    HostConfig: {
      NetworkMode: spec.network,
      PortBindings: bindings,
      NanoCpus: spec.cpuMilli * 1_000_000,
      Memory: spec.memoryMb * 1024 * 1024,
      ...confinedHostConfig(spec.confinement),
      RestartPolicy: { Name: 'unless-stopped' },
      Mounts: spec.volumes.map((volume) => ({ Type: 'volume' as const, Source: volume.name, Target: volume.mountPoint })),
    },
    NetworkingConfig: { EndpointsConfig: { [spec.network]: { Aliases: [spec.networkAlias] } } },
  })
  if (spec.files.length > 0) await container.putArchive(await archiveOf(spec.files), { path: '/' })
  return container
}

/**
 * Rolls the service out: leftovers of runs that never finished go first; then each instance is
 * started and waited for before the old instance of its number is removed; old instances beyond
 * the new count go last. A new instance that is not ready fails the rollout with its last lines,
 * and every new instance is removed, the old ones left running.
 */
export async function rollOut(docker: Docker, spec: InstanceSpec, publishHost: string, say: Say, signal: AbortSignal): Promise<ServiceOutcome> {
  const existing = await serviceContainers(docker, spec.owner.serviceId)
  const previous = existing.filter((info) => info.State === 'running' && info.Labels[LABELS.execution] !== spec.owner.executionId)
  for (const leftover of existing.filter((info) => !previous.includes(info))) {
    say('cleanup', `removing ${leftover.Names[0]?.replace(/^\//, '') ?? leftover.Id.slice(0, 12)} (${leftover.State}), left by an earlier run`)
    await removeContainer(docker, leftover.Id, 0)
  }
  const started: string[] = []
  const defaultPort = spec.ports[0]?.internal
  try {
    for (let index = 0; index < spec.instances; index++) {
      const container = await createInstance(docker, spec, index, publishHost)
      started.push(container.id)
      // Its first lines, live; its last ones if it fails.
      const output = await followOutput(docker, container.id, (line) => say('start', `instance ${index}: ${line}`), {
        limit: INSTANCE_FIRST_LINES,
      })
      const readiness = await (async () => {
        await container.start()
        say('start', `instance ${index} started (${container.id.slice(0, 12)}); waiting until it is ready`)
        return waitReady(docker, container.id, spec.readiness, defaultPort, signal)
      })().finally(() => output.stop())
      if (!readiness.ready) {
        const lines = await lastLines(docker, container.id)
        for (const line of lines) say('start', `instance ${index}: ${line}`, 'WARNING')
        await removeAll(docker, started)
        return {
          ok: false,
          message: `instance ${index} is not ready: ${readiness.reason}${previous.length > 0 ? '; the previous version keeps running' : ''}${lines.length > 0 ? `; its last lines: ${lines.slice(-5).join(' | ')}` : ''}`,
        }
      }
      say('start', `instance ${index} is ready`)
      for (const old of previous.filter((info) => instanceOf(info) === index)) {
        say('start', `removing the previous instance ${index} (${old.Id.slice(0, 12)})`)
        await removeContainer(docker, old.Id, spec.stopGraceSeconds)
      }
    }
  } catch (error) {
    // A cancel, or the engine failing: what this run made goes, the previous version stays.
    await removeAll(docker, started)
    throw error
  }
  for (const old of previous.filter((info) => instanceOf(info) >= spec.instances)) {
    say('start', `removing the previous instance ${instanceOf(old)} (${old.Id.slice(0, 12)})`)
    await removeContainer(docker, old.Id, spec.stopGraceSeconds)
  }
  return { ok: true }
}

async function removeAll(docker: Docker, ids: string[]): Promise<void> {
  for (const id of ids) await removeContainer(docker, id, 0).catch(() => undefined)
}

/** Stops every instance, keeping them (a deploy replaces them). */
export async function stopInstances(docker: Docker, serviceId: string, graceSeconds: number, say: Say): Promise<ServiceOutcome> {
  const instances = (await serviceContainers(docker, serviceId)).filter((info) => info.State === 'running')
  for (const info of instances) {
    say('stop', `stopping instance ${instanceOf(info)} (${info.Id.slice(0, 12)})`)
    await docker.getContainer(info.Id).stop({ t: graceSeconds })
  }
  if (instances.length === 0) say('stop', 'no instance runs')
  return { ok: true }
}

/** Removes every instance and, when `volumes` is given, those volumes (a database's storage). */
export async function removeInstances(
  docker: Docker,
  serviceId: string,
  graceSeconds: number,
  say: Say,
  volumes: string[] = [],
): Promise<ServiceOutcome> {
  for (const info of await serviceContainers(docker, serviceId)) {
    say('uninstall', `removing instance ${instanceOf(info)} (${info.Id.slice(0, 12)})`)
    await removeContainer(docker, info.Id, graceSeconds)
  }
  for (const name of volumes) {
    try {
      await docker.getVolume(name).remove()
      say('uninstall', `removed volume ${name}`)
    } catch (error) {
      if ((error as { statusCode?: number }).statusCode !== 404) throw error
    }
  }
  return { ok: true }
}

/**
 * What a run whose runner was lost left (found by its execution label): each of its instances goes
 * when another version of the same instance still runs (the rollout never replaced it) or when it
 * does not run; an instance that runs alone, having replaced its previous one, is kept, the
 * service running as far as the run got. Jobs' runs go whatever their state.
 */
export async function removeAbandoned(docker: Docker, executionId: string, say: (message: string) => void): Promise<void> {
  const made = await docker.listContainers({ all: true, filters: { label: [`${LABELS.execution}=${executionId}`] } })
  for (const info of made) {
    const serviceId = info.Labels[LABELS.service]
    const instance = info.Labels[LABELS.instance]
    if (serviceId !== undefined && instance !== undefined && info.State === 'running') {
      const others = (await serviceContainers(docker, serviceId)).filter(
        (other) => other.State === 'running' && other.Labels[LABELS.execution] !== executionId && other.Labels[LABELS.instance] === instance,
      )
      if (others.length === 0) {
        say(`kept instance ${instance} (${info.Id.slice(0, 12)}) of the interrupted run: it replaced the previous one`)
        continue
      }
    }
    say(`removing ${info.Names[0]?.replace(/^\//, '') ?? info.Id.slice(0, 12)} (${info.State}), left half-made by the interrupted run`)
    await removeContainer(docker, info.Id, 0)
  }
}
