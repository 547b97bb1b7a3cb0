import { createInterface } from 'node:readline'
import { PassThrough } from 'node:stream'
import type Docker from 'dockerode'

// How Berth names and finds what it makes in a Docker engine: every object carries labels naming
// its service, environment and execution (docs/docker.md, "Docker"), so that an operator, and the next
// runner after a crash, finds them by label rather than by a name Berth remembers.

export const LABELS = {
  service: 'berth.service-id',
  environment: 'berth.environment-id',
  execution: 'berth.execution-id',
  /** Which instance of the service a container is (0, 1, …); jobs' runs have none. */
  instance: 'berth.instance',
  /** The service's kind (CONTAINER, APPLICATION, DATABASE, JOB, IAC). */
  kind: 'berth.kind',
  /** The ids of the containers an instance took over from, comma-separated; empty on a first deploy. */
  replaces: 'berth.replaces',
  /** An instance's ports as its deploy ran them (JSON of `PublicPort`s): what the front door routes. */
  ports: 'berth.ports',
} as const

/** A port of an instance as the front door reads it from the instance's label. */
export interface PublicPort {
  internalPort: number
  protocol: 'HTTP' | 'GRPC' | 'TCP' | 'UDP'
  publiclyAccessible: boolean
  isDefault: boolean
}

/** The ports an instance's label names; none when it names none (an instance of a Berth before the label, a job's run). */
export function labelledPorts(labels: Record<string, string>): PublicPort[] {
  try {
    const ports: unknown = JSON.parse(labels[LABELS.ports] ?? '[]')
    return Array.isArray(ports) ? (ports as PublicPort[]) : []
  } catch {
    return []
  }
}

/** Whose deployment made an object. */
export interface Owner {
  serviceId: string
  environmentId: string
  executionId: string
  kind: string
}

export const ownerLabels = (owner: Owner): Record<string, string> => ({
  [LABELS.service]: owner.serviceId,
  [LABELS.environment]: owner.environmentId,
  [LABELS.execution]: owner.executionId,
  [LABELS.kind]: owner.kind,
})

/**
 * A container's labels: its service's labels groups' (keys under `berth.` left out: those are
 * Berth's, which find and own what it made), then Berth's own, and which instance it is.
 */
export function containerLabels(owner: Owner, groupLabels: Record<string, string> | undefined, instance: string): Record<string, string> {
  const labels: Record<string, string> = {}
  for (const [key, value] of Object.entries(groupLabels ?? {})) if (!key.startsWith('berth.')) labels[key] = value
  return { ...labels, ...ownerLabels(owner), [LABELS.instance]: instance }
}

/** The environment's own network: its services reach each other there by name, and nothing else is on it. */
export const networkName = (environmentId: string) => `berth-env-${environmentId}`

/** A name Docker and DNS accept, from a service's name: lower case letters, digits and dashes, at most 40. */
export function dnsLabel(name: string): string {
  const label = name
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/, '')
  return label === '' ? 'service' : label
}

/** A container's name: readable, unique per service, execution and instance. */
export const containerName = (serviceName: string, owner: Owner, suffix: string) =>
  `berth-${dnsLabel(serviceName)}-${owner.serviceId.slice(0, 8)}-${owner.executionId.slice(0, 8)}-${suffix}`

/** The environment networks this process is making now: the services of one stage deploy at once, and all need it. */
const networksBeingMade = new Map<string, Promise<string>>()

/**
 * Creates the environment's network unless it exists; its name. The engine does not refuse a
 * second network of the same name made at the same moment (`CheckDuplicate` is best effort), and
 * a name two networks share can no longer be joined ("ambiguous"): a stage's services, deploying
 * at once, share one creation.
 */
export function ensureNetwork(docker: Docker, environmentId: string): Promise<string> {
  const making = networksBeingMade.get(environmentId)
  if (making) return making
  const made = makeNetwork(docker, environmentId).finally(() => networksBeingMade.delete(environmentId))
  networksBeingMade.set(environmentId, made)
  return made
}

