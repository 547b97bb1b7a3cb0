import { createAnnouncedCache } from '#src/platform/cache/announced-cache.ts'
import type { ApiTokenRow } from './api-tokens.repository.ts'

/**
 * API tokens recently authenticated, by digest, so that a request costs no database round trip.
 * Every change to a token is announced at commit (migration 0005) and evicts it here.
 */
export function createTokenCache(options: { ttlMs: number; maxEntries: number }) {
  const cache = createAnnouncedCache<ApiTokenRow>(options)
  return Object.assign(cache, {
    /** A token changed or was deleted (its id): forget it. */
    forget(apiTokenId: string): void {
      cache.forgetMatching((row) => row.id === apiTokenId)
    },
  })
}

export type TokenCache = ReturnType<typeof createTokenCache>
