// The deployment history a page has loaded, and how each page the API answers changes it. No
// fetch and no rendering here: the caller reads the pages, so every rule can be tested alone.
import { isUnfinished } from './format.ts'
import type { DeploymentEntry, HistoryPage } from './types.ts'

/**
 * The entries loaded so far, newest first, keyed by execution id. They are always an unbroken run
 * of the history from its newest entry down: older pages are appended below the last one, and the
 * newest page is joined on top.
 */
export interface HistoryStore {
  order: string[]
  byId: Map<string, DeploymentEntry>
  /** How many of `order` the newest page holds: those below it are polled one by one while unfinished. */
  firstCount: number
  loaded: boolean
  /** Whether the history holds entries older than the last of `order`. */
  hasMore: boolean
  /** Bumped each time the list starts over: an older page asked for before then belongs to a list that is gone. */
  restarts: number
}

export const emptyStore = (): HistoryStore => ({ order: [], byId: new Map(), firstCount: 0, loaded: false, hasMore: false, restarts: 0 })

export const idOf = (entry: DeploymentEntry) => entry.identifier.execution_id

/** Reads the page of entries older than `startId`. */
export type ReadOlder = (startId: string) => Promise<HistoryPage>

/**
 * How many older pages may be read to join a newest page to the list. Beyond them (a tab hidden
 * for a long time) the list starts over from the newest entries rather than read on and on.
 */
export const MAX_JOIN_PAGES = 5

const sharesAnEntry = (store: HistoryStore, page: HistoryPage) => page.results.some((entry) => store.byId.has(idOf(entry)))

const uniqueIds = (entries: DeploymentEntry[]) => [...new Set(entries.map(idOf))]

/**
 * Merges the newest page on top of the list. When it shares no entry with the list, more than a
 * page of deployments came since the list was read (while polling was paused or failing): older
 * pages are read after it until one reaches the list, so no entry in between is missing. Past
 * MAX_JOIN_PAGES, the list starts over. Changes the store only once every page is read.
 */
export async function mergeNewest(store: HistoryStore, newest: HistoryPage, readOlder: ReadOlder): Promise<void> {
  const entries = [...newest.results]
  let last = newest
  for (let read = 0; store.order.length > 0 && !sharesAnEntry(store, last) && last.has_more && read < MAX_JOIN_PAGES; read++) {
    const oldest = entries.at(-1)
    if (!oldest) break
    last = await readOlder(idOf(oldest))
    entries.push(...last.results)
  }
  if (store.order.length > 0 && sharesAnEntry(store, last)) {
    const ids = uniqueIds(entries)
    const fresh = new Set(ids)
    for (const entry of entries) store.byId.set(idOf(entry), entry)
    // Entries the newest pages no longer hold stay below them, so nothing is lost or repeated.
    store.order = [...ids, ...store.order.filter((id) => !fresh.has(id))]
  } else {
    store.order = uniqueIds(entries)
    store.byId = new Map(entries.map((entry) => [idOf(entry), entry]))
    store.hasMore = last.has_more
    store.restarts++
  }
  store.firstCount = newest.results.length
  store.loaded = true
}

/** Appends a page read by `startId` of the last entry: the entries older than the list. */
export function appendOlder(store: HistoryStore, page: HistoryPage) {
  for (const entry of page.results) {
    if (!store.byId.has(idOf(entry))) store.order.push(idOf(entry))
    store.byId.set(idOf(entry), entry)
  }
  store.hasMore = page.has_more
}

/**
 * The unfinished entries below the newest page, each with the entry above it: reading the page
 * of one entry after that one reads it alone.
 */
export function unfinishedBelowNewest(store: HistoryStore, limit: number): { id: string; above: string }[] {
  const found: { id: string; above: string }[] = []
  for (let index = Math.max(store.firstCount, 1); index < store.order.length && found.length < limit; index++) {
    const id = store.order[index]!
    if (isUnfinished(store.byId.get(id)!.action_status)) found.push({ id, above: store.order[index - 1]! })
  }
  return found
}

/** Replaces a loaded entry with a newer read of it; says whether it changed, so whether to render. */
export function patchEntry(store: HistoryStore, entry: DeploymentEntry): boolean {
  const known = store.byId.get(idOf(entry))
  if (!known) return false
  if (
    known.auditing_data.updated_at === entry.auditing_data.updated_at &&
    known.status === entry.status &&
    known.action_status === entry.action_status
  ) {
    return false
  }
  store.byId.set(idOf(entry), entry)
  return true
}
