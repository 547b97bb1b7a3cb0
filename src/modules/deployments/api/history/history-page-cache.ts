/** A history page as sent: its JSON, encoded once (sending a string encodes it again each time), and the ETag naming it. */
export interface RenderedPage {
  body: Buffer
  tag: string
}

/**
 * Rendered history pages kept by the version of the history they were read at, least recently
 * used leaving first once they hold more than `maxBytes`. A page is served again only
 * while its history's version is unchanged, so it is never stale.
 */
export function createHistoryPageCache({ maxBytes }: { maxBytes: number }) {
  const pages = new Map<string, RenderedPage & { version: string }>()
  let bytes = 0

  const drop = (key: string) => {
    const page = pages.get(key)
    if (!page) return
    bytes -= page.body.byteLength
    pages.delete(key)
  }

  return {
    get(key: string, version: string): RenderedPage | undefined {
      const page = pages.get(key)
      if (!page || page.version !== version) return undefined
      // Most recently used last.
      pages.delete(key)
      pages.set(key, page)
      return page
    },

    set(key: string, version: string, page: RenderedPage): void {
      drop(key)
      if (page.body.byteLength > maxBytes) return
      pages.set(key, { ...page, version })
      bytes += page.body.byteLength
      while (bytes > maxBytes) drop(pages.keys().next().value!)
    },
  }
}

export type HistoryPageCache = ReturnType<typeof createHistoryPageCache>