async function makeNetwork(docker: Docker, environmentId: string): Promise<string> {
  const name = networkName(environmentId)
  // One inspect by its exact name (not an id prefix: names are not hex), not a listing the engine filters.
  const found = await docker
    .getNetwork(name)
    .inspect()
    .then(
      () => true,
      (error: { statusCode?: number }) => {
        if (error.statusCode === 404) return false
        throw error
      },
    )
  if (found) return name
  try {
    await docker.createNetwork({ Name: name, Driver: 'bridge', CheckDuplicate: true, Labels: { [LABELS.environment]: environmentId } })
  } catch (error) {
    // Another runner made it meanwhile.
    if ((error as { statusCode?: number }).statusCode !== 409) throw error
  }
  return name
}

/**
 * Removes the environment's network once no container of the environment is left (its last
 * service uninstalled or deleted, the environment deleted): Docker's address pools hold about 30
 * bridge networks, so a leaked one per environment soon stops every new deploy. True when removed.
 */
export async function removeNetworkIfUnused(docker: Docker, environmentId: string): Promise<boolean> {
  const left = await docker.listContainers({ all: true, filters: { label: [`${LABELS.environment}=${environmentId}`] } })
  if (left.length > 0) return false
  try {
    await docker.getNetwork(networkName(environmentId)).remove()
    return true
  } catch (error) {
    // Gone already, or a container joined it meanwhile (its next emptying removes it).
    const status = (error as { statusCode?: number }).statusCode
    if (status === 404 || status === 403 || status === 409) return false
    throw error
  }
}

/** The service's containers, running or not, by label. */
export function serviceContainers(docker: Docker, serviceId: string): Promise<Docker.ContainerInfo[]> {
  return docker.listContainers({ all: true, filters: { label: [`${LABELS.service}=${serviceId}`] } })
}

/** Stops a container at once (a run killed at its deadline), keeping it; one stopped or gone is fine. */
export async function stopContainer(docker: Docker, id: string): Promise<void> {
  try {
    await docker.getContainer(id).stop({ t: 0 })
  } catch (error) {
    const status = (error as { statusCode?: number }).statusCode
    if (status !== 304 && status !== 404) throw error
  }
}

/** Stops (with `graceSeconds`) and removes a container; one already gone is fine. */
export async function removeContainer(docker: Docker, id: string, graceSeconds = 10): Promise<void> {
  const container = docker.getContainer(id)
  try {
    await container.stop({ t: graceSeconds })
  } catch (error) {
    const status = (error as { statusCode?: number }).statusCode
    if (status !== 304 && status !== 404) throw error
  }
  try {
    await container.remove({ force: true })
  } catch (error) {
    const status = (error as { statusCode?: number }).statusCode
    if (status !== 404 && status !== 409) throw error
  }
}

/** The last `count` lines a container wrote (stdout and stderr), for a failure's message. */
export async function lastLines(docker: Docker, id: string, count = 20): Promise<string[]> {
  try {
    const buffer = (await docker.getContainer(id).logs({ stdout: true, stderr: true, tail: count, follow: false })) as unknown as Buffer
    return demultiplex(buffer)
  } catch {
    return []
  }
}

/** Docker's multiplexed log stream (an 8-byte header per frame) as lines. */
export function demultiplex(buffer: Buffer): string[] {
  const chunks: Buffer[] = []
  let offset = 0
  while (offset + 8 <= buffer.length && (buffer[offset] === 1 || buffer[offset] === 2) && buffer[offset + 1] === 0) {
    const size = buffer.readUInt32BE(offset + 4)
    chunks.push(buffer.subarray(offset + 8, offset + 8 + size))
    offset += 8 + size
  }
  const text = (offset === 0 ? buffer : Buffer.concat(chunks)).toString('utf8')
  return text.split('\n').filter((line) => line.trim() !== '')
}

