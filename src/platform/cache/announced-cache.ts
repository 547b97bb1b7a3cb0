/**
 * A bounded, per-process cache of database reads that is safe across replicas only while
 * `listening`: PostgreSQL announces every change that matters at commit (NOTIFY), and the listener
 * forgets what it touched. While not listening nothing is kept. A read that started before an
 * announcement is not kept either (`generation`), so it cannot bring back what a change replaced.
 * A change this process is making itself may `hold` what it touches from before its commit until
 * after it, rather than wait for its own announcement.
 */
export function createAnnouncedCache<V>({ ttlMs, maxEntries }: { ttlMs: number; maxEntries: number }) {
  const entries = new Map<string, { value: V; until: number }>()
  /** Keys a change of this process is under way for, and how many such changes. */
  const held = new Map<string, number>()
  let listening = false
  let generation = 0

  const forget = (key: string) => {
    generation++
    entries.delete(key)
  }

  const forgetAll = () => {
    generation++
    entries.clear()
  }

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
      if (!listening || ttlMs === 0 || readAtGeneration !== generation || held.has(key)) return
      if (entries.size >= maxEntries) entries.delete(entries.keys().next().value!)
      entries.set(key, { value, until: now + ttlMs })
    },

    /** Forgets the value a change touched, by its key, whether this process made the change or heard of it. */
    forget,

    /** Forgets the values a change touched, whether this process made it or heard of it. */
    forgetMatching(touched: (value: V) => boolean): void {
      generation++
      for (const [key, entry] of entries) if (touched(entry.value)) entries.delete(key)
    },

    forgetAll,

    /**
     * A change of `key` that this process is making: from now until the returned release (called
     * once its transaction has ended, committed or not), nothing is remembered for the key, so
     * that its reads go to the database; the release forgets it again. The change's own
     * announcement may come back later than the response to the request that made it.
     */
    hold(key: string): () => void {
      held.set(key, (held.get(key) ?? 0) + 1)
      forget(key)
      let released = false
      return () => {
        if (released) return
        released = true
        const count = held.get(key)! - 1
        if (count === 0) held.delete(key)
        else held.set(key, count)
        forget(key)
      }
    },

    /** Whether changes are being announced to this process; when they stop being, everything is forgotten. */
    setListening(value: boolean): void {
      listening = value
      forgetAll()
    },
  }
}

export type AnnouncedCache<V> = ReturnType<typeof createAnnouncedCache<V>>
