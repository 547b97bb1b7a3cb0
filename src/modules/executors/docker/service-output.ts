import type Docker from 'dockerode'
import type { OutputCursor, OutputLine, ServiceOutput } from '#src/modules/services/service-output.ts'
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

/** An RFC 3339 time (the engine's, to the nanosecond) as nanoseconds since the epoch: the engine trims trailing zeros, so text does not sort. */
export function nanosOf(timestamp: string): bigint {
  const match = /^(.*?:\d\d)(?:\.(\d{1,9}))?(Z|[+-]\d\d:\d\d)$/.exec(timestamp)
  if (!match) return -1n
  const seconds = Date.parse(`${match[1]}${match[3]}`)
  if (Number.isNaN(seconds)) return -1n
  return BigInt(seconds) * 1_000_000n + BigInt((match[2] ?? '').padEnd(9, '0'))
}

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

const byTime = (a: OutputLine, b: OutputLine) => {
  const difference = nanosOf(a.timestamp) - nanosOf(b.timestamp)
  return difference < 0n ? -1 : difference > 0n ? 1 : 0
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

  async function* following(
    serviceId: string,
    cursor: OutputCursor,
    first: OutputLine[],
    signal: AbortSignal,
    deploying: () => Promise<boolean>,
  ): AsyncIterable<OutputLine> {
    const positions = { ...cursor.positions }
    const queue: OutputLine[] = [...first]
    let wake: (() => void) | undefined
    const attached = new Map<string, { stream: NodeJS.ReadableStream & { destroy?(): void }; ended: boolean }>()
    const nudge = () => {
      wake?.()
      wake = undefined
    }
    signal.addEventListener('abort', nudge, { once: true })

    async function attach(info: Docker.ContainerInfo) {
      const instance = instanceOf(info)
      const after = positions[instance.source] ?? cursor.since
      const threshold = nanosOf(after)
      const stream = (await docker.getContainer(info.Id).logs({
        stdout: true,
        stderr: true,
        timestamps: true,
        follow: true,
        since: sinceOf(after) as unknown as number,
      })) as unknown as NodeJS.ReadableStream & {
        destroy?(): void
      }
      const entry = { stream, ended: false }
      attached.set(info.Id, entry)
      void readLines(docker, stream, instance, (line) => {
        // The engine's `since` keeps lines at that very time: those were given already.
        if (nanosOf(line.timestamp) <= threshold) return
        queue.push(line)
        nudge()
      }).then(() => {
        entry.ended = true
        nudge()
      })
    }

    try {
      let running = true
      let lookedAt = 0
      while (!signal.aborted) {
        if (Date.now() - lookedAt >= pollMs) {
          lookedAt = Date.now()
          const found = await instances(serviceId)
          // A container the engine restarted prints again after its stream ended: it is read again, after its position.
          for (const info of found)
            if (!attached.has(info.Id) || (attached.get(info.Id)!.ended && info.State === 'running'))
              // One removed or being removed (a replaced instance) is not read; one that failed otherwise is tried at the next look.
              await attach(info).catch(() => undefined)
          running = found.some((info) => info.State === 'running' || info.State === 'restarting' || info.State === 'created')
        }
        while (queue.length > 0) {
          const line = queue.shift()!
          positions[line.source] = line.timestamp
          yield line
        }
        // Every stream ended and nothing runs: the service stopped, and every line was given; unless a
        // deployment is under way (a stateful service's redeploy stops the old instance before the new starts).
        if (!running && [...attached.values()].every((entry) => entry.ended) && !(await deploying())) return
        await new Promise<void>((resolve) => {
          wake = resolve
          setTimeout(resolve, pollMs).unref()
        })
      }
    } finally {
      signal.removeEventListener('abort', nudge)
      for (const entry of attached.values()) entry.stream.destroy?.()
    }
  }

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