/** Following a container's output: stop it, or wait until the container closed its streams. */
export interface OutputFollower {
  /** Stops passing lines on and lets the engine's stream go. */
  stop(): void
  /** Settles once the stream ended (the container exited) or `ms` passed, whichever comes first. */
  ended(ms: number): Promise<void>
  /** Whether lines were dropped, past the limit. */
  readonly truncated: boolean
}

/** A line of the engine's log stream with `timestamps`: the time it was printed (RFC 3339), a space, the line. */
function timestamped(line: string): { at: Date | undefined; text: string } {
  const space = line.indexOf(' ')
  const at = space > 0 ? new Date(line.slice(0, space)) : undefined
  return at && !Number.isNaN(at.getTime()) ? { at, text: line.slice(space + 1) } : { at: undefined, text: line }
}

/**
 * Follows what a started container writes, stdout and stderr, line by line from its first one
 * (the engine's log, which keeps what it printed before this was called), each with the time the
 * engine says it was printed: at most `limit` lines reach `onLine`, then `onLimit` is called once
 * and the rest is dropped.
 */
export async function followOutput(
  docker: Docker,
  id: string,
  onLine: (line: string, at: Date | undefined) => void,
  { limit, onLimit = () => {} }: { limit: number; onLimit?: () => void },
): Promise<OutputFollower> {
  const stream = (await docker
    .getContainer(id)
    .logs({ follow: true, stdout: true, stderr: true, timestamps: true })) as unknown as NodeJS.ReadableStream & {
    destroy(): void
  }
  const merged = new PassThrough()
  docker.modem.demuxStream(stream, merged, merged)
  let lines = 0
  let stopped = false
  const reader = createInterface({ input: merged, crlfDelay: Number.POSITIVE_INFINITY })
  reader.on('line', (raw) => {
    const { at, text: line } = timestamped(raw)
    if (stopped || line.trim() === '') return
    lines++
    // Passed whole: the executor masks secrets in it before cutting it (maskedLogLine).
    if (lines <= limit) onLine(line, at)
    else if (lines === limit + 1) onLimit()
  })
  const ended = new Promise<void>((resolve) => {
    stream.on('end', resolve)
    stream.on('close', resolve)
    stream.on('error', () => resolve())
  }).then(() => merged.end())
  return {
    stop() {
      stopped = true
      stream.destroy()
      merged.end()
    },
    async ended(ms) {
      let timer: NodeJS.Timeout | undefined
      await Promise.race([ended, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))])
      clearTimeout(timer)
      // Lines already read are passed on before the caller goes on.
      await new Promise<void>((resolve) => setImmediate(resolve))
    },
    get truncated() {
      return lines > limit
    },
  }
}

/** What confines every container Berth creates, from the operator's settings (BERTH_DOCKER_PIDS_LIMIT, BERTH_DOCKER_CAP_DROP). */
export interface Confinement {
  /** 0: none. */
  pidsLimit: number
  capDrop: readonly string[]
}

export const DEFAULT_CONFINEMENT: Confinement = { pidsLimit: 1024, capDrop: ['NET_RAW', 'MKNOD', 'AUDIT_WRITE', 'SETFCAP', 'SETPCAP'] }

/**
 * The HostConfig fields that keep a container from the host, whatever its service asks: never
 * privileged, no added capabilities, the operator's dropped, no privilege gained through setuid
 * programs, and at most `pidsLimit` processes.
 */
export function confinedHostConfig(confinement: Confinement = DEFAULT_CONFINEMENT) {
  return {
    Privileged: false,
    CapAdd: [],
    CapDrop: [...confinement.capDrop],
    SecurityOpt: ['no-new-privileges'],
    ...(confinement.pidsLimit > 0 ? { PidsLimit: confinement.pidsLimit } : {}),
  }
}
