import { createAnnouncedCache } from '#src/platform/cache/announced-cache.ts'

/** What serving a history page needs to know of its environment besides the page: whose it is, and which version of its history is current. */
export interface EnvironmentVersion {
  organizationId: string
  projectId: string
  /** The history's version ('0' before its first run). */
  version: string
}

/**
 * Environments' organizations and history versions, remembered by environment id while this
 * process hears every change to them (HISTORY_CHANNEL), for at most `ttlMs`: a history page kept
 * for that version is then served without a database round trip. An environment whose history
 * this process is changing is held (read through) from before the commit until after it
 * (`localChange`), whenever its own announcement comes back; a change made by another process is
 * forgotten when its announcement arrives, and never later than `ttlMs` after the version was read,
 * however late that is. Keys are environment ids as PostgreSQL writes them (lower case).
 */
export function createHistoryVersionCache(options: { ttlMs: number; maxEntries: number }) {
  const cache = createAnnouncedCache<EnvironmentVersion>(options)
  return Object.assign(cache, {
    /** An environment deleted with its project: forget every environment of it. */
    forgetProject(projectId: string): void {
      cache.forgetMatching((known) => known.projectId === projectId)
    },

    /** An environment deleted with its organization. */
    forgetOrganization(organizationId: string): void {
      cache.forgetMatching((known) => known.organizationId === organizationId)
    },
  })
}

export type HistoryVersionCache = ReturnType<typeof createHistoryVersionCache>
