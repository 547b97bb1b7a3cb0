import { createHash } from 'node:crypto'
import type { HistoryQuery } from '../../deployments.schemas.ts'
import type { HistoryFilters, HistoryPageQuery, StoredPage } from './deployment-history.repository.ts'

// History pages on the wire: the query as the repository takes it, the page's JSON, its ETag.

/** A page of an environment's or a service's history, numbered from 1. */
export interface HistoryPage extends StoredPage {
  page: number
  pageSize: number
}

export function historyPageQuery(query: HistoryQuery): HistoryPageQuery {
  const filters: HistoryFilters = {
    status: query.status,
    triggerAction: query.trigger_action,
    origin: query.origin,
    from: query.from === undefined ? undefined : new Date(query.from),
    to: query.to === undefined ? undefined : new Date(query.to),
  }
  return { pageSize: query.pageSize, startId: query.startId, filters }
}

/** The page as JSON text: the stored entries joined as they are, never parsed again. */
export function historyPageJson(page: HistoryPage): string {
  const next = page.hasMore ? JSON.stringify(page.lastId) : 'null'
  return `{"page":${page.page},"page_size":${page.pageSize},"results":[${page.entries.join(',')}],"next_start_id":${next},"has_more":${page.hasMore}}`
}

/** A strong ETag of a response body: pollers send it back and get 304 while nothing changed. */
export const bodyTag = (body: string | Buffer) => createHash('sha256').update(body).digest('base64url').slice(0, 27)
