// Following a running deployment's logs: `GET /environment/{id}/logs/follow` read as server-sent
// events (sse.ts), one `log` event per line, until `end`. A stream that drops before `end` is
// opened again with Last-Event-ID, so that the server goes on after the last line received. No
// rendering here: test/console-sse.test.ts drives it with streams of its own.
import { ApiError } from './errors.ts'
import { readEventStream, SseParser } from './sse.ts'
import type { LogLine } from './types.ts'

/** Opens the stream: `api.stream` in the console. */
export type OpenStream = (path: string, headers: Record<string, string>, signal: AbortSignal) => Promise<Response>

export type FollowState = 'connecting' | 'live' | 'reconnecting'

export interface FollowOptions {
  environmentId: string
  executionId: string
  open: OpenStream
  /** The lines of each piece of the stream, in order, each once even across reconnections. */
  onLines: (lines: LogLine[]) => void
  onState: (state: FollowState) => void
  /** Aborting stops following: `followLogs` then returns. */
  signal: AbortSignal
  /** The wait before the first reconnection, doubled after each one that brings no line (default 500 ms, at most MAX_RETRY_MS). */
  retryMs?: number
  /** Waits `ms` unless `signal` aborts first (tests pass a faster one). */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>
}

export const MAX_RETRY_MS = 8_000

/** Line ids are bigints as strings: compared as numbers, so that `10` comes after `9`. */
export function isAfter(id: string, than: string | undefined): boolean {
  if (than === undefined) return true
  try {
    return BigInt(id) > BigInt(than)
  } catch {
    return id !== than
  }
}

/** Whether an error may go away by itself, so that following tries again: a dropped connection, a 5xx or 429 answer; not a line that is no JSON. */
const isPassing = (error: unknown) => (error instanceof ApiError ? error.status >= 500 || error.status === 429 : !(error instanceof SyntaxError))

/** Waits `ms`, or less when `signal` aborts first. */
export const wait = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal.aborted) return resolve()
    const timer = setTimeout(done, ms)
    signal.addEventListener('abort', done, { once: true })
    function done() {
      clearTimeout(timer)
      signal.removeEventListener('abort', done)
      resolve()
    }
  })

export const followPath = (environmentId: string, executionId: string) =>
  `/environment/${environmentId}/logs/follow?version=${encodeURIComponent(executionId)}`

/**
 * Follows the deployment's logs from its first line until the stream's `end` event (returns true)
 * or `signal` aborts (returns false). A stream that ends or breaks before `end`, or an answer of
 * 5xx or 429, is retried with Last-Event-ID; any other error answer (an ApiError: the deployment
 * or the access is gone), or a line that is not JSON, is thrown.
 */
export async function followLogs(options: FollowOptions): Promise<boolean> {
  const { open, onLines, onState, signal } = options
  const sleep = options.sleep ?? wait
  const firstRetry = options.retryMs ?? 500
  const path = followPath(options.environmentId, options.executionId)
  let lastId: string | undefined
  let retry = firstRetry
  onState('connecting')
  while (!signal.aborted) {
    let ended = false
    try {
      const response = await open(path, lastId === undefined ? {} : { 'last-event-id': lastId }, signal)
      if (!response.body) throw new TypeError('the log stream has no body')
      onState('live')
      const parser = new SseParser()
      await readEventStream(response.body, parser, (events) => {
        const lines: LogLine[] = []
        for (const event of events) {
          if (event.type === 'end') {
            ended = true
            break
          }
          if (event.type !== 'log') continue
          const line = JSON.parse(event.data) as LogLine
          // After a reconnection the server starts after Last-Event-ID: a line at or before it is one already given.
          if (!isAfter(line.id, lastId)) continue
          lastId = line.id
          lines.push(line)
        }
        if (lines.length > 0) {
          retry = firstRetry
          onLines(lines)
        }
        return !ended
      })
      if (parser.retry !== undefined) retry = parser.retry
    } catch (error) {
      if (signal.aborted) return false
      if (!isPassing(error)) throw error
    }
    if (ended) return true
    if (signal.aborted) return false
    onState('reconnecting')
    await sleep(retry, signal)
    retry = Math.min(retry * 2, MAX_RETRY_MS)
  }
  return false
}

/**
 * How many deployments' logs a page follows live at once. A browser opens at most six connections
 * to a server over HTTP/1.1 and each stream holds one for as long as it runs: past this many, logs
 * are read again every few seconds instead, leaving connections for the history's polling.
 */
export const MAX_LIVE_FOLLOWS = 3

let live = 0

/** A place among the live followers, released by the function it answers; null when all are taken. */
export function takeLiveSlot(): (() => void) | null {
  if (live >= MAX_LIVE_FOLLOWS) return null
  live++
  let released = false
  return () => {
    if (!released) live--
    released = true
  }
}

/** `2025-01-02T03:04:05.678Z` → `03:04:05.678` in the browser's time zone. */
export function clockOf(timestamp: string): string {
  const date = new Date(timestamp)
  if (Number.isNaN(date.getTime())) return timestamp
  const two = (n: number) => String(n).padStart(2, '0')
  return `${two(date.getHours())}:${two(date.getMinutes())}:${two(date.getSeconds())}.${String(date.getMilliseconds()).padStart(3, '0')}`
}

/** What a line says: its message, else its error's. */
export const textOf = (line: LogLine) => line.message?.safe_message ?? line.error?.user_log_message ?? ''

export const isErrorLine = (line: LogLine) => line.type === 'ERROR' || line.error !== null
