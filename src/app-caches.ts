import type { FastifyBaseLogger, FastifyInstance } from 'fastify'
import type { Config } from './config.ts'
import { createTokenCache } from './modules/api-tokens/token-cache.ts'
import { createHistoryVersionCache } from './modules/deployments/api/history/history-versions.ts'
import { HISTORY_CHANNEL } from './modules/deployments/queue/deployment-rows.ts'
import type { OrganizationRow } from './modules/organizations/organizations.repository.ts'
import { createAnnouncedCache } from './platform/cache/announced-cache.ts'
import type { Db } from './platform/db/database.ts'
import { listen } from './platform/db/notifications.ts'
import type { CappedList } from './platform/http/lists.ts'

// API tokens, the organizations each may act in, organizations' ancestries and environments'
// history versions are remembered only while this process hears of their changes (migrations
// 0005, 0007 and 0011).
// The caches are dropped from when this process stops hearing and kept again once it hears.

/** Where PostgreSQL announces changes to API tokens (migration 0005) and to organizations (0007). */
const API_TOKENS_CHANNEL = 'berth_api_tokens'
const ORGANIZATIONS_CHANNEL = 'berth_organizations'
/** Environments whose history version a process remembers at most (a few hundred bytes each). */
const HISTORY_VERSIONS_KEPT = 20_000

/** The caches of what other processes may change, each forgotten when PostgreSQL announces a change; closed with the app. */
export function announcedCaches(app: FastifyInstance, config: Config, db: Db, log: FastifyBaseLogger) {
  const cacheLimits = { ttlMs: config.auth.tokenCacheTtlMs, maxEntries: config.auth.tokenCacheMaxEntries }
  const tokenCache = createTokenCache(cacheLimits)
  const organizationListCache = createAnnouncedCache<CappedList<OrganizationRow>>(cacheLimits)
  const organizationAncestryCache = createAnnouncedCache<string[]>(cacheLimits)
  const historyVersions = createHistoryVersionCache({
    // A version is worth remembering only for the pages kept at it.
    ttlMs: config.http.historyCacheBytes > 0 ? config.http.historyVersionTtlMs : 0,
    maxEntries: HISTORY_VERSIONS_KEPT,
  })
  const channels = [
    ...(config.auth.tokenCacheTtlMs > 0 ? [API_TOKENS_CHANNEL, ORGANIZATIONS_CHANNEL] : []),
    ...(config.http.historyCacheBytes > 0 && config.http.historyVersionTtlMs > 0 ? [HISTORY_CHANNEL] : []),
  ]
  const changes =
    channels.length > 0
      ? listen(db, channels, {
          onNotify(channel, payload) {
            if (channel === API_TOKENS_CHANNEL) tokenCache.forget(payload)
            else if (channel === ORGANIZATIONS_CHANNEL) {
              organizationListCache.forgetAll()
              organizationAncestryCache.forgetAll()
            } else if (channel === HISTORY_CHANNEL) historyVersions.forget(payload)
          },
          // This process's own changes to a history are read through from before their commit.
          onLocalChange: (channel, payload) => (channel === HISTORY_CHANNEL ? historyVersions.hold(payload) : () => {}),
          onListening: (listening) => {
            tokenCache.setListening(listening)
            organizationListCache.setListening(listening)
            organizationAncestryCache.setListening(listening)
            historyVersions.setListening(listening)
          },
          onError: (error) =>
            log.warn(
              { err: error },
              'lost the notifications of API token, organization and history changes; not remembering them until they are back',
            ),
        })
      : undefined
  app.addHook('onClose', async () => changes?.close())
  return { tokenCache, organizationListCache, organizationAncestryCache, historyVersions }
}
