import type { ApiTokenRow } from './api-tokens.repository.ts'

/**
 * API tokens recently authenticated, by digest, so that a request costs no database round trip.
 * Safe across replicas only while `listening`: every change to a token is announced at commit
 * (migration 0005) and evicts it here. While not listening nothing is kept. A read that started
 * before an announcement is not kept either (`generation`), so it cannot bring a revoked token back.
 */
export function createTokenCache({ ttlMs, maxEntries }: { ttlMs: number; maxEntries: number }) {
  const entries = new Map<string, { row: ApiTokenRow; until: number }>()
  let listening = false
  let generation = 0

  const clear = () => {
    entries.clear()
    generation++
  }

  return {
    /** Taken before reading a token from the database; `set` keeps the row only if nothing changed since. */
    get generation() {
      return generation
    },

    get(digest: string, now: number): ApiTokenRow | undefined {
      const entry = entries.get(digest)
      if (!entry) return undefined
      if (entry.until <= now) {
        entries.delete(digest)
        return undefined
      }
      return entry.row
    },

    set(digest: string, row: ApiTokenRow, readAtGeneration: number, now: number): void {
      if (!listening || ttlMs === 0 || readAtGeneration !== generation) return
      if (entries.size >= maxEntries) entries.delete(entries.keys().next().value!)
      entries.set(digest, { row, until: now + ttlMs })
    },

    /** A token changed or was deleted (its id): forget it. */
    forget(apiTokenId: string): void {
      this.forgetMatching((row) => row.id === apiTokenId)
    },

    /** Forgets the tokens a change in this process touched, before its announcement arrives. */
    forgetMatching(touched: (row: ApiTokenRow) => boolean): void {
      generation++
      for (const [digest, entry] of entries) if (touched(entry.row)) entries.delete(digest)
    },

    /** Whether changes are being announced to this process; when they stop being, everything is forgotten. */
    setListening(value: boolean): void {
      listening = value
      clear()
    },
  }
}

export type TokenCache = ReturnType<typeof createTokenCache>
