import { AppError } from '#src/platform/http/errors.ts'

/** A listing longer than this many pages is taken for a provider stuck in a loop. */
export const MAX_PAGES = 1000

/** The URLs of an RFC 8288 `Link` header by relation: `<…?page=2>; rel="next"` → next. */
export function linkRelations(header: string | null): Map<string, string> {
  const relations = new Map<string, string>()
  for (const match of (header ?? '').matchAll(/<([^>]*)>([^,<]*)/g)) {
    const rel = /;\s*rel\s*=\s*"?([^";]+)"?/i.exec(match[2]!)?.[1]
    for (const name of rel?.trim().toLowerCase().split(/\s+/) ?? []) relations.set(name, match[1]!)
  }
  return relations
}

/**
 * A pagination link the provider gave, resolved against the page it came from. It must stay on the
 * API root's origin (not merely the page's): the next call carries the credential, which must never
 * go to another host.
 */
export function nextPageUrl(link: string, page: URL, apiRoot: URL, provider: string): URL {
  const url = URL.canParse(link, page.href) ? new URL(link, page) : undefined
  if (!url || url.origin !== apiRoot.origin) {
    throw new AppError('bad_gateway', `${provider} gave a pagination link to another host; refused`)
  }
  return url
}

/**
 * Follows a chain of pages from `first` until `next` says there is none. Sequential by nature; a
 * URL seen twice or more than MAX_PAGES pages end it with 502, as a provider that loops.
 */
export async function followPages<Page>(
  first: URL,
  fetchPage: (url: URL) => Promise<Page>,
  next: (page: Page) => URL | undefined,
  provider: string,
): Promise<Page[]> {
  const pages: Page[] = []
  const seen = new Set<string>()
  for (let url: URL | undefined = first; url; url = next(pages.at(-1)!)) {
    if (seen.has(url.href) || pages.length >= MAX_PAGES) {
      throw new AppError('bad_gateway', `${provider}'s pagination did not end after ${pages.length} pages; refused`)
    }
    seen.add(url.href)
    pages.push(await fetchPage(url))
  }
  return pages
}

type Tasks<T extends readonly unknown[]> = { [K in keyof T]: (signal: AbortSignal) => Promise<T[K]> }

/**
 * Runs tasks at once, each with a signal that follows `signal`. The first failure aborts the others
 * and is thrown only once all have stopped, so that no call keeps running behind the error.
 */
export async function runTogether<T extends readonly unknown[]>(signal: AbortSignal, tasks: Tasks<T>): Promise<T> {
  const controller = new AbortController()
  const combined = AbortSignal.any([signal, controller.signal])
  let failure: { error: unknown } | undefined
  const outcomes = await Promise.allSettled(
    (tasks as readonly ((signal: AbortSignal) => Promise<unknown>)[]).map(async (task) => {
      try {
        return await task(combined)
      } catch (error) {
        failure ??= { error }
        controller.abort()
        throw error
      }
    }),
  )
  if (failure) throw failure.error
  return outcomes.map((outcome) => (outcome as PromiseFulfilledResult<unknown>).value) as unknown as T
}

/**
 * `fn` over `items` with at most `limit` calls at once, results in the items' order. The first
 * failure (or `signal`) stops the rest: calls in flight are aborted and waited for.
 */
export async function mapConcurrently<T, R>(
  items: readonly T[],
  limit: number,
  signal: AbortSignal,
  fn: (item: T, signal: AbortSignal) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length)
  let next = 0
  const worker = async (workerSignal: AbortSignal) => {
    while (next < items.length) {
      workerSignal.throwIfAborted()
      const index = next++
      results[index] = await fn(items[index]!, workerSignal)
    }
  }
  await runTogether(
    signal,
    Array.from({ length: Math.min(limit, items.length) }, () => worker),
  )
  return results
}
