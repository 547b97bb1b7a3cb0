import { useEffect, useRef, useState } from 'preact/hooks'
import { api, messageOf } from './api.ts'
import { formatDuration, formatTime, isFailed, isUnfinished, toneOf, words } from './format.ts'
import { ErrorMessage } from './pages.tsx'
import type { DeploymentEntry, HistoryPage, ServiceEntry, Stage } from './types.ts'

const PAGE_SIZE = 20
const POLL_MS = 1000
/** At most this many running deployments beyond the first page are read again per poll. */
const DEEP_POLLS = 10

/** The entries loaded so far, newest first, keyed by execution id. */
interface Store {
  order: string[]
  byId: Map<string, DeploymentEntry>
  /** How many of `order` the newest first page holds. */
  firstCount: number
  loaded: boolean
  /** Whether a page after the first was loaded: from then on `hasMore` is that page's. */
  deeper: boolean
  hasMore: boolean
}

const emptyStore = (): Store => ({ order: [], byId: new Map(), firstCount: 0, loaded: false, deeper: false, hasMore: false })

const idOf = (entry: DeploymentEntry) => entry.identifier.execution_id

/** The newest page, merged on top: entries it no longer holds stay below it, so nothing is lost or repeated. */
function mergeFirst(store: Store, page: HistoryPage) {
  const ids = page.results.map(idOf)
  for (const entry of page.results) store.byId.set(idOf(entry), entry)
  const fresh = new Set(ids)
  store.order = [...ids, ...store.order.filter((id) => !fresh.has(id))]
  store.firstCount = ids.length
  if (!store.deeper) store.hasMore = page.has_more
  store.loaded = true
}

/**
 * An environment's deployment history, newest first. The first page is polled with If-None-Match
 * (a 304 costs nothing and changes nothing); entries are keyed by execution id, so a running
 * deployment is patched in place. Older pages load by `startId` as the end of the list scrolls
 * into view.
 */
export function History({ environmentId, pokes }: { environmentId: string; pokes: number }) {
  const store = useRef<Store>(emptyStore())
  const [, setRenders] = useState(0)
  const render = () => setRenders((n) => n + 1)
  const [error, setError] = useState<string>()
  const [loadingMore, setLoadingMore] = useState(false)
  const loading = useRef(false)
  const pollNow = useRef<() => void>(() => {})
  const sentinel = useRef<HTMLDivElement>(null)
  const sentinelVisible = useRef(false)
  const base = `/environment/${environmentId}/deploymentHistoryV2`

  async function loadMore() {
    const current = store.current
    if (loading.current || !current.loaded || !current.hasMore) return
    loading.current = true
    setLoadingMore(true)
    try {
      const last = current.order.at(-1)
      const page = await api.get<HistoryPage>(`${base}?pageSize=${PAGE_SIZE}${last ? `&startId=${encodeURIComponent(last)}` : ''}`)
      if (store.current !== current) return
      for (const entry of page.results) {
        if (!current.byId.has(idOf(entry))) current.order.push(idOf(entry))
        current.byId.set(idOf(entry), entry)
      }
      current.hasMore = page.has_more
      current.deeper = true
      setError(undefined)
    } catch (failure) {
      // No retry on every render: the next one waits for the end of the list to come into view again, or a click.
      sentinelVisible.current = false
      setError(messageOf(failure))
    } finally {
      loading.current = false
      setLoadingMore(false)
      render()
    }
  }

  /** Running deployments below the first page: each read alone, as the page of one after its predecessor. Says whether any was read. */
  async function refreshDeeper(current: Store): Promise<boolean> {
    const running = current.order.slice(current.firstCount).filter((id) => isUnfinished(current.byId.get(id)!.action_status))
    for (const id of running.slice(0, DEEP_POLLS)) {
      const before = current.order[current.order.indexOf(id) - 1]
      if (!before) continue
      const page = await api.get<HistoryPage>(`${base}?pageSize=1&startId=${encodeURIComponent(before)}`)
      const entry = page.results[0]
      if (entry && idOf(entry) === id) current.byId.set(id, entry)
    }
    return running.length > 0
  }

  useEffect(() => {
    const current = emptyStore()
    store.current = current
    render()
    let etag: string | null = null
    let stopped = false
    let busy = false
    let again = false
    let timer: ReturnType<typeof setTimeout> | undefined

    async function tick() {
      clearTimeout(timer)
      if (busy) {
        again = true
        return
      }
      busy = true
      try {
        if (!current.loaded || document.visibilityState !== 'hidden') {
          const page = await api.poll<HistoryPage>(`${base}?pageSize=${PAGE_SIZE}`, etag)
          if (stopped) return
          if (page) {
            etag = page.etag
            mergeFirst(current, page.data)
          }
          const deeper = await refreshDeeper(current)
          if (stopped) return
          setError(undefined)
          // A 304 changed nothing: nothing to render.
          if (page || deeper) render()
        }
      } catch (failure) {
        if (!stopped) setError(messageOf(failure))
      } finally {
        busy = false
        if (!stopped) {
          timer = setTimeout(tick, again ? 0 : POLL_MS)
          again = false
        }
      }
    }
    pollNow.current = () => void tick()
    void tick()
    return () => {
      stopped = true
      clearTimeout(timer)
    }
  }, [environmentId])

  useEffect(() => {
    if (pokes > 0) pollNow.current()
  }, [pokes])

  useEffect(() => {
    const element = sentinel.current
    if (!element) return
    const observer = new IntersectionObserver(
      ([entry]) => {
        sentinelVisible.current = entry?.isIntersecting ?? false
        if (sentinelVisible.current) void loadMore()
      },
      { rootMargin: '0px 0px 400px 0px' },
    )
    observer.observe(element)
    return () => observer.disconnect()
  }, [environmentId, store.current.loaded])

  // A page that left the end of the list in view does not move it: the observer would not fire again.
  useEffect(() => {
    if (sentinelVisible.current && !loading.current) void loadMore()
  })

  const { order, byId, loaded, hasMore } = store.current
  return (
    <section class="history" aria-live="polite">
      <h3>
        Deployments{' '}
        <span class="count" data-testid="history-count">
          {order.length}
          {hasMore ? '+' : ''}
        </span>
      </h3>
      <ErrorMessage message={error} />
      {!loaded ? <p class="loading">Loading…</p> : null}
      {loaded && order.length === 0 ? <p class="empty">No deployment yet.</p> : null}
      <ol class="deployments">
        {order.map((id) => (
          <li key={id}>
            <DeploymentCard entry={byId.get(id)!} />
          </li>
        ))}
      </ol>
      {loaded ? (
        <div class="history-end" ref={sentinel} data-has-more={String(hasMore)}>
          {hasMore ? (
            <button type="button" class="secondary" disabled={loadingMore} onClick={() => void loadMore()}>
              {loadingMore ? 'Loading older deployments…' : 'Load older deployments'}
            </button>
          ) : order.length > 0 ? (
            <p class="hint">All {order.length} deployments shown.</p>
          ) : null}
        </div>
      ) : null}
    </section>
  )
}

