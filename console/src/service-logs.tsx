// A service's live output on its page: followed from the moment the page opens (the last 1,000
// lines first), paused and resumed without losing lines, filtered by instance and by stream
// (stdout or stderr), searched. The lines are the server's, masked there.
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks'
import { api, messageOf } from './api.ts'
import { clockOf } from './log-stream.ts'
import { followServiceLogs, instancesOf, type LogFilter, matches, type ServiceLogLine } from './service-log-stream.ts'
import { ErrorMessage } from './ui.tsx'

/** The lines kept in the tab: the oldest go past it. */
const MAX_LINES = 5000

type State = 'connecting' | 'live' | 'reconnecting' | 'ended' | 'failed'

const STATUS: Record<State, string> = {
  connecting: 'Connecting…',
  live: 'Following live',
  reconnecting: 'Connection lost: reconnecting…',
  ended: 'End of the logs: the engine reports no running instance of this service.',
  failed: 'The logs could not be read.',
}

/**
 * `activity` changes when the service's state or deployment does: logs that ended (nothing ran)
 * are followed again then, so that a deploy's new instances show without a click.
 */
export function ServiceLogs({
  kind,
  serviceId,
  activity,
}: {
  /** The kind's path segment. */
  kind: string
  serviceId: string
  activity: string
}) {
  const [lines, setLines] = useState<ServiceLogLine[]>([])
  const [state, setState] = useState<State>('connecting')
  const [error, setError] = useState<string>()
  const [round, setRound] = useState(0)
  const [paused, setPaused] = useState<ServiceLogLine[] | null>(null)
  const [filter, setFilter] = useState<LogFilter>({ instance: '', stream: '', search: '' })
  const box = useRef<HTMLOListElement>(null)

  useEffect(() => {
    const stop = new AbortController()
    let held: ServiceLogLine[] = []
    setLines([])
    setError(undefined)
    followServiceLogs({
      path: `/${kind}/${serviceId}/log/follow`,
      open: api.stream,
      signal: stop.signal,
      onState: setState,
      onLines: (more) => {
        held = held.concat(more)
        if (held.length > MAX_LINES) held = held.slice(-MAX_LINES)
        setLines(held)
      },
    }).then(
      (ended) => ended && setState('ended'),
      (failure: unknown) => {
        setState('failed')
        setError(messageOf(failure))
      },
    )
    return () => stop.abort()
  }, [kind, serviceId, round])

  const ended = state === 'ended' || state === 'failed'
  // Only a change of activity follows again.
  useEffect(() => {
    if (ended) setRound((n) => n + 1)
  }, [activity])

  const shownFrom = paused ?? lines
  const shown = useMemo(() => shownFrom.filter((line) => matches(line, filter)), [shownFrom, filter])
  const instances = useMemo(() => instancesOf(lines), [lines])
  const pods = useMemo(() => new Map(lines.map((l) => [l.instance ?? '', l.pod_name ?? ''])), [lines])

  // Following keeps the newest line in view, unless the reader scrolled up to read.
  const atEnd = useRef(true)
  useLayoutEffect(() => {
    const element = box.current
    if (element && atEnd.current && !paused) element.scrollTop = element.scrollHeight
  }, [shown, paused])

  const set = (fields: Partial<LogFilter>) => setFilter((previous) => ({ ...previous, ...fields }))

  return (
    <section class="service-logs panel" aria-label="Service logs" data-state={state}>
      <h2>Logs</h2>
      <div class="log-tools">
        <label class="field">
          <span class="label">Instance</span>
          <select data-field="instance" value={filter.instance} onChange={(e) => set({ instance: e.currentTarget.value })}>
            <option value="">all</option>
            {instances.map((instance) => (
              <option key={instance} value={instance}>
                {pods.get(instance) ? `${pods.get(instance)} (#${instance})` : `#${instance}`}
              </option>
            ))}
          </select>
        </label>
        <label class="field">
          <span class="label">Stream</span>
          <select data-field="stream" value={filter.stream} onChange={(e) => set({ stream: e.currentTarget.value })}>
            <option value="">stdout and stderr</option>
            <option value="stdout">stdout</option>
            <option value="stderr">stderr</option>
          </select>
        </label>
        <label class="field grow">
          <span class="label">Search</span>
          <input type="search" data-field="search" spellcheck={false} value={filter.search} onInput={(e) => set({ search: e.currentTarget.value })} />
        </label>
        {state === 'ended' || state === 'failed' ? (
          <button type="button" class="secondary" data-action="follow" onClick={() => setRound((n) => n + 1)}>
            Follow again
          </button>
        ) : (
          <button
            type="button"
            class="secondary"
            data-action={paused ? 'resume' : 'pause'}
            aria-pressed={paused !== null}
            onClick={() => setPaused(paused ? null : lines)}
          >
            {paused ? `Resume (${lines.length - paused.length} new)` : 'Pause'}
          </button>
        )}
      </div>
      <p class="hint" role="status" data-testid="log-state">
        {paused ? 'Paused: new lines are kept and shown on resume.' : STATUS[state]}{' '}
        {instances.length > 0
          ? `${instances.length === 1 ? '1 instance' : `${instances.length} instances`} seen (${instances.map((i) => pods.get(i) || `#${i}`).join(', ')}).`
          : ''}{' '}
        {shown.length}/{lines.length} lines shown.
      </p>
      <ErrorMessage message={error} />
      <ol
        class="service-log-lines"
        ref={box}
        // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolled box takes the focus, so that the keyboard scrolls it
        tabIndex={0}
        aria-label="Log lines"
        onScroll={(event) => {
          const element = event.currentTarget
          atEnd.current = element.scrollHeight - element.scrollTop - element.clientHeight < 24
        }}
      >
        {shown.length === 0 ? <li class="empty">{lines.length > 0 ? 'No line matches.' : state === 'ended' ? 'No line.' : 'No line yet.'}</li> : null}
        {shown.map((line) => (
          // stderr is where many programs write their ordinary output (PostgreSQL's LOG lines): it is marked, not shown as an error.
          <li
            key={line.id}
            class={line.stream === 'stderr' ? 'line stderr' : 'line'}
            data-instance={line.instance ?? ''}
            data-stream={line.stream ?? ''}
          >
            <time dateTime={line.created_at}>{clockOf(line.created_at)}</time>
            <span class="instance">{line.instance ?? '–'}</span>
            <span class="stream">{line.stream ?? ''}</span>
            <span class="text">{line.message}</span>
          </li>
        ))}
      </ol>
    </section>
  )
}
