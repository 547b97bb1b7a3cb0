interface Entry<T> {
  readonly gitTokenId: string
  readonly value: Promise<T>
  /** While the load runs: Infinity, so that identical requests wait for it rather than start another. */
  expiresAt: number
}

/**
 * A per-process cache of listings by key, bounded in entries and time. A load in flight is shared
 * with every identical request (one provider call for all of them); a failed load is not kept, so
 * the next request tries again. Entries are dropped by git token when the token changes.
 */
export function createBranchCache<T>({ ttlMs, maxEntries }: { ttlMs: number; maxEntries: number }, clock: () => number = Date.now) {
  // A Map iterates in insertion order: re-inserting on use keeps the least recently used first.
  const entries = new Map<string, Entry<T>>()

  return {
    get(key: string, gitTokenId: string, load: () => Promise<T>): Promise<T> {
      const found = entries.get(key)
      if (found && found.expiresAt > clock()) {
        entries.delete(key)
        entries.set(key, found)
        return found.value
      }
      const entry: Entry<T> = { gitTokenId, value: load(), expiresAt: Number.POSITIVE_INFINITY }
      entries.delete(key)
      entries.set(key, entry)
      while (entries.size > maxEntries) entries.delete(entries.keys().next().value!)
      // Only an entry still in place is kept: one dropped while loading never comes back.
      entry.value.then(
        () => {
          if (entries.get(key) === entry) entry.expiresAt = clock() + ttlMs
        },
        () => {
          if (entries.get(key) === entry) entries.delete(key)
        },
      )
      return entry.value
    },

    /** Forgets every listing made with the git token, including loads still running. */
    dropGitToken(gitTokenId: string): void {
      for (const [key, entry] of entries) if (entry.gitTokenId === gitTokenId) entries.delete(key)
    },

    get size(): number {
      return entries.size
    },
  }
}

export type BranchCache<T> = ReturnType<typeof createBranchCache<T>>
