// Following a service's own output: `GET /{kind}/{id}/log/follow` read as server-sent events
// (sse.ts), one `log` event per line, until `end` (nothing of the service runs any more). A stream
// that drops before `end` is opened again with the last event id as Last-Event-ID: the server
// goes on after each instance's last line given, without a gap or a repeat. No DOM here.
import { ApiError } from './errors.ts'
import { type OpenStream, wait } from './log-stream.ts'
import { readEventStream, SseParser } from './sse.ts'

/** A line of `GET /{kind}/{id}/log` (`Log` of the reference's `LogResponseList`, with Berth's `instance` and `stream`). */
export interface ServiceLogLine {
  id: string
  created_at: string
  message: string
  pod_name?: string
  version?: string
  instance: string | null
  stream: 'stdout' | 'stderr' | null
}

export interface ServiceFollowOptions {
  path: string
  open: OpenStream
  onLines: (lines: ServiceLogLine[]) => void
  onState: (state: 'connecting' | 'live' | 'reconnecting') => void
  signal: AbortSignal
  retryMs?: number
}

/** Follows until `end` (true) or an abort (false); a 4xx other than 429 is thrown, anything else retried. */
export async function followServiceLogs({ path, open, onLines, onState, signal, retryMs = 500 }: ServiceFollowOptions): Promise<boolean> {
  let lastEventId = ''
  let retry = retryMs
  onState('connecting')
  while (!signal.aborted) {
    let ended = false
    try {
      const response = await open(path, lastEventId ? { 'last-event-id': lastEventId } : {}, signal)
      if (!response.body) throw new TypeError('the log stream has no body')
      onState('live')
      const parser = new SseParser()
      await readEventStream(response.body, parser, (events) => {
        const lines: ServiceLogLine[] = []
        for (const event of events) {
          if (event.type === 'end') {
            ended = true
            break
          }
          if (event.type !== 'log') continue
          lines.push(JSON.parse(event.data) as ServiceLogLine)
          if (event.id) lastEventId = event.id
        }
        if (lines.length > 0) {
          retry = retryMs
          onLines(lines)
        }
        return !ended
      })
    } catch (error) {
      if (signal.aborted) return false
      if (error instanceof ApiError && error.status < 500 && error.status !== 429) throw error
      if (error instanceof SyntaxError) throw error
    }
    if (ended) return true
    if (signal.aborted) return false
    onState('reconnecting')
    await wait(retry, signal)
    retry = Math.min(retry * 2, 8_000)
  }
  return false
}

export interface LogFilter {
  /** An instance, or '' for all. */
  instance: string
  /** 'stdout', 'stderr', or '' for both. */
  stream: string
  /** Text the line holds, case-insensitively; '' for any. */
  search: string
}

export function matches(line: ServiceLogLine, filter: LogFilter): boolean {
  if (filter.instance && (line.instance ?? '') !== filter.instance) return false
  if (filter.stream && line.stream !== filter.stream) return false
  return !filter.search || line.message.toLowerCase().includes(filter.search.toLowerCase())
}

/** The instances the lines name, in order: `0`, `1`, … then `run-1`, …. */
export const instancesOf = (lines: ServiceLogLine[]) =>
  [...new Set(lines.map((l) => l.instance).filter((i): i is string => i !== null))].sort((a, b) => a.localeCompare(b, undefined, { numeric: true }))
