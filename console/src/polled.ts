// Reads that stay current: asked again every few seconds while the tab shows, and at once when
// asked (after an action). An answer keeps what was shown until it comes; a failed read shows its
// error next to the last data read, and the next read tries again.
import { useEffect, useRef, useState } from 'preact/hooks'
import { api, messageOf } from './api.ts'

export interface Polled<T> {
  data?: T
  error?: string
  /** Reads again now. */
  refresh: () => void
}

export function usePolled<T>(load: () => Promise<T>, key: string, everyMs: number): Polled<T> {
  const [state, setState] = useState<{ data?: T; error?: string }>({})
  const now = useRef<() => void>(() => {})
  // `key` names everything `load` reads.
  useEffect(() => {
    let stopped = false
    let timer: ReturnType<typeof setTimeout> | undefined
    let busy = false
    setState({})
    async function read() {
      clearTimeout(timer)
      if (busy || stopped) return
      busy = true
      try {
        const data = await load()
        if (!stopped) setState({ data })
      } catch (error) {
        if (!stopped) setState((previous) => ({ ...previous, error: messageOf(error) }))
      } finally {
        busy = false
        if (!stopped) timer = setTimeout(() => (document.visibilityState === 'hidden' ? later() : void read()), everyMs)
      }
    }
    const later = () => {
      timer = setTimeout(() => (document.visibilityState === 'hidden' ? later() : void read()), everyMs)
    }
    now.current = () => void read()
    void read()
    return () => {
      stopped = true
      clearTimeout(timer)
    }
  }, [key])
  return { ...state, refresh: () => now.current() }
}

/** The time now, rendered again every second while mounted: for durations that count up. */
export function useNow(active = true): number {
  const [now, setNow] = useState(() => Date.now())
  useEffect(() => {
    if (!active) return
    const timer = setInterval(() => setNow(Date.now()), 1000)
    return () => clearInterval(timer)
  }, [active])
  return now
}

/** `83` seconds → `1 min 23 s`. */
export function formatSeconds(total: number): string {
  const seconds = Math.max(0, Math.floor(total))
  if (seconds >= 3600) return `${Math.floor(seconds / 3600)} h ${Math.floor((seconds % 3600) / 60)} min`
  if (seconds >= 60) return `${Math.floor(seconds / 60)} min ${seconds % 60} s`
  return `${seconds} s`
}

/**
 * usePolled of one path that answers with an ETag (histories): asked with If-None-Match, so that
 * an unchanged answer is a 304 that costs nothing and keeps the data read before.
 */
export function usePolledPath<T>(path: string, everyMs: number): Polled<T> {
  const last = useRef<{ path: string; etag: string | null; data?: T }>({ path, etag: null })
  return usePolled(
    async () => {
      if (last.current.path !== path) last.current = { path, etag: null }
      const answer = await api.poll<T>(path, last.current.etag)
      if (answer) last.current = { path, etag: answer.etag, data: answer.data }
      return last.current.data as T
    },
    path,
    everyMs,
  )
}
