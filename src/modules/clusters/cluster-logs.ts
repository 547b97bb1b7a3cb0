import { open } from 'node:fs/promises'
import { violatedForeignKey } from '#src/platform/db/errors.ts'
import { AppError } from '#src/platform/http/errors.ts'
import type { ClusterLocksDb } from './cluster-locks.tables.ts'

// What Berth did to a cluster, line by line (listClusterLogs; docs/clusters.md, "Logs"): its
// creation, deploy and stop, kubeconfig changes, locks, DNS provider, upgrades. get-cluster-logs
// reads the same lines, and on a Docker cluster the front door's (Caddy's log), as Loki would answer
// a query of a small LogQL subset: a `{component="…"}` selector and `|=`/`!=` line filters.

/** The reference's ClusterLogs steps. */
export type ClusterLogStep =
  | 'LoadConfiguration'
  | 'Create'
  | 'Created'
  | 'CreateError'
  | 'Pause'
  | 'Paused'
  | 'PauseError'
  | 'Delete'
  | 'Deleted'
  | 'DeleteError'
  | 'RetrieveClusterConfig'
  | 'RetrieveClusterResources'
  | 'ValidateSystemRequirements'
  | 'UnderMigration'
  | 'Unknown'

export interface ClusterLogEntry {
  type: 'info' | 'warning' | 'error'
  step: ClusterLogStep
  message: string
  errorTag?: string
}

export interface ClusterLogLine extends ClusterLogEntry {
  createdAt: Date
}

/** Writes a cluster's log lines; `record` never fails its caller (a cluster deleted meanwhile has no lines). */
export type ClusterLogRecorder = (cluster: { id: string; organizationId: string }, entry: ClusterLogEntry) => Promise<void>

/** The most lines one answer holds (the newest kept). */
export const MAX_LOG_LINES = 1000
/** How much of the end of the front door's log is read. */
const FRONT_DOOR_TAIL_BYTES = 1_048_576

export function clusterLogs(db: ClusterLocksDb) {
  const record: ClusterLogRecorder = async (cluster, entry) => {
    try {
      await db
        .insertInto('clusterLogs')
        .values({
          clusterId: cluster.id,
          organizationId: cluster.organizationId,
          type: entry.type,
          step: entry.step,
          message: entry.message,
          errorTag: entry.errorTag ?? null,
        })
        .execute()
    } catch (error) {
      if (violatedForeignKey(error) === undefined) throw error
    }
  }

  return {
    record,

    /** The cluster's lines, oldest first, at most MAX_LOG_LINES (the newest). */
    async list(clusterId: string): Promise<ClusterLogLine[]> {
      const rows = await db
        .selectFrom('clusterLogs')
        .select(['createdAt', 'type', 'step', 'message', 'errorTag'])
        .where('clusterId', '=', clusterId)
        .orderBy('id', 'desc')
        .limit(MAX_LOG_LINES)
        .execute()
      return rows.reverse().map(({ errorTag, ...row }) => ({ ...row, step: row.step as ClusterLogStep, ...(errorTag ? { errorTag } : {}) }))
    },
  }
}

export type ClusterLogs = ReturnType<typeof clusterLogs>

/** A line of Caddy's log, with its fields when it is JSON (undefined otherwise). */
export interface FrontDoorLine {
  at: Date
  line: string
  fields: unknown
}

/** The lines of the end of Caddy's log (JSON lines with `ts` in seconds); none when there is no such file. */
export async function frontDoorLines(file: string): Promise<FrontDoorLine[]> {
  let handle: Awaited<ReturnType<typeof open>>
  try {
    handle = await open(file, 'r')
  } catch {
    return []
  }
  try {
    const { size } = await handle.stat()
    const start = Math.max(0, size - FRONT_DOOR_TAIL_BYTES)
    const buffer = Buffer.alloc(size - start)
    await handle.read(buffer, 0, buffer.length, start)
    const lines = buffer.toString('utf8').split('\n')
    if (start > 0) lines.shift()
    return lines
      .filter((line) => line.trim() !== '')
      .map((line) => {
        let fields: unknown
        try {
          fields = JSON.parse(line)
        } catch {
          fields = undefined
        }
        const ts = (fields as { ts?: unknown } | null | undefined)?.ts
        return { at: typeof ts === 'number' ? new Date(ts * 1000) : new Date(0), line, fields }
      })
  } finally {
    await handle.close()
  }
}

