/**
 * A bounded, per-process cache of database reads that is safe across replicas only while
 * `listening`: PostgreSQL announces every change that matters at commit (NOTIFY), and the listener
 * forgets what it touched. While not listening nothing is kept. A read that started before an
 * announcement is not kept either (`generation`), so it cannot bring back what a change replaced.
 */
export function createAnnouncedCache<V>({ ttlMs, maxEntries }: { ttlMs: number; maxEntries: number }) {
  const entries = new Map<string, { value: V; until: number }>()
  let listening = false
  let generation = 0

  return {
    /** Taken before reading from the database; `set` keeps the value only if nothing changed since. */
    get generation() {
      return generation
    },

    get(key: string, now: number): V | undefined {
      const entry = entries.get(key)
      if (!entry) return undefined
      if (entry.until <= now) {
        entries.delete(key)
        return undefined
      }
      return entry.value
    },

    set(key: string, value: V, readAtGeneration: number, now: number): void {
      if (!listening || ttlMs === 0 || readAtGeneration !== generation) return
      if (entries.size >= maxEntries) entries.delete(entries.keys().next().value!)
      entries.set(key, { value, until: now + ttlMs })
    },

    /** Forgets the values a change touched, whether this process made it or heard of it. */
    forgetMatching(touched: (value: V) => boolean): void {
      generation++
      for (const [key, entry] of entries) if (touched(entry.value)) entries.delete(key)
    },

    forgetAll(): void {
      generation++
      entries.clear()
    },

    /** Whether changes are being announced to this process; when they stop being, everything is forgotten. */
    setListening(value: boolean): void {
      listening = value
      this.forgetAll()
    },
  }
}

export type AnnouncedCache<V> = ReturnType<typeof createAnnouncedCache<V>>
