import type Docker from 'dockerode'
import { byTime, type FollowedEngine, followOutput, nanosOf } from '../followed-output.ts'
import type { OutputCursor, OutputLine, ServiceOutput } from '../service-output.ts'
import { LABELS } from './docker-objects.ts'

// The Docker executor's answer to "what did this service print" (service-output.ts): the engine's
// log of each of the service's containers, found by label, read with timestamps and with stdout
// and stderr kept apart. Environments that do not deploy to Docker are not asked about.

export interface DockerServiceOutputDeps {
  docker: Docker
  /** Whether the environment's cluster deploys to Docker (one small query; no engine call when not). */
  deploysToDocker(environmentId: string): Promise<boolean>
  /** How often a follower looks for instances that started or stopped (a redeploy's new containers). */
  pollMs?: number
}

/** A line of the engine's output longer than this is cut. */
const MAX_LINE_LENGTH = 16_384

/** The engine's `since` for a time: seconds and nanoseconds (it keeps lines at that time too). */
const sinceOf = (timestamp: string) => {
  const nanos = nanosOf(timestamp)
  return nanos < 0n ? '0' : `${nanos / 1_000_000_000n}.${(nanos % 1_000_000_000n).toString().padStart(9, '0')}`
}

type Instance = Pick<OutputLine, 'source' | 'instance' | 'instanceName' | 'executionId'>

const instanceOf = (info: Docker.ContainerInfo): Instance => ({
  source: info.Id.slice(0, 12),
  instance: info.Labels[LABELS.instance] ?? '',
  instanceName: info.Names[0]?.replace(/^\//, '') ?? info.Id.slice(0, 12),
  executionId: info.Labels[LABELS.execution] ?? '',
})

/**
 * Reads an engine log stream (multiplexed, with timestamps) line by line, in the order the engine
 * sent them: demuxStream writes each frame synchronously to the writer of its stream.
 */
function readLines(docker: Docker, stream: NodeJS.ReadableStream, instance: Instance, onLine: (line: OutputLine) => void): Promise<void> {
  const partial = { stdout: '', stderr: '' }
  const writer = (name: 'stdout' | 'stderr') => ({
    write(chunk: Buffer) {
      const text = partial[name] + chunk.toString('utf8')
      const lines = text.split('\n')
      partial[name] = lines.pop() ?? ''
      for (const raw of lines) emit(name, raw)
      return true
    },
  })
  function emit(name: 'stdout' | 'stderr', raw: string) {
    const space = raw.indexOf(' ')
    const timestamp = space > 0 ? raw.slice(0, space) : ''
    if (nanosOf(timestamp) < 0n) return
    const message = raw.slice(space + 1).replace(/\r$/, '')
    onLine({ ...instance, stream: name, timestamp, message: message.length > MAX_LINE_LENGTH ? `${message.slice(0, MAX_LINE_LENGTH)} …` : message })
  }
  docker.modem.demuxStream(stream, writer('stdout') as never, writer('stderr') as never)
  return new Promise<void>((resolve) => {
    const done = () => {
      for (const name of ['stdout', 'stderr'] as const) if (partial[name] !== '') emit(name, partial[name])
      partial.stdout = ''
      partial.stderr = ''
      resolve()
    }
    stream.on('end', done)
    stream.on('close', done)
    stream.on('error', done)
  })
}

export function createDockerServiceOutput(deps: DockerServiceOutputDeps): ServiceOutput {
  const { docker } = deps
  const pollMs = deps.pollMs ?? 1000

  /** The service's instances (a job's runs too), running or not. */
  const instances = async (serviceId: string) =>
    (await docker.listContainers({ all: true, filters: { label: [`${LABELS.service}=${serviceId}`] } })).filter(
      (info) => info.Labels[LABELS.instance] !== undefined,
    )

  async function lastOf(info: Docker.ContainerInfo, count: number): Promise<OutputLine[]> {
    const lines: OutputLine[] = []
    try {
      const buffer = (await docker
        .getContainer(info.Id)
        .logs({ stdout: true, stderr: true, timestamps: true, tail: count, follow: false })) as unknown as Buffer
      const { Readable } = await import('node:stream')
      await readLines(docker, Readable.from([buffer]), instanceOf(info), (line) => lines.push(line))
    } catch (error) {
      // Removed, or being removed (a replaced instance), meanwhile: what it printed is not kept.
      const status = (error as { statusCode?: number }).statusCode
      if (status !== 404 && status !== 409) throw error
    }
    return lines
  }

  async function last(service: { id: string; environmentId: string }, count: number) {
    if (!(await deps.deploysToDocker(service.environmentId))) return undefined
    const all = (await Promise.all((await instances(service.id)).map((info) => lastOf(info, count)))).flat()
    return all.sort(byTime).slice(-count)
  }

  /** What `followOutput` needs of the engine: the service's containers, each read from a time on. */
  const followed = (serviceId: string): FollowedEngine<Docker.ContainerInfo> => ({
    async look() {
      const found = await instances(serviceId)
      return { found, running: found.some((info) => info.State === 'running' || info.State === 'restarting' || info.State === 'created') }
    },
    id: (info) => info.Id,
    source: (info) => instanceOf(info).source,
    printsAgain: (info) => info.State === 'running',
    async read(info, after, line, ended) {
      const stream = (await docker.getContainer(info.Id).logs({
        stdout: true,
        stderr: true,
        timestamps: true,
        follow: true,
        since: sinceOf(after) as unknown as number,
      })) as unknown as NodeJS.ReadableStream & { destroy?(): void }
      void readLines(docker, stream, instanceOf(info), line).then(ended)
      return () => stream.destroy?.()
    },
  })

  const following = (serviceId: string, cursor: OutputCursor, first: OutputLine[], signal: AbortSignal, deploying: () => Promise<boolean>) =>
    followOutput(followed(serviceId), cursor, first, signal, deploying, pollMs)

  return {
    runsHere: deps.deploysToDocker,
    last,

    async follow(service, from, signal, deploying) {
      if (!(await deps.deploysToDocker(service.environmentId))) return undefined
      if ('cursor' in from) return following(service.id, from.cursor, [], signal, deploying)
      // The last lines, then what each instance prints after its last of them (after the start, for one that printed none).
      const since = new Date().toISOString()
      const first = (await last(service, from.last)) ?? []
      const positions: Record<string, string> = {}
      for (const line of first) positions[line.source] = line.timestamp
      return following(service.id, { since, positions }, first, signal, deploying)
    },
  }
}
