import { useEffect, useRef, useState } from 'preact/hooks'
import { api, messageOf } from './api.ts'
import { DeploymentCard } from './deployment-card.tsx'
import { appendOlder, emptyStore, type HistoryStore, idOf, mergeNewest, patchEntry, unfinishedBelowNewest } from './history-store.ts'
import type { HistoryPage } from './types.ts'
import { ErrorMessage } from './ui.tsx'

const PAGE_SIZE = 20
const POLL_MS = 1000
/** At most this many unfinished deployments beyond the newest page are read again per poll. */
const DEEP_POLLS = 10

/**
 * An environment's deployment history, newest first, live. The newest page is polled with
 * If-None-Match (a 304 costs nothing and changes nothing) and joined on top of what is loaded
 * (history-store.ts); an unfinished deployment further down is read alone, also with
 * If-None-Match. Entries are keyed by execution id, so a running deployment is patched in place.
 * Older pages load by `startId`, one each time the end of the list comes into view.
 */
export function History({
  environmentId,
  pokes,
  onRollback,
}: {
  environmentId: string
  pokes: number
  /** Rolls the environment back to a deployment; absent for a role that may not deploy. */
  onRollback?: ((executionId: string) => Promise<void>) | undefined
}) {
  const store = useRef<HistoryStore>(emptyStore())
  const [, setRenders] = useState(0)
  const render = () => setRenders((n) => n + 1)
  const [error, setError] = useState<string>()
  const [loadingMore, setLoadingMore] = useState(false)
  const loading = useRef(false)
  // Counts the older pages read: after each, the end of the list is observed anew (see below).
  const [olderReads, setOlderReads] = useState(0)
  const pollNow = useRef<() => void>(() => {})
  const sentinel = useRef<HTMLDivElement>(null)
  const base = `/environment/${environmentId}/deploymentHistoryV2`
  const olderThan = (startId: string) => api.get<HistoryPage>(`${base}?pageSize=${PAGE_SIZE}&startId=${encodeURIComponent(startId)}`)

  async function loadMore() {
    const current = store.current
    const last = current.order.at(-1)
    if (loading.current || !current.loaded || !current.hasMore || last === undefined) return
    const { restarts } = current
    loading.current = true
    setLoadingMore(true)
    let failed = false
    try {
      const page = await olderThan(last)
      // A list that started over meanwhile does not end where this page follows on.
      if (store.current === current && current.restarts === restarts) appendOlder(current, page)
      setError(undefined)
    } catch (failure) {
      // No retry at once: the next one waits for the end of the list to come into view again, or a click.
      failed = true
      setError(messageOf(failure))
    } finally {
      loading.current = false
      setLoadingMore(false)
      if (!failed) setOlderReads((n) => n + 1)
      render()
    }
  }

  useEffect(() => {
    const current = emptyStore()
    store.current = current
    render()
    let etag: string | null = null
    /** The ETag of each deep read's last answer, by its path: the same path is asked again every poll. */
    let deepTags = new Map<string, string | null>()
    let stopped = false
    let busy = false
    let again = false
    let timer: ReturnType<typeof setTimeout> | undefined

    /** Reads again the unfinished deployments below the newest page; says whether any changed. */
    async function refreshDeeper(): Promise<boolean> {
      const tags = new Map<string, string | null>()
      let changed = false
      for (const { id, above } of unfinishedBelowNewest(current, DEEP_POLLS)) {
        const path = `${base}?pageSize=1&startId=${encodeURIComponent(above)}`
        const known = deepTags.get(path) ?? null
        const page = await api.poll<HistoryPage>(path, known)
        tags.set(path, page ? page.etag : known)
        const entry = page?.data.results[0]
        if (entry && idOf(entry) === id && patchEntry(current, entry)) changed = true
      }
      deepTags = tags
      return changed
    }

    async function tick() {
      clearTimeout(timer)
      if (busy) {
        again = true
        return
      }
      busy = true
      try {
        // A hidden tab does not poll; the newest page read when it shows again is joined to the list however much came meanwhile.
        if (!current.loaded || document.visibilityState !== 'hidden') {
          const newest = await api.poll<HistoryPage>(`${base}?pageSize=${PAGE_SIZE}`, etag)
          if (stopped) return
          if (newest) {
            await mergeNewest(current, newest.data, olderThan)
            if (stopped) return
            // Kept once merged only: a page that could not be joined is read again on the next poll.
            etag = newest.etag
          }
          const changed = await refreshDeeper()
          if (stopped) return
          setError(undefined)
          // A 304 changed nothing: nothing to render.
          if (newest || changed) render()
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
    const pollWhenShown = () => {
      if (document.visibilityState === 'visible') void tick()
    }
    pollNow.current = () => void tick()
    document.addEventListener('visibilitychange', pollWhenShown)
    void tick()
    return () => {
      stopped = true
      clearTimeout(timer)
      document.removeEventListener('visibilitychange', pollWhenShown)
    }
  }, [environmentId])

  useEffect(() => {
    if (pokes > 0) pollNow.current()
  }, [pokes])

  const { order, byId, loaded, hasMore, restarts } = store.current
  const createdAtOf = (executionId: string) => byId.get(executionId)?.auditing_data.created_at

  // A new observer reports at once whether the end of the list is in view, then each time that
  // changes. Observing anew after each older page (and when the list starts over) makes one
  // sighting load one page: a page that leaves the end in view loads the next, one that pushes it
  // out of view does not.
  useEffect(() => {
    const element = sentinel.current
    if (!element || !hasMore) return
    const observer = new IntersectionObserver(
      ([entry]) => {
        if (entry?.isIntersecting) void loadMore()
      },
      { rootMargin: '0px 0px 400px 0px' },
    )
    observer.observe(element)
    return () => observer.disconnect()
  }, [environmentId, loaded, hasMore, restarts, olderReads])

  return (
    <section class="history" aria-live="polite">
      <h2>
        Deployments{' '}
        <span class="count" data-testid="history-count">
          {order.length}
          {hasMore ? '+' : ''}
        </span>
      </h2>
      <ErrorMessage message={error} />
      {!loaded ? <p class="loading">Loading…</p> : null}
      {loaded && order.length === 0 ? <p class="empty">No deployment yet.</p> : null}
      <ol class="deployments">
        {order.map((id) => (
          <li key={id}>
            <DeploymentCard entry={byId.get(id)!} onRollback={onRollback} createdAtOf={createdAtOf} />
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
            <p class="hint">{order.length === 1 ? '1 deployment shown.' : `All ${order.length} deployments shown.`}</p>
          ) : null}
        </div>
      ) : null}
    </section>
  )
}
