import { setTimeout as sleep } from 'node:timers/promises'
import type Docker from 'dockerode'
import { type Span, untimed } from '#src/platform/spans.ts'
import type { ServiceOutcome } from '../executor.ts'
import { isWebPort } from '../public-hosts.ts'
import type { Probe } from '../workload.ts'
import {
  type Confinement,
  confinedHostConfig,
  containerLabels,
  containerName,
  followOutput,
  LABELS,
  lastLines,
  type Owner,
  ownerLabels,
  type PublicPort,
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
  /** The ports as the front door reads them from the instance's label (docs/front-door.md). */
  publicPorts: PublicPort[]
  /** Named volumes (kept until the service is deleted). */
  volumes: { name: string; mountPoint: string }[]
  readiness: Probe | null
  instances: number
  /** How long a stopping instance gets before it is killed. */
  stopGraceSeconds: number
}

/** Reports a line of a step; `at`, when the engine says when it was printed. */
export type Say = (step: string, message: string, level?: 'INFO' | 'WARNING' | 'ERROR', at?: Date) => void

/** How many of an instance's first lines go to the logs while the rollout waits for it to be ready. */
export const INSTANCE_FIRST_LINES = 20

const instanceOf = (info: Docker.ContainerInfo) => Number(info.Labels[LABELS.instance] ?? 0)

/** Where an instance's public ports are published: the host address, and the host ports it may take. */
export interface PublishSettings {
  /** BERTH_DOCKER_PUBLISH_HOST. */
  host: string
  /** BERTH_DOCKER_PUBLISH_PORTS: `from-to`, the engine picking a free one; empty: any free port. */
  ports: string
  /**
   * The front door (docs/front-door.md): told of each new instance once it is ready, it sends the
   * service's traffic to it and away from those it replaces, which are stopped only afterwards.
   */
  instanceReady?: ((instance: { containerId: string; serviceId: string }) => Promise<void>) | undefined
  /**
   * How long an instance the front door no longer sends traffic to keeps answering what it has
   * before it is stopped; 0 or absent without a front door.
   */
  drainMs?: number | undefined
}

/** Creates a named volume with Berth's labels unless it exists (the engine would make it bare). */
async function ensureVolume(docker: Docker, name: string, owner: Owner): Promise<void> {
  try {
    await docker.getVolume(name).inspect()
    return
  } catch (error) {
    if ((error as { statusCode?: number }).statusCode !== 404) throw error
  }
  const { [LABELS.execution]: _execution, ...labels } = ownerLabels(owner)
  await docker.createVolume({ Name: name, Labels: labels })
}

/**
 * Creates one instance. Nothing of the request reaches the host: no privileged mode, host network,
 * host paths, devices or added capabilities; only named volumes, the environment's network and
 * published ports on the publish host. `replaces` names the containers it takes over from (none on
 * a first deploy): what the next runner reads after a crash to tell how far the rollout got.
 */