export function DeploymentCard({ entry }: { entry: DeploymentEntry }) {
  const { auditing_data: audit } = entry
  const tone = toneOf(entry.status)
  return (
    <article
      class={`deployment tone-${tone}${isFailed(entry.status) ? ' failed' : ''}`}
      data-execution-id={entry.identifier.execution_id}
      data-status={entry.status}
      data-action-status={entry.action_status}
    >
      <header>
        <span class="trigger" title="trigger">
          {entry.trigger_action}
        </span>
        <span class={`badge tone-${tone}`} data-testid="status" title={entry.status}>
          {words(entry.status)}
        </span>
        <span class="who">
          by <strong>{audit.triggered_by}</strong>
          {audit.origin ? <> from {audit.origin}</> : null}
        </span>
        <time dateTime={audit.created_at}>{formatTime(audit.created_at)}</time>
        <span class="total-duration" title="total duration">
          {formatDuration(entry.total_duration)}
        </span>
      </header>
      {entry.message ? <p class="message">{entry.message}</p> : null}
      {entry.stages.length === 0 ? (
        <p class="hint">No service to deploy.</p>
      ) : (
        <ol class="timeline">
          {entry.stages.map((stage) => (
            <StageView key={stage.name} stage={stage} />
          ))}
        </ol>
      )}
    </article>
  )
}

function StageView({ stage }: { stage: Stage }) {
  const tone = toneOf(stage.status)
  return (
    <li class={`stage tone-${tone}${isFailed(stage.status) ? ' failed' : ''}`} data-stage={stage.name} data-status={stage.status}>
      <div class="stage-head">
        <span class="stage-name">{stage.name}</span>
        <span class={`badge tone-${tone}`}>{words(stage.status)}</span>
        <span class="duration">{formatDuration(stage.duration)}</span>
      </div>
      <ul class="services">
        {stage.services.map((service) => (
          <ServiceView key={service.identifier.service_id} service={service} />
        ))}
      </ul>
    </li>
  )
}

function ServiceView({ service }: { service: ServiceEntry }) {
  const tone = toneOf(service.status)
  const chart = service.details.repository
  return (
    <li
      class={`service tone-${tone}${isFailed(service.status) ? ' failed' : ''}`}
      data-service-id={service.identifier.service_id}
      data-status={service.status}
    >
      <a class="service-name" href={service.identifier.service_type === 'HELM' ? `#/helm/${service.identifier.service_id}` : undefined}>
        {service.identifier.name}
      </a>
      <span class={`badge tone-${tone}`} title={`${service.status_details.action} ${service.status_details.status}`}>
        {words(service.status)}
      </span>
      <span class="duration">{formatDuration(service.total_duration)}</span>
      {chart ? <span class="detail">{`${chart.chart_name} ${chart.chart_version}`}</span> : null}
      {service.message ? <p class="message">{service.message}</p> : null}
    </li>
  )
}