/** The fields Caddy names a host in: a request's `host`, a handshake's `server_name`, a certificate's `identifier(s)`, `subjects`, `domains`. */
const HOST_FIELDS = new Set(['host', 'server_name', 'sni', 'identifier', 'identifiers', 'subjects', 'names', 'domain', 'domains'])

/** A host name without its port (`a.example:443`, `[::1]:443`), lowercased. */
const bareHost = (host: string) =>
  host
    .toLowerCase()
    .replace(/^\[([^\]]*)\](?::\d+)?$/, '$1')
    .replace(/:\d+$/, '')

/** The host names a Caddy log line's fields name, wherever they sit in them. */
function hostsNamed(fields: unknown): string[] {
  const hosts: string[] = []
  const walk = (value: unknown, key: string | undefined) => {
    if (typeof value === 'string') {
      if (key !== undefined && HOST_FIELDS.has(key) && value !== '') hosts.push(bareHost(value))
    } else if (Array.isArray(value)) for (const item of value) walk(item, key)
    else if (value !== null && typeof value === 'object') for (const [field, inner] of Object.entries(value)) walk(inner, field)
  }
  walk(fields, undefined)
  return hosts
}

/**
 * The lines of the shared front door's log one organization may read: its Caddy serves every
 * organization's services, so a line that names a host is kept only when every host it names is
 * one of the organization's, a line that is not JSON (a crash's trace) is dropped, and a line that
 * names no host (Caddy starting, a configuration loaded) is kept.
 */
export function organizationFrontDoorLines(lines: readonly FrontDoorLine[], isOwnHost: (host: string) => boolean): FrontDoorLine[] {
  return lines.filter(({ fields }) => fields !== undefined && hostsNamed(fields).every(isOwnHost))
}

/** A query of get-cluster-logs: the LogQL subset Berth reads. */
export interface LogQuery {
  components: Set<string> | undefined
  include: string[]
  exclude: string[]
}

const queryError = (message: string) =>
  new AppError('validation_failed', `query ${message}`, { errors: [{ path: '/query', message, location: 'query' }] })

/** The components a cluster's lines come from. */
export const LOG_COMPONENTS = ['cluster', 'front-door'] as const

/**
 * `{component="cluster"}`, `{component=~"cluster|front-door"}` or `{}`, then `|= "text"` and
 * `!= "text"` filters; anything else is a 400 saying what Berth reads.
 */
export function parseLogQuery(text: string): LogQuery {
  let rest = text.trim()
  let components: Set<string> | undefined
  const selector = /^\{([^}]*)\}/.exec(rest)
  if (!selector) throw queryError('must start with a stream selector such as {component="cluster"}')
  const matchers = (selector[1] ?? '').trim()
  if (matchers !== '') {
    const matcher = /^component\s*(=~|=)\s*"([^"]*)"$/.exec(matchers)
    if (!matcher) throw queryError('selects by the label `component` only: {component="cluster"} or {component=~"cluster|front-door"}')
    const values = matcher[1] === '=~' ? (matcher[2] ?? '').split('|') : [matcher[2] ?? '']
    for (const value of values) {
      if (!(LOG_COMPONENTS as readonly string[]).includes(value))
        throw queryError(`names the component "${value}": there are ${LOG_COMPONENTS.join(' and ')}`)
    }
    components = new Set(values)
  }
  rest = rest.slice(selector[0].length).trim()
  const include: string[] = []
  const exclude: string[] = []
  while (rest !== '') {
    const filter = /^(\|=|!=)\s*"((?:[^"\\]|\\.)*)"/.exec(rest)
    if (!filter) throw queryError('has only `|= "text"` and `!= "text"` line filters after the selector')
    const value = (filter[2] ?? '').replace(/\\(.)/g, '$1')
    ;(filter[1] === '|=' ? include : exclude).push(value)
    rest = rest.slice(filter[0].length).trim()
  }
  return { components, include, exclude }
}

/** A Loki time: nanoseconds since the epoch, or RFC 3339. */
export function lokiTime(text: string | undefined, name: string): Date | undefined {
  if (text === undefined || text === '') return undefined
  if (/^\d+$/.test(text)) return new Date(Number(BigInt(text) / 1_000_000n))
  const at = new Date(text)
  if (Number.isNaN(at.getTime())) {
    const message = 'is neither nanoseconds since the epoch nor an RFC 3339 time'
    throw new AppError('validation_failed', `${name} ${message}`, { errors: [{ path: `/${name}`, message, location: 'query' }] })
  }
  return at
}