async function createInstance(
  docker: Docker,
  spec: InstanceSpec,
  index: number,
  publish: PublishSettings,
  replaces: string[],
): Promise<Docker.Container> {
  const exposed: Record<string, object> = {}
  const bindings: Record<string, { HostIp: string; HostPort: string }[]> = {}
  for (const port of spec.ports) {
    const key = `${port.internal}/${port.protocol.toLowerCase()}`
    exposed[key] = {}
    if (port.publish) bindings[key] = [{ HostIp: publish.host, HostPort: publish.ports }]
  }
  for (const volume of spec.volumes) await ensureVolume(docker, volume.name, spec.owner)
  const container = await docker.createContainer({
    name: containerName(spec.serviceName, spec.owner, String(index)),
    Image: spec.image,
    ...(spec.entrypoint ? { Entrypoint: spec.entrypoint } : {}),
    ...(spec.command ? { Cmd: spec.command } : {}),
    Env: spec.env,
    Labels: {
      ...containerLabels(spec.owner, spec.labels, String(index)),
      [LABELS.replaces]: replaces.join(','),
      [LABELS.ports]: JSON.stringify(spec.publicPorts),
    },
    ExposedPorts: exposed,
    // The image's STOPSIGNAL is the engine's default: none is set here.
    StopTimeout: spec.stopGraceSeconds,
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

const shortName = (info: Docker.ContainerInfo) => info.Names[0]?.replace(/^\//, '') ?? info.Id.slice(0, 12)

/**
 * Stops and removes the previous instances once their replacements serve, without waiting: an
 * image that ignores its stop signal holds only its own grace period, not the environment's queue.
 * An instance the front door no longer routes to is first given `drainMs` to answer what it holds.
 * A stop that fails leaves the instance to the next rollout, which finds it by label.
 */
function retireInBackground(docker: Docker, old: Docker.ContainerInfo[], graceSeconds: number, say: Say, drainMs = 0): Promise<void> {
  if (old.length === 0) return Promise.resolve()
  for (const info of old)
    say(
      'start',
      `stopping the previous instance ${instanceOf(info)} (${info.Id.slice(0, 12)}) in the background${drainMs > 0 ? `, once it answered what it had (${drainMs / 1000} s)` : ''}, with its image's stop signal and ${graceSeconds} s of grace`,
    )
  const drained = drainMs > 0 ? sleep(drainMs) : Promise.resolve()
  return drained
    .then(() => Promise.all(old.map((info) => removeContainer(docker, info.Id, graceSeconds).catch(() => undefined))))
    .then(() => undefined)
}

/**
 * A rollout's outcome; `retired` settles once the previous instances stopping in the background are
 * gone; `routed`: the front door was told of every new instance and routes to them already.
 */
export type Rollout = ServiceOutcome & { retired?: Promise<void>; routed?: boolean }

/**
 * Rolls the service out: leftovers of runs that never finished go first. A service without storage
 * starts each new instance and waits for it before the old instance of its number is retired (in
 * the background); old instances beyond the new count go last. A service with storage (a database,
 * a container with volumes) must never run twice on its volumes: its old instances are stopped
 * first, the service is down until the new ones are ready, and the log and the history entry say
 * so. A new instance that is not ready fails the rollout with its last lines, and every new
 * instance is removed, the old ones left (or started again) running.
 */
export async function rollOut(
  docker: Docker,
  spec: InstanceSpec,
  publish: PublishSettings,
  say: Say,
  signal: AbortSignal,
  span: Span = untimed,
): Promise<Rollout> {
  const existing = await span('list instances', () => serviceContainers(docker, spec.owner.serviceId))
  const previous = existing.filter((info) => info.State === 'running' && info.Labels[LABELS.execution] !== spec.owner.executionId)
  for (const leftover of existing.filter((info) => !previous.includes(info))) {
    say('cleanup', `removing ${shortName(leftover)} (${leftover.State}), left by an earlier run`)
    await removeContainer(docker, leftover.Id, 0)
  }
  const stopsFirst = spec.volumes.length > 0 && previous.length > 0
  let downSince: number | undefined
  if (stopsFirst) {
    say(
      'stop',
      `the service has storage: its ${previous.length} running instance(s) stop before the new ones start, so that no volume is used by two containers; it is down until the new version is ready`,
      'WARNING',
    )
    downSince = Date.now()
    for (const old of previous) {
      say('stop', `stopping the previous instance ${instanceOf(old)} (${old.Id.slice(0, 12)}), ${spec.stopGraceSeconds} s of grace`)
      await stopContainer(docker, old.Id, spec.stopGraceSeconds)
    }
  }
  /** Puts the previous version back after a failed or canceled rollout of a service with storage. */
  const restorePrevious = async () => {
    if (!stopsFirst) return
    for (const old of previous)
      await docker
        .getContainer(old.Id)
        .start()
        .catch(() => undefined)
    say('start', 'the previous instances were started again', 'WARNING')
  }
  const started: string[] = []
  const retiring: Promise<void>[] = []
  // Whether the front door was switched to every new instance (then nothing waits for another load of its routes).
  let routed = spec.instances > 0
  const defaultPort = spec.ports[0]?.internal
  try {
    for (let index = 0; index < spec.instances; index++) {
      const replaces = previous.filter((info) => instanceOf(info) === index)
      const container = await span('create', () =>
        createInstance(
          docker,
          spec,
          index,
          publish,
          replaces.map((info) => info.Id),
        ),
      )
      started.push(container.id)
      await span('start', () => container.start())
      say('start', `instance ${index} started (${container.id.slice(0, 12)}); waiting until it is ready`)
      // Its first lines, live and timed by the engine; its last ones if it fails.
      const output = await span('follow output', () =>
        followOutput(docker, container.id, (line, at) => say('start', `instance ${index}: ${line}`, 'INFO', at), {
          limit: INSTANCE_FIRST_LINES,
        }),
      )
      const readiness = await span('readiness', () => waitReady(docker, container.id, spec.readiness, defaultPort, signal)).finally(() =>
        output.stop(),
      )
      if (!readiness.ready) {
        const lines = await lastLines(docker, container.id)
        for (const line of lines) say('start', `instance ${index}: ${line}`, 'WARNING')
        await removeAll(docker, started)
        await restorePrevious()
        return {
          ok: false,
          message: `instance ${index} is not ready: ${readiness.reason}${previous.length > 0 ? '; the previous version keeps running' : ''}${lines.length > 0 ? `; its last lines: ${lines.slice(-5).join(' | ')}` : ''}`,
        }
      }
      say('start', `instance ${index} is ready`)
      // Only public HTTP and gRPC ports go through the front door: a database (TCP) is never said to get its traffic there.
      const { instanceReady } = publish
      let switched = false
      if (instanceReady && spec.publicPorts.some(isWebPort)) {
        try {
          await span('front door switch', () => instanceReady({ containerId: container.id, serviceId: spec.owner.serviceId }))
          switched = true
          say('start', `the front door sends instance ${index}'s share of the traffic to it`)
        } catch (error) {
          say('start', `the front door was not told that instance ${index} is ready: ${(error as Error).message}`, 'WARNING')
        }
      }
      if (!switched) routed = false
      if (stopsFirst)
        await removeAll(
          docker,
          replaces.map((info) => info.Id),
        )
      // What the front door sent the replaced instance before the switch is answered before it
      // stops, in the background: the deployment does not wait for it (a first deploy replaces nothing).
      else retiring.push(retireInBackground(docker, replaces, spec.stopGraceSeconds, say, switched ? (publish.drainMs ?? 0) : 0))
    }
  } catch (error) {
    // A cancel, or the engine failing: what this run made goes, the previous version stays.
    await removeAll(docker, started)
    await restorePrevious()
    throw error
  }
  const beyond = previous.filter((info) => instanceOf(info) >= spec.instances)
  if (stopsFirst)
    await removeAll(
      docker,
      beyond.map((info) => info.Id),
    )
  else retiring.push(retireInBackground(docker, beyond, spec.stopGraceSeconds, say))
  if (downSince === undefined) return { ok: true, retired: Promise.all(retiring).then(() => undefined), routed }
  const downSeconds = Math.round((Date.now() - downSince) / 100) / 10
  say('start', `the service was down for ${downSeconds} s: its storage allows one version at a time`)
  return { ok: true, details: { downtime: { reason: 'storage: the previous version stopped before the new one started', seconds: downSeconds } } }
}

/** Stops a container (with its image's stop signal); one already stopped or gone is fine (false: it was gone). */
async function stopContainer(docker: Docker, id: string, graceSeconds: number): Promise<boolean> {
  try {
    await docker.getContainer(id).stop({ t: graceSeconds })
    return true
  } catch (error) {
    const status = (error as { statusCode?: number }).statusCode
    if (status === 404) return false
    if (status !== 304) throw error
    return true
  }
}

async function removeAll(docker: Docker, ids: string[]): Promise<void> {
  for (const id of ids) await removeContainer(docker, id, 0).catch(() => undefined)
}

/** Stops every instance, keeping them (a deploy replaces them). */
export async function stopInstances(docker: Docker, serviceId: string, graceSeconds: number, say: Say): Promise<ServiceOutcome> {
  const instances = (await serviceContainers(docker, serviceId)).filter((info) => info.State === 'running')
  for (const info of instances) {
    say('stop', `stopping instance ${instanceOf(info)} (${info.Id.slice(0, 12)})`)
    // A rollout's background retirement may remove it meanwhile (issue 42): an instance already gone is stopped.
    if (!(await stopContainer(docker, info.Id, graceSeconds)))
      say('stop', `instance ${instanceOf(info)} (${info.Id.slice(0, 12)}) was already gone: a rollout retired it meanwhile`)
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
 * Makes the engine agree with the record of a run whose runner was lost (found by its execution
 * label). Each of its instances is adopted only when the run had passed its point of no return
 * for it: the instances it replaced are gone, so the service runs nothing else; then it is kept if
 * it runs. Otherwise it goes: when it replaced nothing (a first deploy, or one after a stop: the
 * history says the deployment failed, and nothing of the service runs), or while an instance it was to replace still exists, which is started again
 * if it was stopped (a service with storage). Jobs' runs go whatever their state. Says which.
 */
export async function removeAbandoned(docker: Docker, executionId: string, say: (message: string) => void): Promise<void> {
  const made = await docker.listContainers({ all: true, filters: { label: [`${LABELS.execution}=${executionId}`] } })
  for (const info of made) {
    const serviceId = info.Labels[LABELS.service]
    const instance = info.Labels[LABELS.instance]
    const replaced = (info.Labels[LABELS.replaces] ?? '').split(',').filter((id) => id !== '')
    const name = shortName(info)
    if (serviceId === undefined || instance === undefined || !/^\d+$/.test(instance)) {
      say(`removed ${name} (${info.State}), a job's run of the interrupted deployment`)
      await removeContainer(docker, info.Id, 0)
      continue
    }
    const service = await serviceContainers(docker, serviceId)
    const remaining = service.filter((other) => replaced.includes(other.Id))
    if (info.State === 'running' && replaced.length > 0 && remaining.length === 0) {
      say(`adopted instance ${instance} (${name}) of the interrupted deployment: it runs, and the instance it replaced is gone`)
      continue
    }
    await removeContainer(docker, info.Id, 0)
    if (replaced.length === 0) {
      say(
        `removed instance ${instance} (${name}, ${info.State}) of the interrupted deployment: nothing of the service ran before it (a first deploy, or one after a stop) and the deployment never finished`,
      )
      continue
    }
    for (const old of remaining.filter((other) => other.State !== 'running'))
      await docker
        .getContainer(old.Id)
        .start()
        .catch(() => undefined)
    say(
      remaining.length > 0
        ? `removed instance ${instance} (${name}, ${info.State}) of the interrupted deployment: the previous version of it still exists and runs again`
        : `removed instance ${instance} (${name}, ${info.State}) of the interrupted deployment: it does not run`,
    )
  }
}
