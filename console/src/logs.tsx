// A deployment's logs, opened from its card in the history. A finished deployment's are read once
// (`GET …/logs`, its last 1,000 lines); a running one's are followed live (log-stream.ts) until
// the stream's end. The panel reads on its own: the history's polling goes on as before, and a
// card updated by it keeps its open panel and the lines it holds.
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks'
import { api, messageOf } from './api.ts'
import { clockOf, type FollowState, followLogs, isErrorLine, MAX_LIVE_FOLLOWS, takeLiveSlot, textOf, wait } from './log-stream.ts'
import type { LogLine } from './types.ts'
import { ErrorMessage } from './ui.tsx'

/** How many lines `GET …/logs` answers at most. */
const LOG_PAGE = 1000
/** How many lines a followed deployment keeps on screen: the oldest go past it. */
const MAX_LINES = 5000
/** How often a running deployment's logs are read again when it cannot be followed live. */
const REREAD_MS = 2000

type PanelState = 'loading' | FollowState | 'ended' | 'loaded' | 'rereading' | 'failed'

const STATUS: Record<PanelState, string> = {
  loading: 'Loading…',
  connecting: 'Following: waiting for lines…',
  live: 'Following live…',
  reconnecting: 'Connection lost: reconnecting…',
  ended: 'End of the logs: the deployment is finished.',
  loaded: 'The deployment is finished.',
  rereading: `Read again every ${REREAD_MS / 1000} s: ${MAX_LIVE_FOLLOWS} deployments' logs are already followed live on this page.`,
  failed: 'The logs could not be read.',
}

export function DeploymentLogs({ environmentId, executionId, running }: { environmentId: string; executionId: string; running: boolean }) {
  const [lines, setLines] = useState<LogLine[]>([])
  const [dropped, setDropped] = useState(false)
  const [state, setState] = useState<PanelState>('loading')
  const [error, setError] = useState<string>()
  // Read when the panel opens, and by the rereading loop: the history updates it as the deployment goes on.
  const runningNow = useRef(running)
  runningNow.current = running

  useEffect(() => {
    const stop = new AbortController()
    const { signal } = stop
    const read = () => api.get<LogLine[]>(`/environment/${environmentId}/logs?version=${encodeURIComponent(executionId)}`)

    async function show() {
      const release = runningNow.current ? takeLiveSlot() : null
      if (release) {
        let held: LogLine[] = []
        try {
          const ended = await followLogs({
            environmentId,
            executionId,
            open: api.stream,
            signal,
            onState: setState,
            onLines: (more) => {
              let all = held.concat(more)
              if (all.length > MAX_LINES) {
                all = all.slice(-MAX_LINES)
                setDropped(true)
              }
              held = all
              setLines(all)
            },
          })
          if (ended) setState('ended')
        } finally {
          release()
        }
        return
      }
      // Finished, or no live place left: read the last lines, and again while the deployment runs.
      for (;;) {
        const wasRunning = runningNow.current
        const answer = await read()
        if (signal.aborted) return
        setLines(answer)
        if (!wasRunning) return setState('loaded')
        setState('rereading')
        await wait(REREAD_MS, signal)
        if (signal.aborted) return
      }
    }

    show().catch((failure: unknown) => {
      if (signal.aborted) return
      setError(messageOf(failure))
      setState('failed')
    })
    return () => stop.abort()
  }, [environmentId, executionId])

  // Kept at the newest line while the reader is there; left alone once they scroll up.
  const box = useRef<HTMLOListElement>(null)
  const atEnd = useRef(true)
  useLayoutEffect(() => {
    const element = box.current
    if (element && atEnd.current) element.scrollTop = element.scrollHeight
  }, [lines])
  const onScroll = () => {
    const element = box.current
    if (element) atEnd.current = element.scrollHeight - element.scrollTop - element.clientHeight < 24
  }

  const rendered = useMemo(() => lines.map((line) => <LogLineView key={line.id} line={line} />), [lines])
  const done = state === 'ended' || state === 'loaded'
  return (
    <section class="logs" id={`logs-${executionId}`} data-state={state} aria-label="Deployment logs">
      <div class="logs-head">
        <span class="logs-status">{STATUS[state]}</span>
        {(state === 'loaded' || state === 'rereading') && lines.length >= LOG_PAGE ? (
          <span class="hint">Its last {LOG_PAGE.toLocaleString('en')} lines.</span>
        ) : null}
        {dropped ? <span class="hint">Lines older than the last {MAX_LINES.toLocaleString('en')} are not shown.</span> : null}
        <span class="logs-count" data-testid="log-count">
          {lines.length === 1 ? '1 line' : `${lines.length} lines`}
        </span>
      </div>
      <ErrorMessage message={error} />
      {done && lines.length === 0 ? <p class="empty">No log line.</p> : null}
      {lines.length > 0 ? (
        // Not announced line by line: the history around it is a polite live region.
        <ol class="log-lines" ref={box} onScroll={onScroll} aria-live="off">
          {rendered}
        </ol>
      ) : null}
    </section>
  )
}

function LogLineView({ line }: { line: LogLine }) {
  const { transmitter, stage } = line.details
  return (
    <li class={`log-line level-${line.type.toLowerCase()}${isErrorLine(line) ? ' log-error' : ''}`} data-line-id={line.id} data-level={line.type}>
      <time dateTime={line.timestamp} title={line.timestamp}>
        {clockOf(line.timestamp)}
      </time>
      <span class="log-source" title={transmitter.type}>
        {transmitter.name}
      </span>
      <span class="log-step" title="stage · step">
        {[stage.name, stage.step].filter(Boolean).join(' · ')}
      </span>
      <span class="log-text">{textOf(line)}</span>
    </li>
  )
}
