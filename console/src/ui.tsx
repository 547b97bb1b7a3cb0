// The console's building blocks: loading a read, showing it or its error, status badges, empty
// states that say what to do next, tabs, and the page's title. Every page uses these, so that they
// look and behave alike.
import type { ComponentChildren } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import { messageOf } from './api.ts'
import { formatTime, timeAgo, toneOf, words } from './format.ts'

/** What an async load gave: the data, or the API's error message, or neither while it runs. */
export interface Loaded<T> {
  data?: T
  error?: string
}

/** Runs `load` whenever `key` changes; the answer of an older key is dropped. */
export function useLoad<T>(load: () => Promise<T>, key: string): Loaded<T> & { reload: () => void } {
  const [state, setState] = useState<Loaded<T>>({})
  const [round, setRound] = useState(0)
  // `key` names everything `load` reads.
  useEffect(() => {
    let current = true
    setState({})
    load().then(
      (data) => current && setState({ data }),
      (error: unknown) => current && setState({ error: messageOf(error) }),
    )
    return () => {
      current = false
    }
  }, [key, round])
  return { ...state, reload: () => setRound((n) => n + 1) }
}

export function ErrorMessage({ message }: { message: string | undefined }) {
  if (!message) return null
  return (
    <p class="error" role="alert">
      {message}
    </p>
  )
}

/** Shows `children(data)` once loaded, the error, or a loading line. */
export function Show<T>({ loaded, children }: { loaded: Loaded<T>; children: (data: T) => ComponentChildren }) {
  if (loaded.data === undefined) return loaded.error ? <ErrorMessage message={loaded.error} /> : <p class="loading">Loading…</p>
  // A read polled again that failed keeps showing what it read last, under its error.
  return (
    <>
      <ErrorMessage message={loaded.error} />
      {children(loaded.data)}
    </>
  )
}

export function StateBadge({ state }: { state: string }) {
  return (
    <span class={`badge tone-${toneOf(state)}`} data-state={state}>
      {words(state)}
    </span>
  )
}

/** An empty list, saying what it would hold and what to do next. */
export function Empty({ children, next }: { children: ComponentChildren; next?: ComponentChildren }) {
  return (
    <div class="empty-state">
      <p class="empty">{children}</p>
      {next ? <p class="next">{next}</p> : null}
    </div>
  )
}

export interface Tab {
  id: string
  label: string
  href: string
}

/** Tabs as links (each a deep link that survives a reload); `current` is the one shown. */
export function Tabs({ tabs, current, label }: { tabs: Tab[]; current: string; label: string }) {
  return (
    <nav class="tabs" aria-label={label}>
      {tabs.map((tab) => (
        <a
          key={tab.id}
          href={tab.href}
          data-tab={tab.id}
          aria-current={tab.id === current ? 'page' : undefined}
          class={tab.id === current ? 'current' : ''}
        >
          {tab.label}
        </a>
      ))}
    </nav>
  )
}

/** Sets the window's title to where the reader is, most precise first: "logs · checkout-api · Berth". */
export function usePageTitle(parts: (string | undefined)[]) {
  const title = [...parts.filter((part): part is string => Boolean(part)), 'Berth'].join(' · ')
  useEffect(() => {
    document.title = title
  }, [title])
}

export interface Crumb {
  label: string
  href?: string
}

export function Breadcrumbs({ items }: { items: Crumb[] }) {
  return (
    <nav class="breadcrumbs" aria-label="Breadcrumbs">
      <ol>
        {items.map((item) => (
          <li key={item.href ?? item.label}>{item.href ? <a href={item.href}>{item.label}</a> : <span aria-current="page">{item.label}</span>}</li>
        ))}
      </ol>
    </nav>
  )
}

/** A moment, as how long ago it was; the exact time on hover and for machines. */
export function When({ at }: { at: string }) {
  return (
    <time dateTime={at} title={formatTime(at)}>
      {timeAgo(at)}
    </time>
  )
}
